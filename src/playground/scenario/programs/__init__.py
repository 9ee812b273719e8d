"""A lesson's programs in a scenario: the `[programs]` table of its file (lesson_format.py),
the programs started for each part on the gate and stopped after it (lesson.py), and the
steps that release a program's next command and check its reply (lesson_steps.py). The
gate itself (playground.gate) knows nothing of scenarios."""
