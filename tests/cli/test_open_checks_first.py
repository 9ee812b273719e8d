"""`open` says what is wrong with its lesson before anything starts, terminal or not: an
unknown id, a lesson without a challenge; a good one gets as far as needing a terminal."""

import subprocess
import sys


def open_(*args):
    return subprocess.run([sys.executable, "-m", "playground", "open", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)


def test_an_unknown_lesson_is_said_before_the_terminal():
    done = open_("no-such-lesson")
    assert done.returncode == 2 and "no-such-lesson: no such scenario" in done.stderr, done.stderr
    assert "needs a terminal" not in done.stderr


def test_a_lesson_without_a_challenge_and_a_good_one():
    done = open_("watch-abort", "--challenge")
    assert done.returncode == 2 and "watch-abort has no challenge" in done.stderr, done.stderr
    done = open_("lost-update", "--challenge")
    assert done.returncode == 2 and "the app needs a terminal" in done.stderr, done.stderr
