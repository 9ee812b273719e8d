"""Errors the command line reports as one line; kept apart so `cli` imports little."""


class ScenarioError(ValueError):
    """A scenario file that cannot be used; str() is the one-line message."""


class ServerError(Exception):
    """The server could not be chosen or started; the message is one line for the user."""


class ExploreError(Exception):
    """The explorer cannot run this (str() is one line)."""
