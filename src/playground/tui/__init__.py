"""The Textual UI: a thin layer over the engine (`playground.engine`)."""
