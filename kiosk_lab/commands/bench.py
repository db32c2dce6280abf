"""`kiosk bench TARGET`: benchmarks that print figures (see docs/benchmarks.md).

Each target is a module with `add_arguments(parser)` and `run(args) -> int`.
"""

from __future__ import annotations

import importlib

from kiosk.commands import LazyParser, command_parser

TARGETS = {
    "rules": ("kiosk_lab.bench.rules", "showdowns scored per second, worst-case natural check"),
    "detector": ("kiosk_lab.bench.detector", "frame read time per export format"),
    "pipeline": ("kiosk_lab.bench.pipeline", "frame-to-verdict latency, time to verdict, memory soak"),
    "fuzz": ("kiosk_lab.bench.fuzz", "generated hostile showdown input: no traceback (--count 1000000)"),
    "cli": ("kiosk_lab.bench.cli", "how long kiosk --help, score, detect and analyze take, wall clock"),
    "floor": ("kiosk_lab.bench.floor", "tables shipping into one PostgreSQL: hands/s, lag, review search"),
}


def _arguments_of(module_name: str):
    def setup(parser) -> None:
        try:
            importlib.import_module(module_name).add_arguments(parser)
        except ModuleNotFoundError:
            pass  # that benchmark is not built yet; `run` says so
    return setup


def register(subparsers) -> None:
    parser = command_parser(subparsers, "bench", "run a benchmark and print its figures (docs/benchmarks.md)", __doc__)
    # a target's module (numpy, the reader, ...) is imported only when that target is run or its --help shown
    targets = parser.add_subparsers(dest="target", metavar="TARGET", required=True, parser_class=LazyParser)
    for name, (module_name, help_text) in TARGETS.items():
        sub = targets.add_parser(name, help=help_text, description=help_text, setup=_arguments_of(module_name))
        sub.set_defaults(func=run, bench_module=module_name)


def run(args) -> int:
    from kiosk.errors import KioskError

    try:
        module = importlib.import_module(args.bench_module)
    except ModuleNotFoundError as err:
        raise KioskError(f"benchmark '{args.target}' is not built yet ({err.name})") from err
    return module.run(args)
