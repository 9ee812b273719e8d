"""Talking to a server as redis-cli does: the RESP connection and its typed replies,
redis-cli's line splitting (`cli_lines`) and its output format (`cli_format`)."""
