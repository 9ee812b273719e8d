"""A challenge in the TUI: the engine's Challenge; the learner is the scheduler (a or b
moves a client one step, u undoes the last move) and wins by producing the goal state."""

from __future__ import annotations

from rich.text import Text

from playground.engine.key_reader import KeyInfo
from playground.i18n import tr, trn
from playground.scenario.challenge import Challenge
from playground.tui.scenario_runs.scenario_run import ScenarioRun


class ChallengeRun(ScenarioRun):
    """A scenario the learner schedules."""

    challenge: Challenge  # (made with the run: never None here)

    def __init__(self, screen, scenario) -> None:
        super().__init__(screen, scenario)
        app = self.app
        self.challenge = Challenge(app.playground, scenario, app.executor, self.on_event)
        self.final: list[tuple[bytes, KeyInfo | None]] = []
        """The goal's keys once every client is done: (key, its inspector row or None when
        absent), read from the server (Challenge.final_keys); shown in the language of the moment."""

    async def reset(self) -> None:
        await self.challenge.reset()

    def start_message(self) -> Text:
        return Text(tr("Choose who moves: a for A, b for B. u undoes a move.") + "\n", style="italic")

    def explore_part(self) -> int:
        spec = self.scenario.challenge
        return spec.part + 1 if spec is not None else 1

    async def move(self, client: str) -> None:
        if self.challenge is None:
            return
        challenge = self.challenge
        if self.won or client not in challenge.programs or challenge.next_for(client) is None:
            self.message = self.verdict()
            if self.won:
                why = tr("The challenge is over: {client} has nothing left to do. "
                         "r retries from the start; u undoes the last move.", client=client)
            elif client in challenge.ended:  # one line; no move is spent on it
                why = tr("{client}'s program has ended: it sends nothing more.", client=client)
            else:
                why = tr("{client} has nothing left to do.", client=client)
            self.message.append(why + "\n", style="yellow")
            self.render()
            return
        if challenge.bound_to(client):
            self.message = Text(tr("{client}'s next step is bound to {other}'s: it moves with it.", client=client,
                                   other=challenge.bound_to(client)), style="yellow")
            self.render()
            return
        if await challenge.blocked(client):
            self.message = Text(tr("{client}'s command is blocked at the server: another client's move may "
                                   "unblock it.", client=client), style="yellow")
            self.render()
            return
        step = challenge.next_for(client)
        if step is None:  # (said above: nothing left to do)
            return
        pane = self.pane(client)
        await pane.type_out(challenge.runner.preview(step), self.speed)
        self.stepping = client
        try:
            result = await challenge.move(client)
        finally:
            self.stepping = None
        pane.clear_input()
        if result is None:  # (nothing moved: what the checks above say, found meanwhile)
            return
        for shown in (result, *challenge.bound_results):  # bound steps move with it
            self.show_result(shown)
        await self.after_step(result)
        self.won = await challenge.won()  # as soon as every client is done: every program ended
        self.final = await challenge.final_keys() if self.won is not None else []
        self.message = self.verdict()
        self.render()

    def verdict(self) -> Text:
        """The challenge's outcome once every client is done (empty before): won or not,
        and the goal's keys as the server left them."""
        if self.won is None:
            return Text()
        if self.won:
            return self.won_text()
        text = Text(tr("Every client is done, but the server did not end in the goal's state. "
                       "u undoes moves; try another order.") + "\n", style="bold yellow")
        if self.final:
            text.append(final_values_line(self.final) + "\n", style="yellow")
        return text

    def won_text(self) -> Text:
        text = Text(tr("✓ Won: the real server ended in the goal's state (the goal below).") + "\n",
                    style="bold green")
        if self.final:
            text.append(final_values_line(self.final) + "\n", style="bold green")
        text.append(tr("u undoes moves, r starts again.") + "\n", style="green")
        return text

    async def undo(self) -> None:
        if self.challenge is None or not self.challenge.moves:
            return
        await self.challenge.undo()
        self.clear_panes()
        for result in self.challenge.results:
            self.show_result(result)
        self.won = None
        self.message = Text(tr("Move undone (the other moves were replayed on a fresh server)."), style="italic")
        await self.after_step(None)
        self.render()


def final_values_line(final: list[tuple[bytes, KeyInfo | None]]) -> str:
    """"Final value: orders = ["A", "B"] (list)": each goal key as the key inspector shows
    it (a string's value quoted; another type's first items, then its type), or absent.

    Args:
        final: (key, its inspector row, or None when the key is absent), in the goal's order.
    """
    shown = []
    for key, row in final:
        name = key.decode("utf-8", "replace")
        if row is None:
            shown.append(tr("{key} is absent", key=name))
        elif row.type == "string":
            shown.append(f"{name} = {row.preview}")
        else:
            shown.append(tr("{key} = {value} ({type})", key=name, value=row.preview, type=row.type))
    return trn("Final value: {values}", "Final values: {values}", len(shown), values=", ".join(shown))
