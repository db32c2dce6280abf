"""The kiosk's subcommands: each module has `register(subparsers)` and `run(args)` (see kiosk/cli.py)."""


def command_parser(subparsers, name: str, help: str, doc: str):
    """A subcommand's parser: `help` in the command list, the module's first paragraph atop its --help."""
    return subparsers.add_parser(name, help=help, description=doc.split("\n\n")[0])
