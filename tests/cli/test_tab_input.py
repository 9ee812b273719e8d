"""What a tab types, on its way to its app (cli/tab_input.py), without a serve: Alt keys
become the keyboard protocol's (read at once, also in a burst: tests/cli/test_serve_frames.py
types them into a served app), a long frame that is no paste becomes one, a tab's typing
past its burst is dropped and counted, and a flood of messages is told apart from a page's
pace."""

from __future__ import annotations

from playground.cli.tab_input import (
    BURST,
    FLOOD_BURST,
    PASTE_END,
    PASTE_FROM,
    PASTE_START,
    RATE,
    Bucket,
    TabInput,
    alt_key,
    as_paste,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_alt_keys_become_the_keyboard_protocols():
    assert "".join(alt_key("\x1bw") for _ in range(3)) == "\x1b[119;3u" * 3  # Alt+W, each a key of its own
    assert alt_key("\x1bt") == "\x1b[116;3u" and alt_key("\x1b\x7f") == "\x1b[127;3u"  # Alt+Backspace
    assert alt_key("\x1b中") == f"\x1b[{ord('中')};3u"


def test_only_a_frame_of_esc_and_one_key_is_changed():
    for frame in ("\x1b", "\x1b[A", "\x1bOP", "w", "ab", "\x1b\x1b", "\x1b\r"):
        assert alt_key(frame) == frame


def test_a_long_frame_that_is_no_paste_becomes_one():
    frame = "a" * PASTE_FROM
    assert as_paste(frame) == PASTE_START + frame + PASTE_END
    assert as_paste("SET k v\r") == "SET k v\r"  # typing (one key, or a line a script sends) as it is
    pasted = PASTE_START + "b" * PASTE_FROM + PASTE_END
    assert as_paste(pasted) == pasted
    sneaky = "x" * PASTE_FROM + PASTE_END + "\x03"  # a paste's end inside: it cannot end the paste early
    assert as_paste(sneaky) == PASTE_START + "x" * PASTE_FROM + "\x03" + PASTE_END


def test_a_tabs_typing_past_its_burst_is_dropped_then_flows_again():
    clock = Clock()
    tab = TabInput(clock)
    frame = "a" * 4000
    admitted = [tab.admit(frame) is not None for _ in range(125)]
    assert sum(admitted) == BURST // 4000 and tab.dropped == (125 - BURST // 4000) * 4000
    assert tab.admit("x") is not None or tab.characters.left < 1
    clock.now += 4000 / RATE  # a second's share later, the next frame goes through
    assert tab.admit(frame) is not None


def test_a_flood_of_messages_is_told_from_a_pages_pace():
    clock = Clock()
    tab = TabInput(clock)
    assert not any(tab.flooded() for _ in range(FLOOD_BURST))
    assert tab.flooded()
    tab = TabInput(clock)
    for _ in range(20 * FLOOD_BURST // 60):  # 60 messages a second (mouse moves), for long
        clock.now += 1 / 60
        assert not tab.flooded()


def test_a_bucket_refills_up_to_its_burst():
    clock = Clock()
    bucket = Bucket(10, 5, clock)
    assert bucket.take(10) and not bucket.take(1)
    clock.now += 100
    assert bucket.take(10) and not bucket.take(1)
