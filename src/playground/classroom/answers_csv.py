"""The class's answers as CSV, for the teacher (the overview's `e`): one row per answer a
learner gave to a prediction, in every run of every lesson the class has had this period
(what the class's Redis holds: its keys expire 12 hours after their last write). All of it
in one language, the teacher's tab's when `e` is pressed: the header, yes/no, and each
question (a run's record keeps it in every language, `questions`)."""

from __future__ import annotations

import csv
import io

from playground.i18n import LANGUAGES, again, current_language, tr_in


def _cell(text: str) -> str:
    """A text cell a spreadsheet never takes for a formula (a learner's name is anyone's)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _question(text, lang: str) -> str:
    """A run's record's question in `lang`: as kept in every language (else in English), or
    as a record of an older serve kept it (one language)."""
    if isinstance(text, dict):
        said = text.get(lang) or text.get("en") or next(iter(text.values()), "")
        return said if isinstance(said, str) else ""
    return text if isinstance(text, str) else ""


def answers_csv(runs: dict[int, dict], answers: dict[tuple[int, int], dict[str, int]], names: dict[str, str],
                lang: str | None = None) -> str:
    """From ClassLink.records(): lesson, run, step, question, learner, answer, right answer,
    right (yes/no); by run, step and learner. Answers of a run with no record are left out.
    In `lang` (default: the interface's, the teacher's tab's), the header and the questions alike."""
    lang = lang or current_language()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([tr_in(lang, "lesson"), tr_in(lang, "run"), tr_in(lang, "step"), tr_in(lang, "question"),
                     tr_in(lang, "learner"), tr_in(lang, "answer"), tr_in(lang, "right answer"), tr_in(lang, "right")])
    for (epoch, step), given in sorted(answers.items()):
        run = runs.get(epoch)
        if not isinstance(run, dict) or not run.get("lesson"):
            continue
        question = (run.get("questions") or {}).get(str(step))
        text, right = (question[0], question[1]) if isinstance(question, list) and len(question) == 2 else ("", None)
        for who, choice in sorted(given.items(), key=lambda item: (names.get(item[0], ""), item[0])):
            if choice <= 0:
                continue
            verdict = "" if not isinstance(right, int) else tr_in(lang, "yes") if choice == right else tr_in(lang, "no")
            writer.writerow([_cell(str(run["lesson"])), epoch, step + 1, _cell(_question(text, lang)),
                             _cell(names.get(who, who)), choice, right if isinstance(right, int) else "", verdict])
    return out.getvalue()


def questions(scenario) -> dict[int, tuple[dict[str, str], int]]:
    """A lesson's predictions by step index (as the class's answers are kept): the question
    in every language (the CSV is in the teacher's, which F12 may switch after the lesson
    opened) and its right choice, for the run's record."""
    steps = [step for part in scenario.parts for step in part.steps]
    return {index: ({lang: str(again(step.predict.question, lang)) for lang in LANGUAGES}, step.predict.answer)
            for index, step in enumerate(steps) if step.predict}
