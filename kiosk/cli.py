"""`kiosk` command line: each subcommand lives in `kiosk/commands/<name>.py` (the lab's in `kiosk_lab/commands/`).

A command module defines `register(subparsers)`, which adds its parser and sets
`func=run` where `run(args) -> int` returns the exit code.

Imports are lazy so a command starts at once: `kiosk NAME ...` imports only the module of
NAME (and that module imports what its `run` needs inside `run`); only the overview
(`kiosk`, `kiosk --help`, a mistyped name) imports every command module, so module level and
`register` of every command stay light (no numpy, OpenCV, torch, Flask, pydantic: a test checks).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from kiosk import __version__
from kiosk.errors import KioskError

# Each command -> the module that defines it. The lab's commands (training, evaluation, benches) live in
# kiosk_lab; this table is the one place in kiosk/ that names them, and only as strings: a lab module is
# imported when its command runs (or the overview is shown), never by the runtime.
COMMANDS: dict[str, str] = {
    "score": "kiosk.commands.score",
    "bench": "kiosk_lab.commands.bench",
    "detect": "kiosk.commands.detect",
    "eval": "kiosk_lab.commands.eval",
    "train": "kiosk_lab.commands.train",
    "analyze": "kiosk.commands.analyze",
    "run": "kiosk.commands.run",
    "calibrate": "kiosk.commands.calibrate",
    "replay": "kiosk.commands.replay",
    "audit": "kiosk.commands.audit",
    "pin": "kiosk.commands.pin",
    "quantize": "kiosk_lab.commands.quantize",
    "floor": "kiosk.commands.floor",
    "doctor": "kiosk.commands.doctor",
}


def chosen_command(argv: list[str]) -> str | None:
    """The command named first on the command line, if it is one (`kiosk -h score` is the overview)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser with the command named in `argv` only, or with every command (the overview)."""
    parser = argparse.ArgumentParser(
        prog="kiosk", description="Dealer-assist kiosk for Chinese Poker tables."
    )
    parser.add_argument("--version", action="version", version=f"kiosk {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = chosen_command(sys.argv[1:] if argv is None else argv)
    for name in (chosen,) if chosen else COMMANDS:
        module = importlib.import_module(COMMANDS[name])
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(argv)
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
