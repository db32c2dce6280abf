"""`kiosk audit` (not built yet)."""

from kiosk.errors import KioskError


def register(subparsers) -> None:
    parser = subparsers.add_parser("audit", help="(not built yet)")
    parser.set_defaults(func=run)


def run(args) -> int:
    raise KioskError("'kiosk audit' is not built yet", exit_code=2)
