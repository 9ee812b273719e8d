"""The command line of a pane: history, reverse search and completion like redis-cli."""

from __future__ import annotations

from typing import Callable, ClassVar

from textual import events
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input

from playground.engine.help import HelpIndex
from playground.history import History
from playground.i18n import N_, tr
from playground.served import served


class CommandInput(Input):
    """An Input with redis-cli's line editing conveniences."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *([Binding("alt+w", "delete_left_word", "Delete the word to the left", show=False,
                   tooltip=N_("delete the word to the left (in a browser Ctrl+W closes the tab)"))]
          if served() else []),
        Binding("up", "history(-1)", "Previous command", show=False, tooltip=N_("history: the previous command")),
        Binding("down", "history(1)", "Next command", show=False, tooltip=N_("history: the next command")),
        Binding("ctrl+r", "search_history", "Search", show=False,  # F1 lists it (80 columns: room for F12)
                tooltip=N_("reverse search: type to narrow, Ctrl+R again for older, Enter takes it, Esc cancels")),
        Binding("tab", "complete", "Complete command", show=False, tooltip=N_("complete a command name")),
        Binding("escape,ctrl+g", "cancel_search", "Cancel search", show=False, tooltip=N_("end a reverse search")),
    ]
    """Served, Alt+W does what Ctrl+W does in a terminal (the browser closes the tab on
    Ctrl+W); first, so that F1 lists it in sight. on_key does it, in turn with the keys typed
    around it: serve hands the app Alt keys in the keyboard protocol (cli/tab_input.py), where
    Alt+W is no printable w, and as a priority binding it ran before the keys typed just
    before it had reached the line (a burst of typing and Alt+W deleted nothing)."""

    class SearchChanged(Message):
        """Reverse search started, moved or ended (`term` None when it ended)."""

        def __init__(self, term: str | None, found: bool) -> None:
            super().__init__()
            self.term = term
            self.found = found

    class Pasted(Message):
        """A paste that ends one or more lines: `lines` to run in order (blank ones left
        out), `rest` what stays in the line after them (as in a terminal: the text after
        the last newline waits for Enter)."""

        def __init__(self, field: "CommandInput", lines: list[str], rest: str) -> None:
            super().__init__()
            self.field = field
            self.lines = lines
            self.rest = rest

    BLINK_FOR = 10.0
    """Seconds the cursor blinks after the last key (or the focus), then it stays lit: GTK's
    cursor-blink-timeout. Each blink draws a frame: ~10 ms of CPU a second in every idle
    tab of a class, and in every app `serve` keeps ready."""

    def __init__(self, history: History, help_index: Callable[[], HelpIndex], **kwargs) -> None:
        super().__init__(**kwargs)
        self.history = history
        self.help_index = help_index
        self._pos: int | None = None        # where Up/Down are in the history
        self._draft = ""                    # what was typed before Up
        self._search: str | None = None     # the reverse-search term
        self._completions: list[str] = []
        self._completion_at = -1
        self._set_value: str | None = None  # a value we set ourselves (Changed arrives later)
        self._value_changing = False  # between validate_value and watch_value: a keystroke's update
        self._blinking: Timer | None = None  # the timer that ends the blinking (on_mount)

    # A keystroke: Input sets its virtual size to the text's width, and that asks for a
    # layout pass of the whole screen (every pane's widgets placed again) on each key. The
    # line's own size is fixed by its CSS (one row, the pane's width; scrolling within it
    # reads the virtual size directly): while the value changes, a repaint of the line does.
    def validate_value(self, value: str) -> str:
        self._value_changing = value != self.value and not self.styles.auto_dimensions
        return value

    def watch_value(self) -> None:
        self._value_changing = False

    def refresh(self, *regions, repaint: bool = True, layout: bool = False, recompose: bool = False):
        return super().refresh(*regions, repaint=repaint, layout=layout and not self._value_changing,
                               recompose=recompose)

    def _set(self, value: str) -> None:
        self._set_value = value
        self.value = value
        self.cursor_position = len(value)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.value == self._set_value:
            return
        self._set_value = None
        self._completions = []
        if self._search is not None:
            self._search = None
            self.post_message(self.SearchChanged(None, True))
        self._pos = None

    def action_history(self, step: int) -> None:
        lines = self.history.lines
        if not lines:
            return
        if self._pos is None:
            if step > 0:
                return
            self._draft = self.value
            self._pos = len(lines)
        self._pos = max(0, min(len(lines), self._pos + step))
        self._set(self._draft if self._pos == len(lines) else lines[self._pos])

    def action_search_history(self) -> None:
        """Ctrl+R, as readline's reverse-i-search: typing narrows the match, Ctrl+R again
        finds an older one, Enter (or any movement key) keeps it, Esc or Ctrl+G cancels.
        Text typed before Ctrl+R starts the search."""
        if self._search is None:
            self._draft = self.value
            self._search = self.value
            before = None
        else:
            before = self._pos
        self._find(before)

    def _find(self, before: int | None) -> None:
        found = self.history.search(self._search, before) if self._search else None
        if found is not None:
            self._pos = found
            self._set(self.history.lines[found])
        elif not self._search:
            self._set(self._draft)
        self.post_message(self.SearchChanged(self._search, found is not None or not self._search))

    def _end_search(self) -> None:
        self._search = None
        self.post_message(self.SearchChanged(None, True))

    def action_cancel_search(self) -> None:
        if self._search is None:
            raise SkipAction()  # Escape then means what it means elsewhere (back to the narration)
        self._end_search()
        self._set(self._draft)
        self._pos = None

    def on_mount(self) -> None:
        self._blinking = self.set_interval(self.BLINK_FOR, self._stop_blinking, pause=not self.has_focus)

    def _stop_blinking(self) -> None:
        self.cursor_blink = False  # (Input: a steady, visible cursor)
        if self._blinking is not None:
            self._blinking.pause()

    def _blink_again(self) -> None:
        """A key or the focus: the cursor blinks again, for BLINK_FOR seconds from now."""
        if self._blinking is None:
            return
        self.cursor_blink = True
        self._blinking.reset()
        self._blinking.resume()

    def on_focus(self) -> None:
        self._blink_again()

    def on_blur(self) -> None:
        if self._blinking is not None:
            self._blinking.pause()

    async def on_key(self, event: events.Key) -> None:
        """Reverse search takes the keys it needs first; prevent_default keeps them from
        Input's own handling, which runs after this one for every other key."""
        self._blink_again()
        if self._search is not None:
            if event.key == "enter":
                event.stop()
                event.prevent_default()
                self._end_search()  # the match stays in the line; Enter again sends it
                return
            if event.key == "backspace":
                event.stop()
                event.prevent_default()
                self._search = self._search[:-1]
                self._find(None)
                return
            if event.is_printable and event.character:
                event.stop()
                event.prevent_default()
                self._search += event.character
                self._find(None if self._pos is None else self._pos + 1)
                return
            if event.key not in ("ctrl+r", "escape", "ctrl+g"):
                self._end_search()  # a movement key: keep the match and edit it
        if event.key == "alt+w" and served():  # here, in turn with the keys typed before and after it
            event.stop()  # (as a binding it ran before keys typed just before it reached the line, or
            event.prevent_default()  # after those typed just after it; in a burst, on neither: BINDINGS)
            self.action_delete_left_word()
            return
        if event.key == "enter":  # here, not as a binding: see action_submit
            event.stop()
            event.prevent_default()
            await self.action_submit()

    async def action_submit(self) -> None:
        """Enter: the line leaves the input at once, before the next key is read. (Enter
        as a binding ran only after the key had bubbled up to the app, by which time the
        Input had typed the keys after it into the same line: a burst merged.)"""
        line = self.value
        self.value = ""
        self.post_message(self.Submitted(self, line))

    def on_paste(self, event: events.Paste) -> None:
        """A paste with newlines runs each line, as in a terminal (Input keeps only the
        first line); one without is typed in where the cursor is."""
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")
        if "\n" not in text:
            return  # Input's own paste
        event.stop()
        event.prevent_default()
        pieces = (self.value[:self.cursor_position] + text).split("\n")
        lines = [line for line in pieces[:-1] if line.strip()]
        rest = pieces[-1] + self.value[self.cursor_position:]
        self.post_message(self.Pasted(self, lines, rest))

    def action_complete(self) -> None:
        if not self._completions:
            self._completions = self.help_index().complete(self.value)
            self._completion_at = -1
        if not self._completions:
            if not self.value.strip():  # Tab leaves an empty line only, never a command mid-way
                self.screen.focus_next()
            return
        self._completion_at = (self._completion_at + 1) % len(self._completions)
        self._set(self._completions[self._completion_at] + " ")

    def remember(self, line: str, argv: list[bytes] | None) -> None:
        """A line was submitted: keep it (unless it carries a password); a history file
        that cannot be written is said once, and the history goes on in memory."""
        self.history.add(line, argv)
        if self.history.failure:
            self.app.notify(self.history.failure + tr(" (history kept for this run only)"), severity="warning",
                            timeout=10)
            self.history.failure = None
        self._pos = None
        self._search = None
