"""File modes of what the kiosk keeps: records and the config are not for every local user.

The record database (and SQLite's -wal/-shm, which SQLite creates with the database's mode) is
0640, media folders 0750, the config `kiosk pin` writes 0640 at most. Under systemd the unit's
`UMask=0027` gives every other file the same.
"""

from __future__ import annotations

import os
from pathlib import Path

DB_MODE = 0o640
DIR_MODE = 0o750


def private_dir(path: Path) -> Path:
    """Make `path` (and any missing parent) as a 0750 folder; an existing one is tightened to 0750 at most."""
    path = Path(path)
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            pass
        os.chmod(folder, DIR_MODE)
    if not missing:
        _tighten(path, DIR_MODE)
    return path


def private_db(path: Path) -> None:
    """Create the database file 0640 before SQLite opens it, and tighten an existing one with its -wal/-shm."""
    path = Path(path)
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, DB_MODE))
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        if name.exists():
            _tighten(name, DB_MODE)


def _tighten(path: Path, mode: int) -> None:
    current = path.stat().st_mode & 0o777
    if current & ~mode:
        try:
            os.chmod(path, current & mode)
        except OSError:  # not ours to change (a shared folder): leave it
            pass
