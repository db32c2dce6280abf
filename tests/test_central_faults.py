"""Faults between a table and the floor's PostgreSQL (issue 70): a cut link while hands are recorded,
PostgreSQL restarted mid-batch, the table PC killed with -9 mid-shipment. Afterwards every hand is in
PostgreSQL exactly once and every chain verifies. Real PostgreSQL, real processes, real sockets."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from central_support import LinkProxy, central_rows, exactly_once, local_rows, record_hands
from kiosk.records.central import verify_central
from kiosk.records.shipper import Shipper
from kiosk.records.store import HandStore

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
CUT_SECONDS = 60.0  # the fault: the link down for a minute while the table keeps dealing


def wait_until(condition, timeout: float, step: float = 0.1) -> bool:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def test_a_cut_link_while_hands_are_recorded_loses_and_repeats_nothing(central_dsn, pg_cluster, tmp_path):
    store = HandStore(tmp_path / "kiosk.sqlite")
    proxy = LinkProxy(pg_cluster.port)
    dsn = central_dsn.replace(f"port={pg_cluster.port}", f"port={proxy.port}")
    shipper = Shipper(store, dsn, tmp_path / "floor-media", "t1", batch=3, interval=0.05, retry=0.5).start()
    states = set()
    watching = threading.Event()

    def watch():
        while not watching.is_set():
            states.add(shipper.state().state)
            time.sleep(0.02)

    threading.Thread(target=watch, daemon=True).start()
    try:
        record_hands(store, tmp_path / "media", "t1", 1, 10)
        proxy.cut()  # mid-stream: batches in flight are rolled back by PostgreSQL
        t0 = time.time()
        n = 11
        while time.time() - t0 < CUT_SECONDS:  # the table keeps dealing, offline
            record_hands(store, tmp_path / "media", "t1", n, 2)
            n += 2
            time.sleep(0.5)  # a table deals a hand every few seconds at most
        assert shipper.state().state == "offline" and shipper.state().behind > 0
        proxy.restore()
        assert wait_until(lambda: central_rows(central_dsn, "t1") == local_rows(store), 60)
    finally:
        watching.set()
        shipper.close()
        proxy.close()
    assert {"shipping", "offline", "up to date"} <= states
    exactly_once(central_dsn, "t1", store)
    assert len(store.hand_ids()) >= 20
    [check] = verify_central(central_dsn, tmp_path / "floor-media")
    assert check.ok, check.problem
    assert store.verify().ok


def test_postgresql_restarted_mid_batch(central_dsn, pg_cluster, tmp_path):
    store = HandStore(tmp_path / "kiosk.sqlite")
    record_hands(store, tmp_path / "media", "t2", 1, 120)
    shipper = Shipper(store, central_dsn, tmp_path / "floor-media", "t2", batch=7, interval=0.05,
                      retry=0.3).start()
    try:
        assert wait_until(lambda: 0 < len(central_rows(central_dsn, "t2")), 30, 0.01)
        pg_cluster.restart("immediate")  # a crash: what was not committed is gone
        assert len(central_rows(central_dsn, "t2")) < store.count()  # it did stop mid-shipment
        assert wait_until(lambda: central_rows(central_dsn, "t2") == local_rows(store), 60)
    finally:
        shipper.close()
    exactly_once(central_dsn, "t2", store)
    [check] = verify_central(central_dsn, tmp_path / "floor-media")
    assert check.ok, check.problem


def _hands(db: Path) -> int:
    store = HandStore(db)
    try:
        return len(store.hand_ids())
    finally:
        store.close()


TABLE_PC = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {tests!r})
    from central_support import record_hands
    from kiosk.records.shipper import Shipper
    from kiosk.records.store import HandStore
    store = HandStore({db!r})
    shipper = Shipper(store, {dsn!r}, {media!r}, "t3", batch=5, interval=0.01, retry=0.2).start()
    n = len(store.hand_ids()) + 1
    while True:  # deal and record hands, ship them, until killed
        record_hands(store, {local_media!r}, "t3", n, 3)
        n += 3
""")


def test_the_table_pc_killed_with_sigkill_mid_shipment(central_dsn, tmp_path):
    db = tmp_path / "kiosk.sqlite"
    record_hands(HandStore(db), tmp_path / "media", "t3", 1, 60)  # a backlog: the floor was down
    script = TABLE_PC.format(tests=str(ROOT / "tests"), db=str(db), dsn=central_dsn,
                             media=str(tmp_path / "floor-media"), local_media=str(tmp_path / "media"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rng = random.Random(70)
    kills_mid_shipment = 0
    for _ in range(6):
        shipped_before, hands_before = len(central_rows(central_dsn, "t3")), _hands(db)
        proc = subprocess.Popen([sys.executable, "-c", script], env=env, cwd=ROOT)
        # Once it deals and ships (its start-up takes seconds on a busy machine), kill it at a random moment.
        assert wait_until(lambda: len(central_rows(central_dsn, "t3")) > shipped_before
                          and _hands(db) >= hands_before + 3, 300, 0.05)
        time.sleep(rng.uniform(0.0, 1.0))
        shipped = len(central_rows(central_dsn, "t3"))
        store = HandStore(db)
        kills_mid_shipment += shipped < store.max_seq()
        store.close()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert kills_mid_shipment >= 3
    config = tmp_path / "kiosk.yaml"
    config.write_text(f"table:\n  name: t3\nrecords:\n  db: {db}\n  central:\n    dsn: {central_dsn}\n"
                      f"    media_dir: {tmp_path / 'floor-media'}\n")
    done = subprocess.run([sys.executable, "-m", "kiosk", "floor", "ship", "--config", str(config)], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("table t3: sent ")
    store = HandStore(db)
    exactly_once(central_dsn, "t3", store)
    assert len(store.hand_ids()) > 60
    checks = {c.table: c for c in verify_central(central_dsn, tmp_path / "floor-media")}
    assert checks["t3"].ok, checks["t3"].problem
    assert store.verify().ok
