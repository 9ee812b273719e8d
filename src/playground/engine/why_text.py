"""The words of the "why" explanations (engine/why.py): kind -> English text, translated
through the interface's catalogue (playground/locales/) in the language asked for.

`{name}` fields are filled in from the engine's records. `#7` is a server-order number: the same number the
panes show in their gutters and the lanes view in its first column.
"""

from __future__ import annotations

from collections.abc import Mapping

from playground.i18n import N_, tr_in

MESSAGES: dict[str, str] = {
    "itself": N_("{client} itself"),
    "aborted_changed": N_("{who} changed WATCHed {key} ({cmd}, #{seq}) after {client}'s WATCH (#{watch}): "
                       "EXEC aborted, nothing ran."),
    "aborted_same": N_("{who} rewrote WATCHed {key} with the value it already had ({cmd}, #{seq}): any write "
                    "to a WATCHed key aborts EXEC, even one that leaves it as it was."),
    "aborted_ttl": N_("{who} changed only the TTL of WATCHed {key} ({cmd}, #{seq}) after {client}'s WATCH "
                   "(#{watch}); its value stayed as it was, but a new or removed TTL is a change to the key, "
                   "so EXEC aborted."),
    "aborted_expired": N_("WATCHed {key} expired after {client}'s WATCH (#{watch}): no client wrote it, but "
                       "an expiry counts as a change, so EXEC aborted."),
    "aborted_flush": N_("{who} ran {cmd} (#{seq}) after {client}'s WATCH: a flush changes every key, WATCHed "
                     "{key} included, so EXEC aborted."),
    "aborted_mark_reset": N_("The playground emptied the server (a fresh start) after the WATCH: WATCHed {key} "
                     "changed, so EXEC aborted."),
    "aborted_mark_restart": N_("The server restarted after the WATCH: EXEC aborted."),
    "aborted_mark_flush": N_("The playground flushed the server (Flush db) after the WATCH: WATCHed {key} "
                          "changed, so EXEC aborted."),
    "aborted_unknown": N_("A WATCHed key ({keys}) changed, but not by a command of the playground's "
                       "clients: another connection wrote it, or it expired."),
    "unwatched": N_("{who} wrote {key} ({cmd}, #{seq}) after #{start} ({client}'s last command before this "
                 "transaction), and EXEC still ran: {key} was not WATCHed, so nothing told the transaction. "
                 "WATCH {key} before reading it and EXEC would have aborted."),
    "execabort": N_("{cmd} was rejected when it was queued ({error}){more}: with one rejected command the "
                 "server runs none of the transaction."),
    "execabort_more": N_(", and {n} more"),
    "execabort_unknown": N_("A command was rejected when it was queued ({error}): nothing ran."),
    "busy": N_("{who}'s script ({cmd}) has been running for {seconds}s, and the server runs one thing at a "
            "time, so it answers everyone else BUSY. SCRIPT KILL stops the script if it has not written "
            "yet; SHUTDOWN NOSAVE stops the server, losing every unsaved write."),
    "busy_unknown": N_("A script is running (not one of the playground's clients), and the server answers "
                    "everyone else BUSY until it ends. SCRIPT KILL stops it if it has not written yet."),
    "unkillable": N_("{who}'s script ({cmd}, running {seconds}s) has already written: killing it would leave "
                  "its changes half done, so SCRIPT KILL refuses. It ends when it finishes, or with "
                  "SHUTDOWN NOSAVE (the server stops; unsaved writes are lost)."),
    "unkillable_unknown": N_("The running script has already written: killing it would leave its changes "
                          "half done, so SCRIPT KILL refuses. Only SHUTDOWN NOSAVE stops it."),
    "noscript_flush": N_("{who} emptied the script cache with SCRIPT FLUSH (#{seq}) after the script was "
                      "loaded (#{loaded}): EVALSHA only runs a cached script. Send it again with EVAL "
                      "or SCRIPT LOAD."),
    "noscript_mark_reset": N_("The script cache was emptied by a fresh start (a new part) after the script was "
                      "loaded (#{loaded}): send it again with EVAL or SCRIPT LOAD."),
    "noscript_mark_flush": N_("The playground flushed the server and its script cache (Flush db) after the "
                           "script was loaded (#{loaded}): send it again with EVAL or SCRIPT LOAD."),
    "noscript_mark_restart": N_("The server restarted after the script was loaded (#{loaded}): a new server has "
                        "no cached scripts. Send it again with EVAL or SCRIPT LOAD."),
    "noscript_promote": N_("{node} became the primary after the script was loaded (#{loaded}) on the old one: "
                           "scripts are not replicated, so the new primary never had it. Send it again with "
                           "EVAL or SCRIPT LOAD."),
    "noscript_connect": N_("{client} moved to {node} after the script was loaded (#{loaded}): every server has "
                           "its own script cache, and {node} never had this one. Send it again with EVAL or "
                           "SCRIPT LOAD."),
    "noscript_gone": N_("The script was loaded (#{loaded}) but the cache no longer has it (flushed from "
                     "outside the playground's clients): send it again with EVAL or SCRIPT LOAD."),
    "sandbox": N_("The private server keeps learners in: its own ACL refuses what would reach another server "
                  "or open this one up (MIGRATE, CLUSTER MEET, REPLICAOF, FAILOVER, SYNC, CONFIG SET, ACL changes, "
                  "DEBUG, MODULE), typed or called from a script or function. Nothing else is affected."),
    "noscript_never": N_("This server never had that script: no EVAL or SCRIPT LOAD of it ran here. "
                      "EVALSHA only runs a cached script; send it once with EVAL or SCRIPT LOAD."),
}

LABEL = N_("why")  # before a why-note: "↳ why: ..."


def message(lang: str, kind: str, **values: object) -> str:
    """MESSAGES[kind] in `lang`, its fields filled in (a Said field said in `lang` too).

    Args:
        lang: the language.
        kind: the message's key in MESSAGES.
        **values: its fields.
    """
    return tr_in(lang, MESSAGES[kind], **{k: (render(lang, v.message, v.values) if isinstance(v, Said) else v)
                                          for k, v in values.items()})


class Said(str):
    """A note in one language that remembers what it said (its MESSAGES entry and fields,
    themselves Said where a part is a note of its own), to be said again in another."""

    message: str
    values: dict[str, object]

    def __new__(cls, text: str, message: str, values: Mapping[str, object]) -> "Said":
        said = super().__new__(cls, text)
        said.message, said.values = message, dict(values)
        return said


def render(lang: str, kind: str, values: Mapping[str, object]) -> str:
    """MESSAGES[kind] in `lang` with `values` (Said values said in `lang` too)."""
    return message(lang, kind, **values)
