"""Focus that moves before the next key.

`Widget.focus()` defers the change (Textual sends it to the end of the app's queue), so keys
already queued behind the key that asked for it (typed right after F2, under load) still go
to the widget focused before: into client B's pane while the learner meant A. `focus_now`
asks the screen to move the focus at once (`Screen.set_focus`), so the next key goes where
the last one said."""

from __future__ import annotations

from textual.dom import NoScreen
from textual.widget import Widget


def focus_now(widget: Widget) -> None:
    """Give `widget` the focus now: the keys after this one go to it.

    Args:
        widget: a widget on the screen that takes the keys.
    """
    try:
        screen = widget.screen
    except NoScreen:  # (not on a screen: nothing to focus)
        return
    screen.set_focus(widget)
