"""The app's mode screens, each mounted once and kept: free play, a lesson, a challenge.

A mode's screen is ~70 widgets (the panes, the key table, the lanes, the footer): composing
them, styling and laying them out the first time costs a few hundred milliseconds of CPU.
Each is made when its mode is first shown and installed (Textual keeps an installed screen
when another replaces it); when the mode comes back, its screen is shown again and takes
over what the panes showed (ModeScreen.enter). A lesson opened while a lesson shows is the
same screen bound to the new lesson (ScenarioScreen.bind): no screen is made, switched or
laid out anew. In a class every lesson the teacher opens reaches thirty learners' apps at
once, and each then does what a step does, not what a new screen does.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Protocol, TypeVar

from textual.await_complete import AwaitComplete
from textual.screen import Screen

from playground.tui.screens.mode_screen import ModeScreen

S = TypeVar("S", bound=ModeScreen)


class ModeHost(Protocol):
    """What ModeScreens needs of its app: Textual's screen stack and the clients."""

    clients: list[str]

    @property
    def screen_stack(self) -> list[Screen]: ...

    def install_screen(self, screen: Screen, name: str) -> None: ...

    def switch_screen(self, screen: Screen | str) -> AwaitComplete: ...

    def push_screen(self, screen: Screen, *args, **kwargs): ...

    def pop_screen(self) -> AwaitComplete: ...


class ModeScreens:
    """The screens of the app's modes, one of each kind, made when first shown."""

    def __init__(self, app: ModeHost) -> None:
        """Args:
            app: the app whose modes these are (a PlaygroundApp).
        """
        self.app = app
        self._kept: dict[type, ModeScreen] = {}

    def get(self, kind: type[S]) -> S:
        """The app's screen of this kind, made (and installed) the first time."""
        screen = self._kept.get(kind)
        if screen is None:
            screen = self._kept[kind] = kind(self.app.clients)
            self.app.install_screen(screen, f"mode-{kind.__name__}")
        return screen  # type: ignore[return-value]

    @property
    def current(self) -> ModeScreen | None:
        """The mode's screen shown (also under a dialog), None before the first."""
        stack = self.app.screen_stack
        return stack[1] if len(stack) > 1 and isinstance(stack[1], ModeScreen) else None

    def kept(self) -> list[ModeScreen]:
        """Every mode's screen made so far (a language switch redraws them all)."""
        return list(self._kept.values())

    def first(self, screen: ModeScreen) -> None:
        """The app's first screen (its start): one of `get`'s."""
        screen.entering(None)
        self.app.push_screen(screen)

    def show(self, screen: ModeScreen) -> Awaitable[None]:
        """`screen` as the mode's screen, in place of the one shown (dialogs over it closed):
        awaitable until it is mounted and has entered. The screen it replaces is kept."""
        self.close_dialogs()
        previous = self.current
        if screen is previous:
            return AwaitComplete.nothing()
        if previous is not None:
            previous.leave()
        screen.entering(previous)
        switched = self.app.switch_screen(screen)
        if screen.is_mounted:  # kept from before: it enters now, in the stack already (not at mount)
            screen.enter()
        return switched

    def close_dialogs(self) -> None:
        """Every dialog over the mode's screen closed (a question of the lesson it leaves)."""
        while len(self.app.screen_stack) > 2:
            self.app.pop_screen()
