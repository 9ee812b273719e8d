from playground.cli.main import entry

entry()
