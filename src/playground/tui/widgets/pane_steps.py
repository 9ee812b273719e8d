"""How a pane shows a lesson's or a challenge's steps: typed out at the lesson's speed,
then the step whole (its reply, redirects, whys and checks), and the parts' separators.
(A mixin of tui.client_pane.ClientPane.)"""

from __future__ import annotations

import asyncio

from rich.text import Text

from playground.i18n import tr, tr_check
from playground.resp.cli_secrets import redact_line, redact_reply
from playground.tui.widgets.command_input import CommandInput
from playground.tui.widgets.pane_state import reply_style


class StepDrawing:
    """ClientPane's teaching mode."""

    async def type_out(self, line: str, speed: int) -> None:
        """Teaching mode: type `line` into the input at `speed` characters a second."""
        field = self.query_one(CommandInput)
        if not speed:
            field.value = line
            return
        field.value = ""
        for i in range(1, len(line) + 1):
            field.value = line[:i]
            field.cursor_position = i
            await asyncio.sleep(1 / speed)

    def clear_input(self) -> None:
        self.query_one(CommandInput).value = ""

    def show_result(self, result) -> None:
        """Teaching mode: one scenario step as this pane shows it, with its checks."""
        step = result.step
        shown = result.command or step.display
        if step.wait:  # what it answers, then the reply (as redis-cli prints a reply under its command)
            self.add(lambda: Text(tr("(the pending reply arrives)"), style="italic dim"))
            if result.note and not result.skipped:
                self.note(result.note)
        elif step.kind == "server":  # "# [server] kill primary", as free play's palette says it: nobody typed it
            self.note(shown)
        else:
            self.write(f"{self.client}> {shown}", style="bold",
                       secretless=f"{self.client}> {redact_line(shown, list(result.argv) if result.argv else None)}")
        if result.skipped:
            self.add(lambda: Text(tr("– skipped: {reason}", reason=result.skipped), style="yellow"))
            return
        self.note_outcome(result.argv, result.value)
        for redirect in result.redirects:  # a cluster's `-> Redirected to slot ...`, as in free play
            self.add(Text(redirect.line))
        if result.reply:
            self.write(result.reply.encode(), style=reply_style(result.value), seq=result.seq,
                       secretless=redact_reply(list(result.argv or ()), result.reply))
        for why in result.whys:
            self.why(why)
        if result.note and not step.wait:
            self.note(result.note)
        from playground.tui.teaching.teaching_text import checks_line

        # one line per step: the commands stay in view; made anew when the log is redrawn
        # (Ctrl+T, Ctrl+Y, a new width, F12: the check names in the language shown)
        if checks_line(result.checks) is not None:
            self.add(lambda: checks_line(result.checks, self.log_widget.scrollable_content_region.width))
        for check in result.checks:
            if not check.ok:
                self.add(lambda check=check: Text(f"  ✗ {tr_check(check.what)}: {check.detail}",
                                                  style="bold white on red"))

    def separator(self, name: str) -> None:
        """Teaching mode: a part of the scenario starts here."""
        self.add(Text(f"━━ {name} ━━", style="bold magenta reverse"))
