"""Server order on screen: one shared time axis, one column per client.

Each row is a unit in the order the server ran it, numbered with its server-order
number (the number in the panes' gutters): a command, or a MULTI…EXEC or a script as
one block at the moment it ran (EXEC time, not queue time). Part boundaries (fresh
starts), flushes and restarts are drawn across all lanes, and a "why" (engine/why.py)
under the unit it explains.

Built from the engine's units (the stepper's `entry_for` draws a unit's lines; never
from rendered text), laid out in terminal cells (playground.cells): `run --format
text` prints it, the TUI's lanes view (tui/widgets/lanes_view.py) styles the same lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from playground.cells import fold, pad, width, wrap
from playground.engine.units import Unit
from playground.i18n import N_, current_language, tr
from playground.resp.cli_format import render
from playground.resp.cli_secrets import redact_reply
from playground.scenario.stepper import entry_for
from playground.visible import visible

GUTTER = 4          # "  12": the server-order number, then SEP
SEP = " │ "
MIN_LANE = 12
SHOWN_CHARS = 1024  # of one command or reply in a lane: the rest is summarised, as a pane
                    # does past its limit (the lanes show a reply's first line only)
SHOWN_COMMANDS = 50  # of one block's lines (MULTI, the commands, EXEC)
SHOWN_TEXT = 64 * 1024  # characters the lanes view lays out at most: the newest rows that fit


@dataclass
class LaneRow:
    """One unit on the time axis, or a boundary across all lanes (`client` empty)."""

    seq: int | None
    client: str
    lines: list[str]
    atomic: bool = False
    note: str = ""
    reply: str = ""                          # the reply's first line ("" for none)
    whys: list[str] = field(default_factory=list)


def reply_line(unit: Unit) -> str:
    """The reply as redis-cli prints it, first line only (`…` when there is more)."""
    if unit.reply is None:
        return ""
    argv = [b"EXEC"] if unit.kind == "transaction" else list(unit.commands[0])
    try:
        text = redact_reply(argv, render(unit.reply, argv).decode("utf-8", "replace").rstrip("\n"))
    except Exception:
        return ""
    first, _, rest = text.partition("\n")
    return first + (" …" if rest else "")


def _cut(text: str, more: str) -> str:
    """`text` cut at SHOWN_CHARS characters, with how many bytes were left out (`more`:
    the message, with {count})."""
    if len(text) <= SHOWN_CHARS:
        return text
    return text[:SHOWN_CHARS] + " " + tr(more, count=len(text[SHOWN_CHARS:].encode()))


def _cut_lines(lines: list[str]) -> list[str]:
    """A unit's lines, each cut (`_cut`), and a block's commands past SHOWN_COMMANDS
    summarised (its first ones and its last line, EXEC, kept)."""
    lines = [_cut(line, N_("… ({count:,} more bytes of this command not shown)")) for line in lines]
    if len(lines) > SHOWN_COMMANDS:
        hidden = len(lines) - (SHOWN_COMMANDS - 1)
        lines = [*lines[:SHOWN_COMMANDS - 2], tr("… ({count:,} more commands not shown)", count=hidden), lines[-1]]
    return lines


def row_for(unit: Unit, shown: str | None = None, whys=()) -> LaneRow:
    """The unit's row, long commands and replies cut (`_cut`), every text in it with its
    control characters written out (playground/visible.py): laid out in cells as shown,
    in a transcript or on screen."""
    entry = entry_for(unit, shown)
    note = tr(entry.note) if entry.note else ""  # (the stepper's notes are N_-marked English)
    reply = _cut(reply_line(unit), N_("… ({count:,} more bytes of this reply not shown)"))
    return LaneRow(unit.seq, unit.client, [visible(line) for line in _cut_lines(list(entry.lines))], entry.atomic,
                   visible(note), visible(reply), [_why_said(w, current_language()) for w in whys])


def _why_said(why: object, language: str) -> str:
    """A why-note as the lanes show it: in `language` (F12 says it again), control characters written out."""
    return visible(why.text_in(language) if hasattr(why, "text_in") else str(why))


_MARKS = {"reset": N_("fresh start"), "flush": N_("flushed by the playground"), "restart": N_("server restarted")}


def rows_from_order(rows, memo: dict[tuple[object, str], LaneRow] | None = None) -> list[LaneRow]:
    """The engine's server order (engine/server_order.py) as lane rows. `memo`: the rows
    made before, kept by whoever draws them again ({(server-order row, language): LaneRow});
    a unit's row is made once (its reply rendered once), its whys added as they are now."""
    out = []
    language = current_language()
    for row in rows:
        if row.unit is not None and memo is not None:
            made = memo.get((row, language))
            if made is None:
                made = memo[(row, language)] = row_for(row.unit)
            out.append(replace(made, whys=[_why_said(w, language) for w in row.whys]))
            continue
        if row.unit is None:
            if row.mark == "reset" and row.text:
                label = tr("part: {name}", name=row.text)
            elif row.mark == "promote":
                label = tr("{node} promoted to primary", node=row.text)
            elif row.mark == "connect":
                label = tr("{client} connected to {node}", client=row.client, node=row.text)
            else:
                label = tr(_MARKS.get(row.mark, row.mark))
            out.append(LaneRow(None, "", [visible(label)]))
        else:
            out.append(row_for(row.unit, whys=row.whys))
    return out


