"""Every bundled lesson has a number of its own in the course (F7 and `list` show it):
two lessons numbered 42 left the teacher asking which comes first."""

from collections import Counter

from playground.scenario.library import bundled_dir, scenarios_in
from playground.scenario.loader import load_scenario


def test_every_bundled_lesson_has_its_own_number():
    lessons = [load_scenario(path) for path in scenarios_in(bundled_dir())]
    numbers = Counter(s.order for s in lessons if s.order is not None)
    assert not [n for n, count in numbers.items() if count > 1], \
        {n: sorted(s.id for s in lessons if s.order == n) for n, count in numbers.items() if count > 1}
    assert all(s.order is not None for s in lessons), [s.id for s in lessons if s.order is None]
