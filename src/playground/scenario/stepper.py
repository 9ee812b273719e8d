"""Teaching mode without the UI: step through a scenario, rewind, keep a timeline, and
let a learner schedule a challenge. The TUI drives these; tests drive them directly.

Rewinding replays steps 1..k-1 on a fresh server (silently): the server has no undo.
Where a scenario depends on time (TTLs, `sleep`), a replayed state is approximate.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from playground.cells import pad, wrap
from playground.engine.catalogue import depends_on_time
from playground.engine.executor import Executor
from playground.engine.playground import Playground
from playground.engine.units import Unit
from playground.i18n import N_, tr
from playground.resp.cli_lines import format_argv
from playground.resp.cli_secrets import redact_line, redact_reply
from playground.scenario.runner import Runner, StepResult
from playground.scenario.model import Part, Scenario, Step


@dataclass
class TimelineEntry:
    """One unit the server executed: a command, a whole MULTI/EXEC, or one script."""

    client: str
    lines: list[str]
    atomic: bool = False
    note: str = ""
    seq: int | None = None
    reply: str = ""          # what the unit answered, as redis-cli prints it


_OUTCOME_NOTES = {"aborted": N_("aborted: nothing ran (a WATCHed key changed)"),
                  "execabort": N_("EXECABORT: nothing ran (a command was rejected when queued)"),
                  "discarded": N_("nothing ran")}


_REFUSALS = ("CROSSSLOT", "NOSCRIPT", "BUSY", "MOVED", "ASK", "CLUSTERDOWN", "TRYAGAIN", "LOADING", "MASTERDOWN", "ERR")
"""Error codes of a script the server refused before running it (ERR: a compile error, a
bad key count: Unit.started). Not WRONGTYPE and the like: a script raises those midway."""


def _refused(unit: Unit) -> bool:
    return not unit.started and getattr(unit.reply, "code", None) in _REFUSALS


def entry_for(unit: Unit, shown: str | None = None) -> TimelineEntry:
    """A unit as the timeline shows it; `shown` is how the step spelled a single command
    (a named script stays `$name`). Secrets are left out (`redact_line`)."""
    if unit.kind == "transaction":
        end = "DISCARD" if unit.outcome == "discarded" else "EXEC"
        lines = ["MULTI", *(redact_line(format_argv(list(c)), list(c)) for c in unit.commands), end]
        return TimelineEntry(unit.client, lines,
                             atomic=unit.outcome == "committed", note=_OUTCOME_NOTES.get(unit.outcome, ""),
                             seq=unit.seq)
    line = redact_line(shown or format_argv(list(unit.commands[0])), list(unit.commands[0]))
    if unit.kind == "script" and _refused(unit):  # CROSSSLOT, NOSCRIPT, BUSY ...: it never ran
        return TimelineEntry(unit.client, [line], note=N_("refused: the script did not run"), seq=unit.seq)
    if unit.kind == "script":
        return TimelineEntry(unit.client, [line], atomic=True, note=N_("one script: nothing interleaves"),
                             seq=unit.seq)
    return TimelineEntry(unit.client, [line], seq=unit.seq)


@dataclass
class Timeline:
    """The units in the order the server executed them, per client lane (built from the
    engine's units, never from rendered text)."""

    entries: list[TimelineEntry] = field(default_factory=list)

    def add_result(self, result: StepResult) -> None:
        for unit in result.units:
            single = unit.kind != "transaction"
            shown = (result.command or result.step.display) if single and not result.step.wait else None
            self.entries.append(entry_for(unit, shown))
        if result.units and result.reply:
            argv = list(result.units[-1].commands[0]) if result.units[-1].kind != "transaction" else []
            self.entries[-1].reply = redact_reply(argv, result.reply.rstrip("\n"))

    def render_text(self, clients: tuple[str, ...], width: int = 36) -> str:
        """Lanes side by side; an atomic unit is drawn as one box."""
        lines = [" │ ".join(pad(c, width) for c in clients).rstrip(),
                 "─┼─".join("─" * width for _ in clients)]
        for entry in self.entries:
            if not entry.client:  # a part begins
                lines.append(entry.lines[0])
                continue
            lane = clients.index(entry.client) if entry.client in clients else 0
            boxed = entry.atomic or len(entry.lines) > 1
            inner = width - 4 if boxed else width
            # Wrapped, never cut (an EVAL's keys are the point); the reply follows.
            body = [piece for x in entry.lines for piece in (wrap(x, inner) or [""])]
            replies = entry.reply.split("\n") if entry.reply else []
            if len(replies) > 6:
                replies = replies[:5] + [f"… ({len(replies) - 5} more lines)"]
            body += [piece for x in replies for piece in (wrap("→ " + x, inner) or [""])]
            if boxed:
                body = ["┌" + "─" * (width - 2) + "┐"] + [f"│ {pad(x, inner)} │" for x in body] + \
                       ["└" + "─" * (width - 2) + "┘"]
            if entry.note:
                body = body + ["  " + part for part in wrap(f"({tr(entry.note)})", width - 2)]
            for text in body:
                cols = [" " * width] * len(clients)
                cols[lane] = pad(text, width)
                lines.append(" │ ".join(cols).rstrip())
        return "\n".join(lines) + "\n"

    def render_markdown(self, clients: tuple[str, ...]) -> str:
        out = ["| # | " + " | ".join(clients) + " |", "|---|" + "---|" * len(clients)]
        for i, entry in enumerate(self.entries, 1):
            if not entry.client:
                out.append(f"| | **{entry.lines[0].strip('─ ')}** |" + " |" * (len(clients) - 1))
                continue
            cells = [""] * len(clients)
            lane = clients.index(entry.client) if entry.client in clients else 0
            text = "<br>".join(f"`{x}`" for x in entry.lines)
            if entry.atomic:
                text = tr("**atomic:** ") + text
            if entry.note:
                text += f"<br>_{tr(entry.note)}_"
            cells[lane] = text.replace("|", "\\|")
            out.append(f"| {i} | " + " | ".join(cells) + " |")
        return "\n".join(out) + "\n"


def _depends_on_time(scenario: Scenario) -> bool:
    for step in scenario.steps:
        if step.sleep or depends_on_time(step.argv or ()):  # (a wait step: no argv)
            return True
        if any(c.ttl is not None and c.ttl[0] >= 0 for c in step.state):
            return True
    return False


class Stepper:
    """Runs a scenario one step at a time, and can go back."""

    def __init__(self, pg: Playground, scenario: Scenario, executor: Executor | None = None,
                 sink=None) -> None:
        self.pg = pg
        self.scenario = scenario
        self.runner = Runner(pg, executor=executor, sink=sink, lesson_time=True)
        self.planned: dict[int, tuple[Step, ...]] | None = None  # a part with no steps: its programs' moves
        self.flat: list[tuple[int, Step]] = self.flatten()
        self.results: list[StepResult] = []
        self.timeline = Timeline()
        self.time_dependent = _depends_on_time(scenario)
        self.error: str | None = None
        self._part_started: int | None = None

    def flatten(self, scenario: Scenario | None = None) -> list[tuple[int, Step]]:
        """(part index, step) of every step, a part with no steps: its programs' moves."""
        return [(i, s) for i, p in enumerate((scenario or self.scenario).parts)
                for s in p.steps or (self.planned or {}).get(i, ())]

    def say_in(self, scenario: Scenario) -> None:
        """The same scenario in another language (F12): its texts from now on, and the steps
        that already ran keep their results, each with its step in the new words.

        Args:
            scenario: the open scenario loaded again in the new language (same parts and steps).
        """
        self.scenario = scenario
        self.flat = self.flatten()
        self.results = [replace(r, step=self.flat[i][1]) for i, r in enumerate(self.results)]

    async def _plan(self) -> None:
        """Once: each part with no steps (every client a program) gets the moves its
        programs make in `run`'s order (scenario/programs/lesson_steps.py: planned_moves)."""
        if self.planned is not None or not self.scenario.programs:
            return
        from playground.scenario.programs.lesson_steps import planned_moves
        self.planned = {i: await planned_moves(self.runner, self.scenario, p)
                        for i, p in enumerate(self.scenario.parts) if not p.steps}
        self.flat = self.flatten()

    @property
    def cursor(self) -> int:
        """How many steps have run (the next step's index)."""
        return len(self.results)

    @property
    def finished(self) -> bool:
        """Every step ran, or a setup or step did not answer in time (`error` says which)."""
        return self.cursor >= len(self.flat) or self.runner.stopped is not None

    def next_step(self) -> tuple[Part, Step] | None:
        if self.finished:
            return None
        part_index, step = self.flat[self.cursor]
        return self.scenario.parts[part_index], step

    async def start(self) -> None:
        """From the top: a fresh server with the first part's setup, so what is on the
        server before step 1 is there to see (and a rewind to step 0 is truly fresh)."""
        self.results = []
        self.timeline = Timeline()
        self.error = self.runner.stopped = None
        self._part_started = None
        await self._plan()
        self.pg.restart_numbering()  # a rewind numbers its replies (and why-notes) from #1 again
        if self.flat:
            await self._begin_part(self.flat[0][0])

    async def _begin_part(self, part_index: int) -> None:
        part = self.scenario.parts[part_index]
        self.error = await self.runner.begin_part(self.scenario, part)
        self._part_started = part_index
        if part.name:
            self.timeline.entries.append(TimelineEntry("", [f"── {part.name} ──"]))

    async def step(self) -> StepResult | None:
        """Run the next step; None when the scenario is over (or setup failed)."""
        if self.finished:
            return None
        part_index, step = self.flat[self.cursor]
        part = self.scenario.parts[part_index]
        if self._part_started != part_index:
            await self._begin_part(part_index)
        if self.error:
            return None
        # the panes show the server's flags after every step
        result = await self.runner.run_step(self.scenario, part.name, step, refresh=True)
        self.error = self.runner.stopped
        self.results.append(result)
        self.timeline.add_result(result)
        if self.finished:  # after the last step the lesson's time runs again: its TTLs count down
            await self.runner.close_clock()
        return result

    def bound_next(self) -> bool:
        """The next step is bound to the one that just ran (`bound = true`): it runs with
        it, with no pause, typing or prediction between them."""
        return not self.finished and self.cursor > 0 and self.flat[self.cursor][1].bound

    def group_end(self, index: int) -> int:
        """The cursor once step `index` has run with the steps bound to it (`bound = true`)."""
        index += 1
        while index < len(self.flat) and self.flat[index][1].bound:
            index += 1
        return index

    def group_start(self, index: int) -> int:
        """The first step of the bound group holding step `index` (a rewind never
        stops between bound steps)."""
        while 0 < index < len(self.flat) and self.flat[index][1].bound:
            index -= 1
        return index

    async def goto(self, index: int) -> None:
        """Rewind or jump: fresh server, then steps 1..index replayed silently."""
        index = self.group_start(max(0, min(index, len(self.flat))))
        await self.start()
        while self.cursor < index:
            if await self.step() is None:
                break

    async def previous(self) -> None:
        await self.goto(self.cursor - 1)

    async def run_to_end(self) -> list[StepResult]:
        done = []
        while not self.finished:
            result = await self.step()
            if result is None:
                break
            done.append(result)
        return done

    def scenario_keys(self) -> set[bytes]:
        """Keys the scenario's commands and checks name (for 'free typing changed X')."""
        keys: set[bytes] = set()
        for _, step in self.flat:
            keys.update(c.key for c in step.state)
            if step.argv:
                keys.update(step.argv[1:])
        return keys
