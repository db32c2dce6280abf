"""The floor's PostgreSQL: shipping each table's records, verifying them there (issue 70). Real PostgreSQL."""

from __future__ import annotations

import re
import time

import psycopg
import pytest

from central_support import central_rows, local_rows, record_hands
from kiosk.errors import KioskError
from kiosk.records.central import compare_with_local, verify_central
from kiosk.records.chain import file_sha256
from kiosk.records.retention import prune
from kiosk.records.shipper import Shipper
from kiosk.records.store import HandStore
from kiosk.table.config import load_config


def table(tmp_path, name):
    store = HandStore(tmp_path / name / "kiosk.sqlite")
    return store, tmp_path / name / "media"


def shipper(store, dsn, tmp_path, name, **kw):
    return Shipper(store, dsn, tmp_path / "floor-media", name, **kw)


def test_every_record_revision_action_and_frame_reaches_the_floor_once(central_dsn, tmp_path):
    store, media = table(tmp_path, "t7")
    record_hands(store, media, "t7", 1, 6)
    store.flag("t7-00002", "floor-4", "seat 2 says the queen was a four")
    assert shipper(store, central_dsn, tmp_path, "t7", batch=4).ship_once() == store.count()
    assert central_rows(central_dsn, "t7") == local_rows(store)
    with psycopg.connect(central_dsn) as conn:
        copies = conn.execute("SELECT central_path, sha256 FROM media").fetchall()
        kinds = dict(conn.execute("SELECT kind, count(*) FROM records GROUP BY kind").fetchall())
        flags = conn.execute("SELECT table_id, hand_id, by_whom FROM review_flags").fetchall()
        hands = conn.execute("SELECT count(*), sum(revisions) FROM floor_hands").fetchone()
    local_media = store._conn().execute("SELECT count(*) FROM media").fetchone()[0]
    assert len(copies) == local_media >= 7  # a key frame per hand, and the clips
    assert all(file_sha256(tmp_path / "floor-media" / path) == sha for path, sha in copies)
    assert kinds == {"verdict": 8, "action": 2}  # hands 3 and 6 were corrected: 2 actions, 2 revisions 1
    assert flags == [("t7", "t7-00002", "floor-4")]
    assert hands == (6, 8)
    # Again, and from a new shipper (a restarted kiosk): nothing is sent twice.
    assert shipper(store, central_dsn, tmp_path, "t7").ship_once() == 0
    assert central_rows(central_dsn, "t7") == local_rows(store)
    [check] = verify_central(central_dsn, tmp_path / "floor-media")
    assert check.ok and check.count == 10 and check.media_checked == local_media, check


def test_shipping_resumes_where_the_floor_left_off(central_dsn, tmp_path):
    store, media = table(tmp_path, "t1")
    record_hands(store, media, "t1", 1, 5, corrected_every=0)
    assert shipper(store, central_dsn, tmp_path, "t1", batch=2).ship_once(max_batches=1) == 2
    record_hands(store, media, "t1", 6, 2, corrected_every=0)
    again = shipper(store, central_dsn, tmp_path, "t1", batch=2)
    assert again.ship_once() == 5
    assert central_rows(central_dsn, "t1") == local_rows(store)
    assert again.state().state == "up to date" and again.state().behind == 0
    assert store.meta("central_shipped_seq") == "7"


def test_the_background_shipper_makes_new_hands_visible_on_the_floor(central_dsn, tmp_path):
    store, media = table(tmp_path, "t2")
    s = shipper(store, central_dsn, tmp_path, "t2", interval=0.1).start()
    try:
        record_hands(store, media, "t2", 1, 3, corrected_every=0)
        deadline = time.time() + 20
        while central_rows(central_dsn, "t2") != local_rows(store) and time.time() < deadline:
            time.sleep(0.1)
        assert central_rows(central_dsn, "t2") == local_rows(store)
        assert s.state().state == "up to date"
    finally:
        s.close()


