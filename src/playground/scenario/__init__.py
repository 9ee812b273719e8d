"""Scenarios: the model and its loader, the runner, the stepper and challenge, the
recorder, and transcripts."""

MAX_CLIENTS = 16
"""The most clients (panes) a session or a scenario has: `--clients` and a file's `clients`
(here, not in .model: the command line checks it without importing the model)."""
