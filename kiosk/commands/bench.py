"""`kiosk bench TARGET`: benchmarks that print figures (see docs/benchmarks.md).

Each target is a module with `add_arguments(parser)` and `run(args) -> int`.
"""

from __future__ import annotations

import importlib

TARGETS = {
    "rules": ("kiosk.rules.bench", "showdowns scored per second, worst-case natural check"),
    "detector": ("kiosk.vision.bench", "frame read time per export format"),
    "pipeline": ("kiosk.table.bench", "frame-to-verdict latency, time to verdict, memory soak"),
    "floor": ("kiosk.records.floor_bench", "tables shipping into one PostgreSQL: hands/s, lag, review search"),
}


def register(subparsers) -> None:
    parser = subparsers.add_parser("bench", help="run a benchmark and print its figures")
    targets = parser.add_subparsers(dest="target", metavar="TARGET", required=True)
    for name, (module_name, help_text) in TARGETS.items():
        sub = targets.add_parser(name, help=help_text)
        sub.set_defaults(func=run, bench_module=module_name)
        try:
            importlib.import_module(module_name).add_arguments(sub)
        except ModuleNotFoundError:
            pass  # that benchmark is not built yet; `run` says so


def run(args) -> int:
    from kiosk.errors import KioskError

    try:
        module = importlib.import_module(args.bench_module)
    except ModuleNotFoundError as err:
        raise KioskError(f"benchmark '{args.target}' is not built yet ({err.name})") from err
    return module.run(args)
