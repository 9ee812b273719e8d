"""Errors the command line reports as one line; kept apart so `cli` imports little."""


class ScenarioError(ValueError):
    """A scenario file that cannot be used; str() is the one-line message."""
