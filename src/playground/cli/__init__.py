"""The `redis-playground` command line: argument parsing, `repl`, and the headless
scenario commands."""
