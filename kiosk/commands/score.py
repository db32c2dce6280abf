"""`kiosk score FILE|-`: score showdowns (one JSON object or an array) by the house rules.

Prints one result object, or an array in the same order; `--text` prints the report a
floor supervisor reads. Exit 0 when every showdown was scored, 1 when some showdown
could not be (its slot holds `{"error": ...}`; the others are still scored), 2 for
malformed JSON, an unreadable file or a bad profile file.
"""

from __future__ import annotations

import io
import json
import sys
from functools import partial
from typing import Mapping, TextIO

import orjson

from kiosk.commands import command_parser
from kiosk.errors import KioskError
from kiosk.jsonstream import JsonInputError, JsonText, read_items
from kiosk.parallel import default_jobs, ordered_map
from kiosk.rules.api import score_json
from kiosk.rules.profiles import ProfileError, ScoringProfile, profiles_from_json
from kiosk.rules.report import showdown_report


def register(subparsers) -> None:
    parser = command_parser(
        subparsers, "score", "score Chinese Poker showdowns or Pai Gow tables and settle them (JSON in, JSON or text out)", __doc__)
    parser.add_argument("file", metavar="FILE", help="showdown JSON file, or - for stdin")
    parser.add_argument(
        "--text", action="store_true", help="print a readable report instead of JSON"
    )
    parser.add_argument(
        "--pretty", action="store_true", help="indent the JSON (default: compact, one result a line)"
    )
    parser.add_argument(
        "--jobs", type=int, metavar="N",
        help="processes scoring a long array (default: one per CPU; 1: this process only)",
    )
    parser.add_argument(
        "--profiles",
        metavar="FILE",
        help="JSON file with the card room's own scoring profiles (one object or a list)",
    )
    parser.set_defaults(func=run)


def open_input(path: str, what: str = "showdown") -> TextIO:
    """The file, or stdin for '-', as UTF-8 text (a BOM is skipped); KioskError (exit 2) when unreadable."""
    if path == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig")
    try:
        return open(path, encoding="utf-8-sig")
    except OSError as err:
        raise KioskError(f"cannot read {what} file {path}: {err.strerror or err}") from None


def read_json(path: str, what: str = "showdown") -> object:
    """Load one JSON value from a file or stdin ('-'); one-line KioskError (exit 2) when it cannot."""
    name = "stdin" if path == "-" else path
    with open_input(path, what) as handle:
        many, items = read_items(handle, name, what)
        return list(items) if many else next(items)


def score_one(obj: object, profiles: Mapping[str, ScoringProfile] | None = None) -> dict:
    """Score ONE input object: a table naming its `game` (Pai Gow Poker) or a Chinese Poker showdown; one that
    cannot be scored gets `{"error": ...}` in its slot."""
    if isinstance(obj, dict) and "game" in obj:
        from kiosk.paigow.api import score_game_json

        return score_game_json(obj)
    return score_json(obj, profiles)


def run(args) -> int:
    profiles = None
    if args.profiles:
        try:
            profiles = profiles_from_json(read_json(args.profiles, "profile"))
        except ProfileError as err:
            raise KioskError(f"{args.profiles}: {err}") from None
    name = "stdin" if args.file == "-" else args.file
    out = ResultWriter(sys.stdout, args.text, args.pretty)
    with open_input(args.file) as handle:
        jobs = 1 if args.text else (args.jobs or default_jobs())
        out.many, showdowns = read_items(handle, name, texts=jobs > 1)  # workers decode their own
        try:
            scored = partial(_scored, profiles=profiles, pretty=None if args.text else args.pretty)
            for result in ordered_map(scored, showdowns, jobs):
                out.write(*result)
        except JsonInputError as err:
            out.write(None, str(err), quiet=True)  # what was scored stays printed, as JSON
            out.close()
            raise
        out.close()
    return 1 if out.failed else 0


def _scored(obj: object, profiles, pretty: bool | None) -> tuple[dict | str, str | None]:
    """One showdown scored, and serialized here (in a worker, when there are several); the dict
    itself when `pretty` is None (the text report)."""
    if isinstance(obj, JsonText):
        obj = obj.decode()
    result = score_one(obj, profiles)
    error = result.get("error")
    return (result if pretty is None else dumps_result(result, pretty)), error


class ResultWriter:
    """Writes results as they come: one object, or an array element by element (or the text report)."""

    def __init__(self, stream: TextIO, text: bool, pretty: bool, many: bool = False):
        self.stream, self.text, self.pretty, self.many = stream, text, pretty, many
        self.count, self.failed = 0, 0

    def write(self, result: dict | str | None, error: str | None, quiet: bool = False) -> None:
        """`result`: the result dict or its JSON text (None: only the error, in its slot)."""
        self.count += 1
        if self.text:
            shown = result if isinstance(result, dict) else {"error": error}
            self.stream.write(("\n" if self.count > 1 else "") + _report(shown, self.count) + "\n")
        else:
            if result is None or isinstance(result, dict):
                result = dumps_result(result if result is not None else {"error": error}, self.pretty)
            if self.many:
                self.stream.write("[" if self.count == 1 else ",\n")
                result = "\n  " + result.replace("\n", "\n  ") if self.pretty else result
            self.stream.write(result)
        if error is not None and not quiet:
            self.failed += 1
            where = f"showdown {self.count}: " if self.many else ""
            print(f"kiosk score: {where}{error}", file=sys.stderr)

    def close(self) -> None:
        if self.many and not self.text:
            self.stream.write(("\n]" if self.pretty else "]") if self.count else "[]")
        if not self.text:
            self.stream.write("\n")


def _report(result: dict, n: int) -> str:
    from kiosk.paigow.report import is_paigow, table_report

    return table_report(result, f"Table {n}") if is_paigow(result) else showdown_report(result, f"Showdown {n}")


def dumps_result(result: dict, pretty: bool) -> str:
    """JSON text of a result: orjson where it can (fast), else the json module (e.g. an id of 30 digits,
    or text holding a lone surrogate, which is then escaped)."""
    try:
        return orjson.dumps(result, option=orjson.OPT_INDENT_2 if pretty else 0).decode()
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(result, indent=2 if pretty else None, separators=None if pretty else (",", ":"))
