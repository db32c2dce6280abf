"""`kiosk doctor`: is this table PC ready to deal? Camera, card reader, disk, clock, records, floor link.

Each check prints one line, `ok`, `WARN` or `FAIL`, what it found and, when it is not ok, what to do.
Exit 0 when nothing failed (warnings allowed), 1 otherwise. Nothing is changed.
"""

from __future__ import annotations

import os
import shutil
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from kiosk.commands import command_parser

MIN_FREE_MB = 500


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    status: str  # ok | WARN | FAIL
    found: str
    fix: str = ""

    def line(self) -> str:
        text = f"{self.status:4s}  {self.name}: {self.found}"
        return text + (f"\n      fix: {self.fix}" if self.fix and self.status != "ok" else "")


def register(subparsers) -> None:
    parser = command_parser(subparsers, "doctor", "check camera, card reader, disk, clock, records and floor link", __doc__)
    parser.add_argument("--config", metavar="FILE", help="table config (default: as kiosk run finds it)")
    parser.add_argument("--models", metavar="DIR", help="card reader weights (default: as kiosk run finds them)")
    parser.add_argument("--db", metavar="PATH", help="record database (default: the config's records.db)")
    parser.set_defaults(func=run)


def run(args) -> int:
    from kiosk.commands.run import config_path
    from kiosk.table.config import load_config
    from kiosk.vision.models_dir import default_models_dir

    path = config_path(args.config)
    cfg = load_config(path)
    print(f"kiosk doctor: table {cfg.table.name} (config: {path or 'built-in defaults'})")
    db = Path(args.db or cfg.records.db)
    checks = [
        check_camera(cfg.source),
        check_models(Path(args.models) if args.models else default_models_dir()),
        check_disk(db.parent, cfg.records.disk_budget_mb),
        check_clock(db),
        check_records(db, cfg.records.enabled),
        check_central(cfg, db),
    ]
    for c in checks:
        print(c.line())
    failed = [c.name for c in checks if c.status == "FAIL"]
    print("ready" if not failed else f"not ready: {', '.join(failed)}")
    return 1 if failed else 0


def check_camera(source) -> Check:
    from kiosk.table.config import DEMO_RECORDING

    if isinstance(source, str) and source.strip().isdigit():
        source = int(source)
    if isinstance(source, int):
        return _usb_camera(source)
    if "://" in str(source):
        return _stream(str(source))
    if Path(source).resolve() == DEMO_RECORDING.resolve():
        return Check("camera", "WARN", "no camera configured: the kiosk plays its demo recording",
                     "set `source:` in the config to the camera (0 for the first USB camera, or its rtsp:// URL)")
    if Path(source).exists():
        return Check("camera", "ok", f"reads the file or folder {source}")
    return Check("camera", "FAIL", f"{source} does not exist", "fix `source:` in the config")


def _usb_camera(index: int) -> Check:
    device = Path(f"/dev/video{index}")
    if not device.exists():
        return Check("camera", "FAIL", f"camera {index}: no {device}",
                     "plug the camera in (`ls /dev/video*` lists those found) or fix `source:` in the config")
    if not os.access(device, os.R_OK | os.W_OK):
        return Check("camera", "FAIL", f"camera {index}: {device} is not readable by this user",
                     "add the user to the video group: sudo usermod -aG video $USER (the unit does this)")
    import cv2

    cap = cv2.VideoCapture(index)
    try:
        ok, frame = cap.read()
    finally:
        cap.release()
    if not ok or frame is None:
        return Check("camera", "FAIL", f"camera {index}: {device} opens but gives no frame",
                     "is another program using it (the kiosk service)? `sudo systemctl stop kiosk`, then retry")
    return Check("camera", "ok", f"camera {index} gives {frame.shape[1]}x{frame.shape[0]} frames")


def _stream(url: str) -> Check:
    parsed = urlparse(url)
    port = parsed.port or {"rtsp": 554, "http": 80, "https": 443}.get(parsed.scheme, 554)
    try:
        with socket.create_connection((parsed.hostname, port), timeout=3):
            pass
    except OSError as err:
        return Check("camera", "FAIL", f"{parsed.hostname}:{port} does not answer ({err.strerror or err})",
                     "is the camera powered and on this network? check its address in `source:`")
    return Check("camera", "ok", f"the camera at {parsed.hostname}:{port} answers")


