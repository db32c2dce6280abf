"""`kiosk` command line: each subcommand lives in `kiosk/commands/<name>.py`.

A command module defines `register(subparsers)`, which adds its parser and sets
`func=run` where `run(args) -> int` returns the exit code.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from kiosk import __version__
from kiosk.errors import KioskError

COMMANDS = (
    "score",
    "bench",
    "detect",
    "eval",
    "train",
    "analyze",
    "run",
    "calibrate",
    "replay",
    "audit",
    "pin",
    "quantize",
    "floor",
    "doctor",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kiosk", description="Dealer-assist kiosk for Chinese Poker tables."
    )
    parser.add_argument("--version", action="version", version=f"kiosk {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"kiosk.commands.{name}")
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # what is still buffered fails here, where the pipe's end is caught, not at exit
        return code
    except KioskError as err:
        print(f"kiosk {args.command}: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of our output left (`kiosk detect --json | head`): no traceback, and none at exit either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
