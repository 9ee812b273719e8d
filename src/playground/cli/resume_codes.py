"""serve's resume codes: each tab's session has a short code, shown in the page's status
line, that opens the same session again from another tab or after its tab was closed
(`/#resume=CODE`, or typed into the page's "class is full" box); and a short memory of
the sessions whose grace ran out, so that a tab coming back to one is told why it finds
a fresh playground. Nothing here touches a process: cli/web_server.py does.

A code is 8 characters from an alphabet without look-alikes (no 0/O, 1/I/L): about 40
bits, a secret of the session like its token (never in a file, never in serve's output)."""

from __future__ import annotations

import re
import secrets
from collections import OrderedDict

from playground.i18n import tr_in

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
LENGTH = 8
REMEMBERED = 4096  # sessions ended by grace remembered (the oldest forgotten first): bounded memory


def normalize(text: str) -> str:
    """A code as typed ("abcd-efgh", spaces, dashes) as it is kept; "" if it cannot be one."""
    code = re.sub(r"[\s\-]", "", text or "").upper()[:64]
    return code if len(code) == LENGTH and all(c in ALPHABET for c in code) else ""


def shown(code: str) -> str:
    """ABCD-EFGH: easier to read out and to copy by hand."""
    return f"{code[:4]}-{code[4:]}" if code else ""


class ResumeCodes:
    """code -> session, for the sessions live; token or code -> minutes away, for those that
    ended by grace (the last REMEMBERED)."""

    def __init__(self) -> None:
        self.live: dict[str, object] = {}
        self.gone: OrderedDict[str, float] = OrderedDict()

    def give(self, session) -> str:
        """`session`'s code (a new one the first time)."""
        code: str = getattr(session, "code", None) or ""
        if not code:
            code = self._unused()
            session.code = code
        self.live[code] = session
        return code

    def _unused(self) -> str:
        """A code no live session has."""
        while True:
            code = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
            if code not in self.live:
                return code

    def find(self, code: str):
        return self.live.get(code)

    def drop(self, session) -> None:
        code = getattr(session, "code", None)
        if code and self.live.get(code) is session:
            del self.live[code]

    def expired(self, session, minutes: float) -> None:
        """`session` ended because its tab stayed away `minutes`."""
        for key in (session.token, getattr(session, "code", None)):
            if key:
                self.gone[key] = minutes
                self.gone.move_to_end(key)
        while len(self.gone) > REMEMBERED:
            self.gone.popitem(last=False)

    def away(self, key: str) -> float | None:
        """How long the session of this token or code had been away when it ended (forgotten
        once asked: the notice is said once)."""
        return self.gone.pop(key, None) if key else None


def away_notice(minutes: float, lang: str) -> str:
    """What a tab says when its session ended while it was away.

    Args:
        minutes: how long it had been away.
        lang: the language of the tab's page (its session's, cli/tab_session.py).
    """
    return tr_in(lang, "Your session ended after {minutes} minutes away; this is a fresh playground.",
                 minutes=f"{minutes:.3g}")


def resume_texts(lang: str) -> dict[str, str]:
    """The page's texts for resume codes, and for a session its teacher ended, in `lang`."""
    return {"code": tr_in(lang, "To come back to this session (another tab, or after closing this one):"),
            "link": tr_in(lang, "link"), "unknown": tr_in(lang, "No session has this code (it may have ended)."),
            "fresh": tr_in(lang, "New playground"), "your_code": tr_in(lang, "Your code"),
            "resume": tr_in(lang, "Come back to my session"),
            "released": tr_in(lang, "Your teacher freed your place in the class: this session is over.")}
