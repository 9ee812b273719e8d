"""The engine (no Textual here): the playground and its client sessions, the one
executor every front end uses, the unit model, and the side connections that observe
the server (client flags, keys)."""
