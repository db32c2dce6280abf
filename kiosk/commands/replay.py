"""`kiosk replay` (not built yet)."""

from kiosk.errors import KioskError


def register(subparsers) -> None:
    parser = subparsers.add_parser("replay", help="(not built yet)")
    parser.set_defaults(func=run)


def run(args) -> int:
    raise KioskError("'kiosk replay' is not built yet", exit_code=2)
