"""`kiosk pin`: set the floor PIN that authorises card corrections on the dealer display.

Only a PBKDF2 hash is stored, as `web.floor_pin_hash` in the config file; the rest of
the file (comments included) is left as it was.
"""

from __future__ import annotations

import getpass
import os
import re
import sys
import tempfile
from pathlib import Path

import yaml

from kiosk.commands import command_parser
from kiosk.errors import KioskError
from kiosk.web.security import check_pin_text, hash_pin


def register(subparsers) -> None:
    parser = command_parser(
        subparsers, "pin", "set the floor PIN for card corrections (stored hashed in the config)", __doc__)
    parser.add_argument("--config", metavar="FILE",
                        help="config file to write (default: $KIOSK_CONFIG, else ./kiosk.yaml; created if missing)")
    parser.add_argument("--stdin", action="store_true",
                        help="read the PIN from standard input (one line) instead of asking twice")
    parser.set_defaults(func=run)


def run(args) -> int:
    from kiosk.commands.run import config_path

    path = config_path(args.config) or Path("kiosk.yaml")
    pin = _read_pin(args.stdin)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    new_text = set_web_key(text, "floor_pin_hash", hash_pin(pin))
    _write_checked(path, new_text)
    print(f"kiosk pin: floor PIN set in {path} (web.floor_pin_hash, hashed); "
          "restart the kiosk for it to take effect")
    return 0


def _read_pin(from_stdin: bool) -> str:
    if from_stdin or not sys.stdin.isatty():
        line = sys.stdin.readline()
        if not line:
            raise KioskError("no PIN on standard input")
        return check_pin_text(line)
    first = check_pin_text(getpass.getpass("New floor PIN (6-12 digits): "))
    if getpass.getpass("Same PIN again: ").strip() != first:
        raise KioskError("the two PINs differ: nothing was changed")
    return first


_SECTION = re.compile(r"^web:\s*(#.*)?$")


def set_web_key(text: str, key: str, value: str) -> str:
    """`text` with `web.<key>` set to `value`, every other line untouched.

    >>> print(set_web_key("table:\\n  name: t1\\nweb:\\n  port: 5001\\n", "floor_pin_hash", "h"), end="")
    table:
      name: t1
    web:
      floor_pin_hash: "h"
      port: 5001
    >>> print(set_web_key("web:\\n    floor_pin_hash: old  # set by kiosk pin\\n", "floor_pin_hash", "new"), end="")
    web:
        floor_pin_hash: "new"
    >>> print(set_web_key("", "floor_pin_hash", "h"), end="")
    web:
      floor_pin_hash: "h"
    """
    lines = text.splitlines(keepends=True)
    quoted = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    start = next((i for i, line in enumerate(lines) if _SECTION.match(line.rstrip("\n"))), None)
    if start is None:
        if any(line.startswith("web:") for line in lines):
            return _rewrite_with_yaml(text, key, value)  # e.g. `web: {port: 5001}` on one line
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        return "".join(lines) + f"web:\n  {key}: {quoted}\n"
    end = start + 1
    indent = None
    while end < len(lines):
        line = lines[end]
        stripped = line.strip()
        if stripped and not line[0].isspace() and not stripped.startswith("#"):
            break
        if stripped and not stripped.startswith("#") and indent is None:
            indent = line[: len(line) - len(line.lstrip())]
        end += 1
    indent = indent or "  "
    pattern = re.compile(rf"^(\s+){re.escape(key)}\s*:")
    for i in range(start + 1, end):
        match = pattern.match(lines[i])
        if match:
            lines[i] = f"{match.group(1)}{key}: {quoted}\n"
            return "".join(lines)
    lines.insert(start + 1, f"{indent}{key}: {quoted}\n")
    return "".join(lines)


def _rewrite_with_yaml(text: str, key: str, value: str) -> str:
    data = yaml.safe_load(text) or {}
    web = data.get("web") or {}
    if not isinstance(web, dict):
        raise KioskError("the config's web section is not a mapping: fix it, then run `kiosk pin` again")
    web[key] = value
    data["web"] = web
    return yaml.safe_dump(data, sort_keys=False)


def _write_checked(path: Path, text: str) -> None:
    """Write atomically, and only a config that still loads (nothing changes otherwise)."""
    from kiosk.table.config import load_config

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".kiosk-pin-", suffix=".yaml", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        # 0640 at most: the PIN's hash is for the kiosk's user and group only
        os.chmod(tmp, (path.stat().st_mode & 0o640) if path.exists() else 0o600)
        try:
            load_config(tmp)
        except KioskError as err:
            raise KioskError(f"{path} would not load after setting the PIN, nothing was changed: "
                             f"{str(err).replace(tmp, str(path))}") from None
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
