"""The `roost` command's subcommands that have grown beyond a few lines, one module each; `cli.py`
registers them (`main.add_command`)."""