def rows_from_steps(steps) -> list[LaneRow]:
    """A scenario run's steps (runner.StepResult) as lane rows, in server order (a
    blocked command's row comes when its reply came)."""
    out = []
    for step in steps:
        for unit in step.units:
            single = unit.kind != "transaction"
            shown = (step.command or step.step.display) if single and not step.step.wait else None
            whys = [w for w in step.whys if getattr(w, "seq", unit.seq) == unit.seq]
            out.append(row_for(unit, shown, whys))
    return sorted(out, key=lambda r: r.seq if r.seq is not None else 0)


def newest_within(rows: list[LaneRow], chars: int = SHOWN_TEXT) -> list[LaneRow]:
    """The newest of `rows` whose texts together hold at most `chars` characters (at least
    the newest one): what the lanes view lays out, however long the history."""
    kept: list[LaneRow] = []
    used = 0
    for row in reversed(rows):
        used += sum(len(line) for line in row.lines) + len(row.reply) + len(row.note) + sum(len(w) for w in row.whys)
        if kept and used > chars:
            break
        kept.append(row)
    return kept[::-1]


def lane_width(clients, total: int) -> int:
    """The width of each client's lane when `total` columns are shared among them.

    Args:
        clients: the clients, one lane each.
        total: the columns available.
    """
    n = max(1, len(clients))
    return max(MIN_LANE, (total - GUTTER - len(SEP) * n) // n)


def layout(rows: list[LaneRow], clients, total: int = 80, why_label: str = "why") -> list[tuple[str, str]]:
    """(line, kind) pairs; kind: "head", "rule", "part", "cmd", "box", "reply", "note", "why".
    A client the rows name beside `clients` (a program started by hand, through the gate)
    gets a lane of its own after theirs, never another client's."""
    clients = tuple(clients)
    clients += tuple(dict.fromkeys(row.client for row in rows if row.client and row.client not in clients))
    lane = lane_width(clients, total)
    spare = max(0, total - GUTTER - (lane + len(SEP)) * len(clients))  # (lanes are whole cells: the rest)
    full = GUTTER + (lane + len(SEP)) * len(clients) + spare
    out = [("   #" + SEP + SEP.join(pad(c, lane) for c in clients).rstrip(), "head"),
           ("─" * GUTTER + "─┼─" + "─┼─".join("─" * lane for _ in clients) + "─" * spare, "rule")]
    for row in rows:
        if not row.client:
            label = f" {row.lines[0]} "
            left = max(2, (full - width(label)) // 2)
            out.append(("─" * left + label + "─" * max(2, full - left - width(label)), "part"))
            continue
        where = clients.index(row.client)
        body: list[tuple[str, str]] = []
        if row.atomic or len(row.lines) > 1:
            inner = lane - 4
            body.append(("┌" + "─" * (lane - 2) + "┐", "box"))
            for line in row.lines:
                body += [(f"│ {pad(piece, inner)} │", "box") for piece in fold(line, inner)]
            if row.reply:
                body += [(f"│ {pad(piece, inner)} │", "box") for piece in fold("→ " + row.reply, inner)]
            body.append(("└" + "─" * (lane - 2) + "┘", "box"))
        else:
            body += [(piece, "cmd") for line in row.lines for piece in fold(line, lane)]
            if row.reply:
                body += [(piece, "reply") for piece in fold("→ " + row.reply, lane)]
        if row.note:
            body += [("  " + piece, "note") for piece in wrap(f"({row.note})", lane - 2)]
        for i, (text, kind) in enumerate(body):
            cols = [" " * lane] * len(clients)
            cols[where] = pad(text, lane)
            number = f"{row.seq:>{GUTTER}}" if i == 0 and row.seq is not None else " " * GUTTER
            out.append((number + SEP + SEP.join(cols).rstrip(), kind))
        for why in row.whys:
            head = f"  ↳ {why_label}: "
            for i, piece in enumerate(wrap(why, full - width(head))):
                out.append(((head if i == 0 else " " * width(head)) + piece, "why"))
    return out


def render_text(rows: list[LaneRow], clients, total: int = 80, why_label: str = "why") -> str:
    """The lanes view as plain text, one line per laid-out line.

    Args:
        rows: the rows to lay out.
        clients: the clients, one lane each.
        total: the columns available.
        why_label: the label of a row's explanations.
    """
    return "\n".join(line for line, _ in layout(rows, clients, total, why_label)) + "\n"


def render_markdown(rows: list[LaneRow], clients, why_label: str = "why") -> str:
    """The lanes view as a Markdown table, a column per client.

    Args:
        rows: the rows to lay out.
        clients: the clients, one column each.
        why_label: the label of a row's explanations.
    """
    clients = tuple(clients)
    out = ["| # | " + " | ".join(clients) + " |", "|---|" + "---|" * len(clients)]
    for row in rows:
        if not row.client:
            out.append(f"| | **{row.lines[0]}** |" + " |" * (len(clients) - 1))
            continue
        cells = [""] * len(clients)
        text = "<br>".join(f"`{x}`" for x in row.lines)
        if row.atomic:
            text = tr("**one block:** ") + text
        if row.reply:
            text += f"<br>→ `{row.reply}`"
        if row.note:
            text += f"<br>_{row.note}_"
        for why in row.whys:
            text += f"<br>_↳ {why_label}: {why}_"
        cells[clients.index(row.client) if row.client in clients else 0] = text.replace("|", "\\|")
        out.append(f"| {row.seq} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