def check_models(folder: Path) -> Check:
    from kiosk.errors import KioskError
    from kiosk.vision.model_folder import available_backends
    from kiosk.vision.settings import read_settings

    try:
        have = available_backends(folder, read_settings(folder))
    except (KioskError, OSError, ValueError) as err:
        have, problem = [], str(err)
    else:
        problem = "no weights"
    if not have:
        return Check("model folder", "FAIL", f"{folder}: {problem}",
                     "restore the committed models/ (git checkout models) or give --models the reader's folder")
    return Check("model folder", "ok", f"{folder} (card reader exports: {', '.join(have)})")


def check_disk(folder: Path, budget_mb: int) -> Check:
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free_mb = shutil.disk_usage(probe).free / 1e6
    found = f"{free_mb:,.0f} MB free where the records go ({folder}); retention budget {budget_mb} MB"
    if free_mb < MIN_FREE_MB:
        return Check("disk space", "FAIL", found, "free disk space, or lower records.disk_budget_mb and run "
                     "`kiosk audit prune`")
    if free_mb < budget_mb:
        return Check("disk space", "WARN", found, "the records may fill the disk before retention prunes: "
                     "lower records.disk_budget_mb below the free space")
    return Check("disk space", "ok", found)


def check_clock(db: Path) -> Check:
    now = time.time()
    newest = None
    if db.exists():
        import sqlite3

        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                newest = conn.execute("SELECT MAX(created_at) FROM records").fetchone()[0]
        except sqlite3.Error:
            newest = None
    when = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(now))
    if newest and newest > now + 60:
        return Check("clock", "FAIL", f"{when} is before the newest record ({time.ctime(newest)})",
                     "set the clock (NTP: sudo timedatectl set-ntp true); hands would be recorded out of order")
    synced = _ntp_synchronized()
    if synced is False:
        return Check("clock", "WARN", f"{when}, not synchronised",
                     "enable NTP (sudo timedatectl set-ntp true) so the floor can match hands across tables")
    return Check("clock", "ok", f"{when}" + (", synchronised" if synced else " (synchronisation unknown)"))


def _ntp_synchronized() -> bool | None:
    """The kernel's view (adjtimex): None where it cannot be asked."""
    import ctypes

    class Timex(ctypes.Structure):
        _fields_ = [("modes", ctypes.c_uint), ("_rest", ctypes.c_long * 40)]

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        state = libc.adjtimex(ctypes.byref(Timex()))
    except (OSError, AttributeError):
        return None
    if state < 0:
        return None
    return state != 5  # TIME_ERROR: the clock is not synchronised


def check_records(db: Path, enabled: bool) -> Check:
    from kiosk.errors import KioskError
    from kiosk.records.store import HandStore

    if not enabled:
        return Check("records database", "WARN", "recording is off (records.enabled: false)",
                     "set records.enabled: true, or the floor cannot review this table's hands")
    if not db.exists():
        folder = db.parent if db.parent.exists() else db.parent.parent
        if os.access(folder, os.W_OK):
            return Check("records database", "ok", f"{db} will be made at the first hand")
        return Check("records database", "FAIL", f"cannot create {db}", f"make {db.parent} writable by this user")
    try:
        store = HandStore(db, create=False)
        result = store.verify(check_media=False)
        store.close()
    except KioskError as err:
        return Check("records database", "FAIL", str(err), "restore the file from a backup; keep the damaged one")
    if not result.ok:
        return Check("records database", "FAIL", f"{db}: {result.problem.message}",
                     "call the floor supervisor: the records were altered (kiosk audit verify names how)")
    return Check("records database", "ok", f"{db}: {result.count} records intact (head {result.head[:16]})")


def check_central(cfg, db: Path) -> Check:
    central = cfg.records.central
    if central is None:
        return Check("central link", "ok", "not configured: this table keeps its records to itself")
    from kiosk.records.shipper import Shipper
    from kiosk.records.store import HandStore

    if not db.exists():
        return Check("central link", "WARN", "no records yet to compare with the floor's")
    store = HandStore(db, create=False)
    try:
        state = Shipper.from_config(store, cfg).check()
    finally:
        store.close()
    if state.error:
        fixes = {"diverged": "another kiosk uses this table's name, or this records database was replaced: "
                             "give records.central.table a unique name and call the floor supervisor",
                 "offline": "check the network and the server (pg_isready -h HOST); the table keeps "
                            "recording and ships when the link is back"}
        return Check("central link", "FAIL", state.error, fixes.get(state.state, "see docs/records.md"))
    if not os.access(central.media_dir, os.W_OK):
        return Check("central link", "FAIL", f"the floor's media folder {central.media_dir} is not writable",
                     "mount the floor's media share there (read-write for this user)")
    return Check("central link", "ok", f"table {state.table}: the floor holds up to record {state.shipped_seq} "
                 f"of {state.local_seq}")
