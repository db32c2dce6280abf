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

from kiosk.table.runner import TableRunner
from kiosk.table.sources import Frame
from test_web_routes import (  # noqa: F401  (fixtures: the real pipeline on rendered frames)
    CORRECTION, Table, actions, app, cfg, client, csrf_of, hub, rendered, table,
)

PIN = "246813"
ROOT = Path(__file__).resolve().parents[1]


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


# ---------------------------------------------------------------- dealer actions

@pytest.mark.parametrize("body, words", [
    ({"kind": ["new_hand"]}, "unknown action ['new_hand']"),
    ({"kind": {"a": 1}}, "unknown action"),
    ({"kind": "move_button", "seat": 1.9}, "seat must be a number from 1 to 4, got 1.9"),
    ({"kind": "move_button", "seat": True}, "seat must be a number"),
    ({"kind": "declare_natural", "seat": "1.9"}, "seat must be a number"),
    ({"kind": "set_stack", "seat": 1, "value": 1e30}, "from 0 to 1,000,000,000,000"),
    ({"kind": "set_stack", "seat": 1, "value": "1e400"}, "from 0 to 1,000,000,000,000"),
    ({"kind": "set_stack", "seat": 1, "value": "NaN"}, "must be a number"),
    ({"kind": "set_stake", "value": 1e-300}, "from 0.001 to 1,000,000,000,000"),
    ({"kind": "set_stake", "value": 5, "pair": [1, 2.5]}, "a pair stake's seat must be a number"),
    ({"kind": "set_stake", "value": 5, "pair": [1, 2, 3]}, "names two seats"),
    ({"kind": "set_dead", "seat": 2, "value": 1}, "true (dead) or false"),
])
def test_each_action_is_checked_whole_before_anything_changes(client, table, actions, body, words):
    before = table.runner.state
    resp = client.post("/action", json=body, headers={"X-CSRF-Token": csrf_of(client)})
    assert resp.status_code == 400, resp.get_data(as_text=True)
    assert words in resp.get_json()["error"]
    assert actions == [] and table.runner.state == before


def test_a_half_stake_then_a_huge_stack_leaves_the_table_scoring(client, table, rendered):
    token = csrf_of(client)
    assert client.post("/action", json={"kind": "set_stake", "value": 0.5},
                       headers={"X-CSRF-Token": token}).status_code == 200
    resp = client.post("/action", json={"kind": "set_stack", "seat": 1, "value": 1e30},
                       headers={"X-CSRF-Token": token})
    assert resp.status_code == 400 and table.runner.state.stacks == {}
    table.show(rendered["deal"], 3)  # frames still go through: a verdict, not an exception
    assert table.runner.state.phase == "verdict" and table.runner.problem is None
    assert table.runner.state.verdict.result["stake"] == 0.5
    assert client.get("/healthz").status_code == 200


def test_a_recorded_action_out_of_range_is_refused_by_the_pipeline_too(table, actions):
    from kiosk.table.actions import DealerAction

    before = table.runner.state
    table.runner.apply(DealerAction(kind="set_stack", seat=1, value=1e30))
    assert table.runner.state == before
    assert len(actions) == 1  # the pipeline answered it (not ok), it did not raise


def test_healthz_reports_a_failing_pipeline_with_the_reason(cfg):
    from kiosk_lab.groundtruth import SceneReader

    for frames, words in ((3, "frames are failing: frame 2"), (60, "the table pipeline stopped")):
        hub = Hub()
        broken = [Frame(image=None, index=i, timestamp=i * 0.25, source="broken") for i in range(frames)]
        runner = TableRunner(cfg, broken, SceneReader({}), hub)
        runner.start()
        runner.join(30)
        client = create_app(hub, runner, cfg).test_client()
        resp = client.get("/healthz")
        assert resp.status_code == 503 and resp.get_json()["ok"] is False
        assert words in resp.get_json()["reason"], resp.get_json()


# ---------------------------------------------------------------- web: headers, body size, exposure

@pytest.mark.slow
def test_real_server_sends_security_headers_and_no_version(served):
    session, base, token, store = served
    for path in ("/", "/state", "/review/"):
        resp = session.get(base + path, timeout=30)
        assert resp.status_code == 200, path
        csp = resp.headers["Content-Security-Policy"]
        script_src = next(p for p in csp.split(";") if p.strip().startswith("script-src"))
        assert script_src.split() == ["script-src", "'self'"] and "frame-ancestors 'none'" in csp
        assert resp.headers["X-Frame-Options"] == "DENY"
        assert resp.headers["X-Content-Type-Options"] == "nosniff"
        assert resp.headers["Server"] == "kiosk", resp.headers["Server"]
    big = session.post(base + "/action", data=b"x" * 300_000, timeout=30,
                       headers={"X-CSRF-Token": token, "Content-Type": "application/json"})
    assert big.status_code == 413 and "too large" in big.json()["error"]


def test_no_page_carries_an_inline_script(client, table):
    import re

    for path in ("/",):
        html = client.get(path).get_data(as_text=True)
        for attrs, body in re.findall(r"<script([^>]*)>(.*?)</script>", html, flags=re.S):
            assert "src=" in attrs or 'type="application/json"' in attrs, attrs
        assert not re.search(r"\son[a-z]+\s*=", html)  # no onclick= handlers either


def test_serving_beyond_this_pc_needs_the_pin_and_says_so(tmp_path, capsys):
    bare = tmp_path / "bare.yaml"
    bare.write_text("table:\n  name: t1\n")
    assert kiosk_main(["run", "--config", str(bare), "--host", "0.0.0.0", "--no-record"]) == 2
    assert "set the floor PIN first" in capsys.readouterr().err
    import cv2
    import numpy as np

    cv2.imwrite(str(tmp_path / "frame.jpg"), np.zeros((90, 160, 3), np.uint8))
    pinned = tmp_path / "pinned.yaml"
    pinned.write_text(f"web:\n  floor_pin_hash: \"{hash_pin(PIN, iterations=1000)}\"\n")
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = kiosk_main(["run", "--config", str(pinned), "--host", "0.0.0.0", "--port", str(port),
                           "--no-record", "--source", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1 and "WARNING: serving on 0.0.0.0" in err and "already in use" in err


@pytest.mark.slow
@pytest.mark.browser
def test_the_live_page_runs_in_chromium_under_its_content_security_policy(served, browser):
    session, base, token, store = served
    page = browser.new_page(viewport={"width": 1280, "height": 800})  # the policy enforced
    violations, errors = [], []
    page.on("console", lambda msg: "Content Security Policy" in msg.text and violations.append(msg.text))
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(base + "/")
    page.wait_for_selector("#conn[data-state=live]", timeout=30_000)  # live.js ran and SSE connected
    page.wait_for_selector("#seat-1 .card[data-card]", timeout=30_000)  # and drew the table
    assert violations == [] and errors == []
    page.close()
