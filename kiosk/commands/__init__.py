"""The kiosk's subcommands: each module has `register(subparsers)` and `run(args)` (see kiosk/cli.py)."""

from __future__ import annotations

import argparse


def command_parser(subparsers, name: str, help: str, doc: str):
    """A subcommand's parser: `help` in the command list, the module's first paragraph atop its --help."""
    return subparsers.add_parser(name, help=help, description=doc.split("\n\n")[0])


class LazyParser(argparse.ArgumentParser):
    """A sub-parser whose arguments are added (by `setup(parser)`) only when it is used.

    For a command with targets (`kiosk bench TARGET`): each target's module is imported when that
    target is parsed or its help is shown, not when the command line is built.
    """

    def __init__(self, *args, setup=None, **kwargs):
        super().__init__(*args, **kwargs)
        self._setup = setup

    def _ready(self) -> None:
        setup, self._setup = self._setup, None
        if setup is not None:
            setup(self)

    def parse_known_args(self, args=None, namespace=None):
        self._ready()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        self._ready()
        return super().format_help()
