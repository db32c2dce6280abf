"""`kiosk score FILE|-`: score showdowns (one JSON object or an array) by the house rules.

Prints one result object, or an array in the same order; `--text` prints the report a
floor supervisor reads. Exit 0 when every showdown was scored, 1 when some showdown
could not be (its slot holds `{"error": ...}`; the others are still scored), 2 for
malformed JSON, an unreadable file or a bad profile file.
"""

from __future__ import annotations

import json
import sys

from kiosk.commands import command_parser
from kiosk.errors import KioskError


def register(subparsers) -> None:
    parser = command_parser(
        subparsers, "score", "score Chinese Poker showdowns or Pai Gow tables and settle them (JSON in, JSON or text out)", __doc__)
    parser.add_argument("file", metavar="FILE", help="showdown JSON file, or - for stdin")
    parser.add_argument(
        "--text", action="store_true", help="print a readable report instead of JSON"
    )
    parser.add_argument(
        "--profiles",
        metavar="FILE",
        help="JSON file with the card room's own scoring profiles (one object or a list)",
    )
    parser.set_defaults(func=run)


def read_json(path: str, what: str = "showdown") -> object:
    """Load JSON from a file or stdin ('-'); one-line KioskError (exit 2) when it cannot."""
    name = "stdin" if path == "-" else path
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as err:
        raise KioskError(f"cannot read {what} file {name}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise KioskError(f"{name} is not UTF-8 text (byte {err.start})") from None
    if not text.strip():
        raise KioskError(f"{name} is empty: expected a {what} JSON object or an array of them")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise KioskError(
            f"{name}: malformed JSON at line {err.lineno}, column {err.colno}: {err.msg}"
        ) from None


def score_one(obj, profiles=None) -> dict:
    """One input: an object naming its `game` (Pai Gow Poker) or a Chinese Poker showdown."""
    from kiosk.rules.api import score_json

    if isinstance(obj, dict) and "game" in obj:
        from kiosk.paigow.api import score_game_json

        return score_game_json(obj)
    return score_json(obj, profiles)


def run(args) -> int:
    from kiosk.rules.profiles import ProfileError, profiles_from_json

    profiles = None
    if args.profiles:
        try:
            profiles = profiles_from_json(read_json(args.profiles, "profile"))
        except ProfileError as err:
            raise KioskError(f"{args.profiles}: {err}") from None
    data = read_json(args.file)
    many = isinstance(data, list)
    showdowns = data if many else [data]
    results = [score_one(obj, profiles) for obj in showdowns]
    if args.text:
        from kiosk.paigow.report import text_report_any

        sys.stdout.write(text_report_any(results))
    else:
        json.dump(results if many else results[0], sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    failed = [i for i, r in enumerate(results) if "error" in r]
    for i in failed:
        where = f"showdown {i + 1}: " if many else ""
        print(f"kiosk score: {where}{results[i]['error']}", file=sys.stderr)
    return 1 if failed else 0
