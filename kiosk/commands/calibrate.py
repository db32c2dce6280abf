"""`kiosk calibrate` (not built yet)."""

from kiosk.errors import KioskError


def register(subparsers) -> None:
    parser = subparsers.add_parser("calibrate", help="(not built yet)")
    parser.set_defaults(func=run)


def run(args) -> int:
    raise KioskError("'kiosk calibrate' is not built yet", exit_code=2)