def test_central_verify_names_the_first_break_of_each_table(central_dsn, tmp_path):
    for name in ("t3", "t4", "t5"):
        store, media = table(tmp_path, name)
        record_hands(store, media, name, 1, 4)
        shipper(store, central_dsn, tmp_path, name).ship_once()
        store.close()
    with psycopg.connect(central_dsn) as conn:
        conn.execute("UPDATE verdicts SET result_json = replace(result_json, 'fouled', 'set') "
                     "WHERE table_id = 't3' AND seq = 2")
        conn.execute("DELETE FROM floor_hands WHERE table_id = 't5'")  # derived: not part of the chain
        newest = conn.execute("SELECT max(seq) FROM records WHERE table_id = 't5'").fetchone()[0]
        for child in ("evidence", "media", "verdicts", "actions"):
            conn.execute(f"DELETE FROM {child} WHERE table_id = 't5' AND seq = %s", (newest,))
        conn.execute("DELETE FROM records WHERE table_id = 't5' AND seq = %s", (newest,))
        path = conn.execute("SELECT central_path FROM media WHERE table_id = 't4' AND seq = 3 AND role = 'key_frame'"
                            ).fetchone()[0]
    (tmp_path / "floor-media" / path).write_bytes(b"not the frame")
    checks = {c.table: c for c in verify_central(central_dsn, tmp_path / "floor-media")}
    assert "record 2 (hand t3-00002, verdict revision 0) was altered: its content" in checks["t3"].problem
    assert "record 3: key frame" in checks["t4"].problem and "altered on the floor" in checks["t4"].problem
    assert f"record {newest} was removed" in checks["t5"].problem
    assert not verify_central(central_dsn, tmp_path / "floor-media", check_media=False)[1].problem


def test_another_kiosk_with_the_same_table_name_is_refused_and_named(central_dsn, tmp_path):
    first, media = table(tmp_path, "a")
    record_hands(first, media, "t9", 1, 3, corrected_every=0)
    shipper(first, central_dsn, tmp_path, "t9").ship_once()
    other, media = table(tmp_path, "b")
    record_hands(other, media, "t9", 1, 4, corrected_every=0)
    s = shipper(other, central_dsn, tmp_path, "t9", retry=0.05).start()
    deadline = time.time() + 10
    while s.state().state != "diverged" and time.time() < deadline:
        time.sleep(0.05)
    s.close()
    assert s.state().error and "is another kiosk using this name" in s.state().error
    assert central_rows(central_dsn, "t9") == local_rows(first)  # nothing of the other kiosk's chain
    assert "record 1 differs between the floor and this kiosk's records" in compare_with_local(central_dsn, "t9", other)
    assert compare_with_local(central_dsn, "t9", first) is None


def test_one_record_database_shipped_under_two_names_is_refused(central_dsn, tmp_path):
    store, media = table(tmp_path, "t1")
    record_hands(store, media, "t1", 1, 2, corrected_every=0)
    shipper(store, central_dsn, tmp_path, "t1").ship_once()
    again = shipper(store, central_dsn, tmp_path, "t1-copy")
    with pytest.raises(Exception, match="on the floor already as table t1's"):
        again.ship_once()
    assert central_rows(central_dsn, "t1-copy") == []


def test_retention_keeps_what_the_floor_has_not_got_and_central_verify_spans_pruned_runs(central_dsn, tmp_path):
    store, media = table(tmp_path, "t6")
    later = time.time() + 200 * 86400
    record_hands(store, media, "t6", 1, 3, corrected_every=0)
    # Pruned at the table before the floor had a database: never shipped, named by a checkpoint.
    assert prune(store, 90, None, now=later).records == 3
    record_hands(store, media, "t6", 4, 2, corrected_every=0)
    shipper(store, central_dsn, tmp_path, "t6").ship_once()
    record_hands(store, media, "t6", 6, 2, corrected_every=0)  # not shipped yet
    report = prune(store, 90, None, now=later, keep_unshipped=True)
    assert report.hands == ("t6-00004", "t6-00005")
    assert {h for h in store.hand_ids()} == {"t6-00006", "t6-00007"}
    shipper(store, central_dsn, tmp_path, "t6").ship_once()
    [check] = verify_central(central_dsn, tmp_path / "floor-media")
    assert check.ok and check.count == 4 + 2, check  # hands 4-7 and the two checkpoints


def test_config_names_a_bad_central_setting_by_its_line(tmp_path):
    path = tmp_path / "kiosk.yaml"
    path.write_text("records:\n  central:\n    dsn: host=127.0.0.1 dbname\n    media_dir: /srv/floor\n")
    with pytest.raises(KioskError, match=r"line 3: records.central.dsn: not a PostgreSQL connection string"):
        load_config(path)
    path.write_text("records:\n  central:\n    dsn: host=127.0.0.1 dbname=floor\n")
    with pytest.raises(KioskError, match=r"line 2: records.central.media_dir: Field required"):
        load_config(path)
    path.write_text("records:\n  central:\n    dsn: host=127.0.0.1 dbname=floor\n    media_dir: /srv/f\n"
                    "    batch: 0\n")
    with pytest.raises(KioskError, match=r"line 5: records.central.batch"):
        load_config(path)
    assert load_config(None).records.central is None


