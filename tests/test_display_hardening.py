"""The display under attack (issue 67): the PIN limit against parallel requests on the real
server, wrong PINs in the chained records, private file modes.

The parallel test sends real HTTP requests at the real werkzeug server `kiosk run` uses, with
the production PBKDF2 cost, so the requests overlap the slow hash as an attacker's would.
"""

from __future__ import annotations

import io
import socket
import sqlite3
import stat
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests

from kiosk.cli import main as kiosk_main
from kiosk.records.store import HandStore
from kiosk.table.config import KioskConfig
from kiosk.table.hub import Hub
from kiosk.web.app import create_app
from kiosk.web.security import DEFAULT_ITERATIONS, hash_pin
from kiosk.web.service import start_server

from test_web_routes import CORRECTION, Table, csrf_of  # the real pipeline on rendered frames

PIN = "246813"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def rendered():
    from kiosk.synth.table import render_table
    from table_support import DEAL, EMPTY

    return {"deal": render_table(DEAL, "kennard-2c", seed=5), "empty": render_table(EMPTY, "kennard-2c", seed=5)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def served(rendered, tmp_path):
    """The real pipeline, a record database and the real threaded server on a free port."""
    cfg = KioskConfig.model_validate({
        "game": {"dead": [4], "button": 3, "stake": 5},
        "web": {"floor_pin_hash": hash_pin(PIN, iterations=DEFAULT_ITERATIONS), "pin_attempts_per_minute": 5},
    })
    hub = Hub()
    table = Table(cfg, hub)
    table.show(rendered["empty"], 3)
    table.show(rendered["deal"], 12)
    store = HandStore(tmp_path / "var" / "kiosk.sqlite")
    app = create_app(hub, table.runner, cfg, store)
    port = free_port()
    server, _ = start_server(app, "127.0.0.1", port)
    session = requests.Session()
    base = f"http://127.0.0.1:{port}"
    token = csrf_of(_Client(session, base))
    yield session, base, token, store
    server.shutdown()
    app.config["KIOSK_LIVE"].close()
    store.close()


class _Client:  # csrf_of() wants .get(path).get_data(as_text=True)
    def __init__(self, session, base):
        self.session, self.base = session, base

    def get(self, path):
        resp = self.session.get(self.base + path, timeout=30)
        return type("R", (), {"get_data": lambda self, as_text=True: resp.text})()


def post_correction(session, base, token, pin):
    return session.post(base + "/correct", json={**CORRECTION, "pin": pin},
                        headers={"X-CSRF-Token": token}, timeout=60)


@pytest.mark.slow
def test_parallel_wrong_pins_get_no_more_checks_than_the_limit_and_the_floor_gets_back_in(served):
    session, base, token, store = served
    guesses = [f"{n:06d}" for n in range(40)]
    with ThreadPoolExecutor(max_workers=40) as pool:
        codes = list(pool.map(lambda pin: post_correction(session, base, token, pin).status_code, guesses))
    assert codes.count(403) == 5, codes  # checked: exactly the free attempts, never more
    assert codes.count(429) == 35, codes
    refused = post_correction(session, base, token, PIN)
    assert refused.status_code == 429  # even the right PIN waits out the delay...
    wait = int(refused.headers["Retry-After"])
    assert 1 <= wait <= 2
    time.sleep(wait + 0.2)
    assert post_correction(session, base, token, PIN).status_code in (200, 202)  # ...and then gets in
    rows = sqlite3.connect(store.path).execute(
        "SELECT kind, ok, message, extra_json FROM actions WHERE kind = 'wrong_pin'").fetchall()
    assert len(rows) == 5 and all(ok == 0 and "wrong floor PIN from 127.0.0.1" in m for _, ok, m, _ in rows)
    assert '"after":"Jd"' in rows[0][3]
    assert store.verify().ok  # the wrong PINs are links of the hash chain


def test_record_database_media_folders_and_wal_are_private(tmp_path):
    store = HandStore(tmp_path / "var" / "kiosk.sqlite")
    from kiosk.records.media import write_atomic

    write_atomic(store.media_dir / "2026-01-01" / "H1" / "key.jpg", b"jpeg")
    store.count()  # a read opens the WAL
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "var").rglob("*")}
    assert modes["kiosk.sqlite"] & 0o027 == 0, oct(modes["kiosk.sqlite"])
    assert modes["kiosk.sqlite-wal"] & 0o027 == 0 and modes["kiosk.sqlite-shm"] & 0o027 == 0
    for folder in ("var", "media", "2026-01-01", "H1"):
        path = next(p for p in [tmp_path / "var", *(tmp_path / "var").rglob(folder)] if p.name == folder)
        assert stat.S_IMODE(path.stat().st_mode) == 0o750, (folder, oct(stat.S_IMODE(path.stat().st_mode)))
    store.close()


def test_an_old_world_readable_database_is_tightened(tmp_path):
    path = tmp_path / "kiosk.sqlite"
    HandStore(path).close()
    path.chmod(0o644)
    HandStore(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_kiosk_pin_needs_six_digits_and_writes_the_config_private(tmp_path, monkeypatch, capsys):
    path = tmp_path / "kiosk.yaml"
    path.write_text("table:\n  name: t7\n")
    path.chmod(0o644)
    monkeypatch.setattr("sys.stdin", io.StringIO("24681\n"))
    assert kiosk_main(["pin", "--config", str(path), "--stdin"]) == 2
    assert "6 to 12 digits" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO("246813\n"))
    assert kiosk_main(["pin", "--config", str(path), "--stdin"]) == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    fresh = tmp_path / "new.yaml"
    monkeypatch.setattr("sys.stdin", io.StringIO("246813\n"))
    assert kiosk_main(["pin", "--config", str(fresh), "--stdin"]) == 0
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600


def test_the_service_unit_sets_a_private_umask():
    assert "\nUMask=0027\n" in (ROOT / "systemd" / "kiosk.service").read_text()
