from playground.cli.launch import entry

entry()