def test_healthz_says_how_far_behind_the_floor_is_and_stays_ok_offline(central_dsn, tmp_path, pg_cluster):
    from kiosk.table.hub import Hub
    from kiosk.web.app import create_app

    store, media = table(tmp_path, "t8")
    record_hands(store, media, "t8", 1, 2, corrected_every=0)
    up = shipper(store, central_dsn, tmp_path, "t8")
    up.ship_once()
    record_hands(store, media, "t8", 3, 1, corrected_every=0)
    down = shipper(store, central_dsn.replace(f"port={pg_cluster.port}", "port=1"), tmp_path, "t8", retry=0.05)
    for s, state, behind in ((up, "up to date", 0), (down, "offline", None)):
        app = create_app(Hub(), None, None, store)
        app.config["KIOSK_SHIPPER"] = s
        if s is down:
            s.start()
            deadline = time.time() + 10
            while s.state().state != "offline" and time.time() < deadline:
                time.sleep(0.05)
            s.close()
        resp = app.test_client().get("/healthz")
        central = resp.get_json()["central"]
        assert resp.status_code == 200 and central["state"] in (state, "stopped"), central
        assert central["table"] == "t8" and central["shipped_seq"] == (2 if s is up else None)
    assert "cannot reach the central database" in down.state().error
    assert down.state().local_seq == 3


def test_kiosk_audit_verify_central_names_each_table_and_one_that_differs_from_its_sqlite(central_dsn, tmp_path,
                                                                                        capsys):
    from kiosk.cli import main

    stores = {}
    for name in ("t1", "t2"):
        stores[name], media = table(tmp_path, name)
        record_hands(stores[name], media, name, 1, 3)
        shipper(stores[name], central_dsn, tmp_path, name).ship_once()
    config = tmp_path / "kiosk.yaml"
    config.write_text(f"table:\n  name: t2\nrecords:\n  db: {stores['t2'].path}\n  central:\n"
                      f"    dsn: {central_dsn}\n    media_dir: {tmp_path / 'floor-media'}\n")
    assert main(["audit", "verify", "--central", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"table t1: all 5 records intact, \d+ media files match \(head \w{16}\)", out)
    assert "table t2: the floor's chain is this kiosk's" in out
    # A table PC whose record database was replaced by another one: named.
    assert main(["audit", "verify", "--central", "--config", str(config), "--db", str(stores["t1"].path)]) == 1
    assert "table t2: DIFFERS from this kiosk's records: record 1 differs" in capsys.readouterr().out
    with psycopg.connect(central_dsn) as conn:
        conn.execute("UPDATE actions SET after_card = '5s' WHERE table_id = 't1'")
    assert main(["audit", "verify", "--central", "--config", str(config), "--no-media"]) == 1
    out = capsys.readouterr().out
    assert "table t1: TAMPERED: record 4 (hand t1-00003, dealer action correct_card) was altered" in out
    assert "table t2: all 5 records intact (head" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text("records:\n  central:\n    dsn: host=127.0.0.1 port=1 dbname=x\n    media_dir: /tmp/x\n")
    assert main(["audit", "verify", "--central", "--config", str(bad)]) == 1
    assert "kiosk audit: cannot reach the central database" in capsys.readouterr().err


def test_the_roles_of_docs_records_md_kiosks_insert_but_never_rewrite_and_the_floor_only_reads(pg_cluster, tmp_path,
                                                                                              capsys):
    from kiosk.cli import main
    from kiosk.records.central import CentralStore

    with psycopg.connect(pg_cluster.dsn(), autocommit=True) as conn:
        for role in ("floor_owner", "kiosk_table", "floor_review"):
            if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
                conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute("DROP DATABASE IF EXISTS floor_roles")
        conn.execute("CREATE DATABASE floor_roles OWNER floor_owner")
    owner, table_role, review = (pg_cluster.dsn("floor_roles", user) for user in
                                 ("floor_owner", "kiosk_table", "floor_review"))
    assert main(["floor", "init", "--dsn", owner, "--table-role", "kiosk_table", "--floor-role", "floor_review"]) == 0
    assert "floor schema ready; kiosks connect as kiosk_table" in capsys.readouterr().out
    store, media = table(tmp_path, "t1")
    record_hands(store, media, "t1", 1, 3)
    store.flag("t1-00001", "floor-2", "")
    assert shipper(store, table_role, tmp_path, "t1").ship_once() == store.count()
    with psycopg.connect(table_role, autocommit=True) as conn:
        for sql in ("UPDATE records SET kind = 'action'", "DELETE FROM verdicts", "UPDATE evidence SET card = 'As'"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(sql)
    floor = CentralStore(review, tmp_path / "floor-media")
    assert [h.hand_id for h in floor.list_hands()] == ["t1-00003", "t1-00002", "t1-00001"]
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        floor._conn().execute("INSERT INTO review_flags VALUES ('t1', 'x', 0, 'me', '')")
    floor.close()
    assert main(["floor", "init", "--dsn", table_role]) == 1  # a kiosk's role cannot change the schema
    assert "cannot create the floor's schema" in capsys.readouterr().err
