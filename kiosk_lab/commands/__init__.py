"""The lab's subcommands of `kiosk` (named by module path in kiosk/cli.py's command table)."""
