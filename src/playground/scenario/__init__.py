"""Scenarios: the model and its loader, the runner, the stepper and challenge, the
recorder, and transcripts."""
