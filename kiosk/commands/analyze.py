"""`kiosk analyze` (not built yet)."""

from kiosk.errors import KioskError


def register(subparsers) -> None:
    parser = subparsers.add_parser("analyze", help="(not built yet)")
    parser.set_defaults(func=run)


def run(args) -> int:
    raise KioskError("'kiosk analyze' is not built yet", exit_code=2)
