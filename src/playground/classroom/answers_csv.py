"""The class's answers as CSV, for the teacher (the overview's `e`): one row per answer a
learner gave to a prediction, in every run of every lesson the class has had this period
(what the class's Redis holds: its keys expire 12 hours after their last write)."""

from __future__ import annotations

import csv
import io

from playground.i18n import tr


def _cell(text: str) -> str:
    """A text cell a spreadsheet never takes for a formula (a learner's name is anyone's)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def answers_csv(runs: dict[int, dict], answers: dict[tuple[int, int], dict[str, int]], names: dict[str, str]) -> str:
    """From ClassLink.records(): lesson, run, step, question, learner, answer, right answer,
    right (yes/no); by run, step and learner. Answers of a run with no record are left out."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([tr("lesson"), tr("run"), tr("step"), tr("question"), tr("learner"), tr("answer"),
                     tr("right answer"), tr("right")])
    for (epoch, step), given in sorted(answers.items()):
        run = runs.get(epoch)
        if not isinstance(run, dict) or not run.get("lesson"):
            continue
        question = (run.get("questions") or {}).get(str(step))
        text, right = (question[0], question[1]) if isinstance(question, list) and len(question) == 2 else ("", None)
        for who, choice in sorted(given.items(), key=lambda item: (names.get(item[0], ""), item[0])):
            if choice <= 0:
                continue
            verdict = "" if not isinstance(right, int) else (tr("yes") if choice == right else tr("no"))
            writer.writerow([_cell(str(run["lesson"])), epoch, step + 1, _cell(str(text)),
                             _cell(names.get(who, who)), choice, right if isinstance(right, int) else "", verdict])
    return out.getvalue()


def questions(scenario) -> dict[int, tuple[str, int]]:
    """A lesson's predictions by step index (as the class's answers are kept): the question
    and its right choice, for the run's record."""
    steps = [step for part in scenario.parts for step in part.steps]
    return {index: (step.predict.question, step.predict.answer) for index, step in enumerate(steps) if step.predict}
