"""serve's resume codes on their own (cli/resume_codes.py): a code as typed is read back
whatever its case and dashes, anything else is no code; each live session has its own;
the sessions ended by grace are remembered once each, and no more than REMEMBERED."""

from __future__ import annotations

from playground.cli import resume_codes
from playground.cli.resume_codes import REMEMBERED, ResumeCodes, normalize, shown


class Session:
    def __init__(self, token: str) -> None:
        self.token, self.code = token, None


def test_a_code_as_typed_and_anything_else():
    assert normalize(" abcd-efgh ") == "ABCDEFGH" and shown("ABCDEFGH") == "ABCD-EFGH"
    for junk in ("", "ABCD-EFG", "ABCD-EFGHJ", "ABCD-EFG0", "ABCD-EFGI", "ÄBCD-EFGH", "A" * 10_000, "ABCD/EFGH"):
        assert normalize(junk) == "", junk


def test_codes_are_per_session_and_the_ended_are_told_once_and_bounded():
    codes = ResumeCodes()
    first, second = Session("t1"), Session("t2")
    code = codes.give(first)
    assert codes.give(first) == code and codes.find(code) is first  # the same code on each attach
    assert codes.give(second) != code
    codes.drop(first)
    assert codes.find(code) is None
    codes.expired(first, 10.0)
    assert codes.away("t1") == 10.0 and codes.away("t1") is None  # said once
    assert codes.away(code) == 10.0
    for n in range(REMEMBERED + 10):
        codes.expired(Session(f"many{n}"), 1.0)
    assert len(codes.gone) == REMEMBERED and codes.away("many0") is None and codes.away(f"many{REMEMBERED + 9}") == 1.0
    assert (resume_codes.away_notice(0.02, "en")
            == "Your session ended after 0.02 minutes away; this is a fresh playground.")
