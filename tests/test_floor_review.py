"""The floor review over PostgreSQL: every table's hands, the same pages as at the table (issue 70)."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from central_support import record_hands
from kiosk.records.central import CentralStore
from kiosk.records.shipper import Shipper
from kiosk.records.store import HandStore
from kiosk.table.hub import Hub
from kiosk.web.app import create_app
from kiosk.web.floor import create_floor_app

AT = dt.datetime(2026, 11, 30, 21, 0).timestamp()  # hand n of each table decided at 21:00 + n minutes


@pytest.fixture
def floor(central_dsn, tmp_path):
    stores = {}
    for name, count in (("t1", 7), ("t2", 5)):
        store = HandStore(tmp_path / name / "kiosk.sqlite")
        record_hands(store, tmp_path / name / "media", name, 1, count, at=AT)
        stores[name] = store
    stores["t2"].flag("t2-00004", "floor-9", "seat 3 disputes the foul")
    for name, store in stores.items():
        Shipper(store, central_dsn, tmp_path / "floor-media", name).ship_once()
    central = CentralStore(central_dsn, tmp_path / "floor-media")
    app = create_floor_app(central)
    app.testing = True
    yield app.test_client(), stores
    central.close()
    for store in stores.values():
        store.close()


def ids(resp) -> list[str]:
    import re

    assert resp.status_code == 200, resp.get_data(as_text=True)[:500]
    return re.findall(r'<tr class="hand" data-hand="([^"]+)"', resp.get_data(as_text=True))


def local_client(store):
    app = create_app(Hub(), None, None, store)
    app.testing = True
    return app.test_client()


def test_the_floor_lists_every_table_newest_first_and_searches_by_table_time_seat_and_ruling(floor):
    client, stores = floor
    every = ids(client.get("/review/"))
    assert len(every) == 12 and every[:2] == ["t1-00007", "t1-00006"] and set(every[2:4]) == {"t2-00005", "t1-00005"}
    assert ids(client.get("/review/?table=t2")) == [f"t2-0000{n}" for n in (5, 4, 3, 2, 1)]
    # "table 1, around 21:04": between 21:03 and 21:05.
    assert ids(client.get("/review/?table=t1&since=2026-11-30 21:03&until=2026-11-30 21:05")) == \
        ["t1-00004", "t1-00003"]
    assert ids(client.get("/review/?since=2026-11-30T21:06")) == ["t1-00007", "t1-00006"]
    # Hands 3 and 6 of each table were corrected: seat 2 no longer fouls (and pays no scoop under D-8).
    fouled = ids(client.get("/review/?seat=2&foul=yes&table=t1"))
    assert set(fouled) == {"t1-00001", "t1-00002", "t1-00004", "t1-00005", "t1-00007"}
    assert set(ids(client.get("/review/?text=seat 2 fouled: pays seat 3"))) == \
        {f"t{t}-0000{n}" for t in (1, 2) for n in range(1, 8) if n % 3 and not (t == 2 and n > 5)}
    assert set(ids(client.get("/review/?disputed=yes"))) == {"t1-00003", "t1-00006", "t2-00003", "t2-00004"}
    assert ids(client.get("/review/?review=yes")) == ["t2-00004"]
    page = client.get("/review/?since=yesterday").get_data(as_text=True)
    assert "since: &#39;yesterday&#39; is not a date or time" in page


@pytest.mark.parametrize("query", ["", "seat=2&foul=yes", "text=scoop", "text=D-8", "text=seat 2 fouled",
                                   "disputed=yes", "disputed=no", "since=2026-11-30 21:02&until=2026-11-30 21:04",
                                   "seat=3&natural=no",
                                   "min_amount=8", "status=confident&table=t1"])
def test_the_floor_finds_the_same_hands_of_a_table_as_the_table_itself(floor, query):
    client, stores = floor
    local = ids(local_client(stores["t1"]).get(f"/review/?{query}"))
    assert local == [h for h in ids(client.get(f"/review/?{query}")) if h.startswith("t1-")]


def test_a_hand_page_report_and_record_are_the_tables_own_and_read_only(floor):
    client, stores = floor
    local = local_client(stores["t1"])
    floor_json = client.get("/review/hands/t1-00003/record.json").get_json()
    table_json = local.get("/review/hands/t1-00003/record.json").get_json()
    for doc in (floor_json, table_json):
        for r in doc["revisions"]:
            for m in r["media"]:
                m.pop("path")  # where the file lies differs; its sha256 does not
    assert floor_json == table_json and len(floor_json["revisions"]) == 2 and floor_json["actions"]
    page = client.get("/review/hands/t1-00003?rev=0").get_data(as_text=True)
    assert "The floor's copy is read-only" in page and 'id="flag-form"' not in page
    assert "D-8" in page and "seat 2 fouled" in page
    for path in ("/review/hands/t1-00003/report.png", "/review/hands/t1-00003/report.pdf"):
        assert client.get(path).get_data() == local.get(path).get_data()
    hand = stores["t1"].hand("t1-00003")
    key = hand.first.media[0]
    frame = client.get(f"/review/hands/t1-00003/media/{hand.first.seq}/key_frame")
    assert frame.status_code == 200 and frame.get_data() == stores["t1"].media_abspath(key.path).read_bytes()
    assert client.post("/review/hands/t1-00003/review", data={"by": "x"}).status_code == 405
    assert client.get("/review/hands/t9-00001").status_code == 404
    assert client.get("/healthz").get_json() == {"ok": True, "tables": ["t1", "t2"]}


def _get_json(url: str, timeout: float = 60):
    import json
    import urllib.error
    import urllib.request

    deadline = time.time() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.3)


@pytest.mark.slow
def test_kiosk_run_ships_in_the_background_and_kiosk_floor_serve_serves_it(central_dsn, tmp_path):
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from kiosk.records.pg_cluster import free_port

    root = Path(__file__).resolve().parents[1]
    store = HandStore(tmp_path / "kiosk.sqlite")
    record_hands(store, tmp_path / "media", "t5", 1, 2, at=AT)  # recorded before the floor had a database
    store.close()
    config = tmp_path / "kiosk.yaml"
    config.write_text(f"table:\n  name: t5\nrecords:\n  db: {tmp_path / 'kiosk.sqlite'}\n  media_dir: "
                      f"{tmp_path / 'media'}\n  central:\n    dsn: {central_dsn}\n"
                      f"    media_dir: {tmp_path / 'floor'}\n")
    env = {**os.environ, "PYTHONPATH": str(root)}
    kiosk_port, floor_port = free_port(), free_port()
    kiosk = subprocess.Popen([sys.executable, "-m", "kiosk", "run", "--config", str(config), "--port",
                              str(kiosk_port)], env=env, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    floor = subprocess.Popen([sys.executable, "-m", "kiosk", "floor", "serve", "--config", str(config), "--port",
                              str(floor_port)], env=env, cwd=root, stdout=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        central = None
        while time.time() < deadline:
            central = _get_json(f"http://127.0.0.1:{kiosk_port}/healthz")[1].get("central")
            if central and central["state"] == "up to date":
                break
            time.sleep(0.5)
        assert central and central["state"] == "up to date" and central["shipped_seq"] == 2, central
        status, health = _get_json(f"http://127.0.0.1:{floor_port}/healthz")
        assert status == 200 and health["tables"] == ["t5"]
        import urllib.request

        page = urllib.request.urlopen(f"http://127.0.0.1:{floor_port}/review/?table=t5").read().decode()
        assert 'data-hand="t5-00002"' in page and 'data-hand="t5-00001"' in page
    finally:
        for proc in (kiosk, floor):
            proc.send_signal(signal.SIGTERM)
        assert kiosk.wait(60) == 0, kiosk.stderr.read().decode()[-2000:]
        assert floor.wait(30) == 0


@pytest.mark.slow
@pytest.mark.browser
def test_the_floor_searches_in_a_real_browser_on_a_tablet(central_dsn, tmp_path, browser, shots):
    from kiosk.records.pg_cluster import free_port
    from kiosk.web.service import start_server

    for name, count in (("t1", 4), ("t2", 3)):
        store = HandStore(tmp_path / name / "kiosk.sqlite")
        record_hands(store, tmp_path / name / "media", name, 1, count, at=AT)
        Shipper(store, central_dsn, tmp_path / "floor-media", name).ship_once()
        store.close()
    central = CentralStore(central_dsn, tmp_path / "floor-media")
    port = free_port()
    server, _ = start_server(create_floor_app(central), "127.0.0.1", port)
    try:
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        page.goto(f"http://127.0.0.1:{port}/")
        assert page.locator("tr.hand").count() == 7
        assert page.evaluate("document.documentElement.scrollWidth") <= 1024
        page.select_option("select[name=table]", "t2")
        page.fill("input[name=since]", "2026-11-30 21:02")
        page.fill("input[name=text]", "pays seat 3")
        page.click("#search button[type=submit]")
        page.wait_for_load_state()
        assert [r.get_attribute("data-hand") for r in page.locator("tr.hand").all()] == ["t2-00002"]
        page.screenshot(path=str(shots / "floor-search.png"), full_page=True)
        page.click("a:text('t2-00002')")
        assert page.locator("#read-only").is_visible() and page.locator("#flag-form").count() == 0
        assert page.locator("#key-frame img").is_visible()
        page.close()
    finally:
        server.shutdown()
        central.close()
