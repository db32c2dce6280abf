"""Hand records: the SQLite store, the recorder on a real hub, retention (issue 6)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from kiosk.records.chain import file_sha256
from kiosk.records.media import read_clip
from kiosk.records.recorder import Recorder
from kiosk.records.retention import prune
from kiosk.records.store import HandQuery, HandStore
from kiosk.table.actions import DealerAction
from kiosk.table.config import load_config
from kiosk.table.hub import Hub
from records_support import correction, frame_image, make_verdict

DAY = 86400.0


@pytest.fixture
def store(tmp_path):
    s = HandStore(tmp_path / "kiosk.sqlite")
    yield s
    s.close()


def test_database_runs_in_wal_with_full_sync(store):
    conn = sqlite3.connect(store.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # synchronous is per connection: check the store's own.
    assert store._conn().execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_verdict_round_trips_exactly(store):
    v = make_verdict("t1-0001", needs_check=True)
    store.append_verdict(v, config={"table": {"name": "table-1"}}, started_at=v.decided_at - 20)
    hand = store.hand("t1-0001")
    assert hand.first.verdict == v
    assert hand.first.revision == 0
    assert hand.first.config == {"table": {"name": "table-1"}}
    assert hand.first.status == "needs_check"
    assert hand.first.started_at == pytest.approx(v.decided_at - 20)


def test_republished_verdict_is_a_new_revision_never_a_rewrite(store):
    v0 = make_verdict("t1-0002")
    seq0 = store.append_verdict(v0)
    first_hash = store.hand("t1-0002").first.hash
    store.append_action(correction("t1-0002"), True, "corrected", frame_index=41)
    store.append_verdict(make_verdict("t1-0002", foul_seat2=False))
    hand = store.hand("t1-0002")
    assert [r.revision for r in hand.revisions] == [0, 1]
    assert hand.first.seq == seq0 and hand.first.hash == first_hash  # revision 0 untouched
    assert hand.first.verdict.result["seats"][1]["status"] == "fouled"
    assert hand.latest.verdict.result["seats"][1]["status"] == "set"
    assert [(a.action.kind, a.action.before, a.action.after, a.action.by) for a in hand.actions] == [
        ("correct_card", "6d", "6h", "floor-7")
    ]
    assert hand.actions[0].frame_index == 41
    listing = store.list_hands()
    assert [(h.hand_id, h.revisions, h.corrections, h.fouled) for h in listing] == [("t1-0002", 2, 1, ())]


def test_hands_are_searchable_by_time_seat_foul_natural_amount(store):
    now = time.time()
    store.append_verdict(make_verdict("old-foul", decided_at=now - 3 * DAY))
    store.append_verdict(make_verdict("new-clean", decided_at=now - 60, foul_seat2=False, stake=5))
    store.append_verdict(make_verdict("new-check", decided_at=now - 30, needs_check=True))

    def ids(**kw):
        return sorted(h.hand_id for h in store.list_hands(HandQuery(**kw)))

    assert ids() == ["new-check", "new-clean", "old-foul"]
    assert ids(foul=True) == ["new-check", "old-foul"]
    assert ids(foul=False) == ["new-clean"]
    assert ids(seat=2, foul=True) == ["new-check", "old-foul"]
    assert ids(seat=1, foul=True) == []  # seat 1 never fouled
    assert ids(seat=4) == []  # seat 4 is dead in every hand
    assert ids(natural=True) == []
    assert ids(since=now - DAY) == ["new-check", "new-clean"]
    assert ids(until=now - DAY) == ["old-foul"]
    # stake 5: seat 3 collects 8 points x 5 from seat 1 = 40, the largest payment.
    assert ids(min_amount=40) == ["new-clean"]
    assert ids(min_amount=8) == ["new-check", "new-clean", "old-foul"]
    assert ids(status="needs_check") == ["new-check"]
    assert ids(text="clean") == ["new-clean"]
    assert ids(text="%") == []  # LIKE wildcards are literal
    store.flag("old-foul", "floor-2", "player disputes the foul")
    assert ids(under_review=True) == ["old-foul"]


def test_not_a_database_is_a_clear_error(tmp_path):
    bad = tmp_path / "notes.sqlite"
    bad.write_text("this is not sqlite " * 100)
    from kiosk.errors import KioskError

    with pytest.raises(KioskError, match="notes.sqlite is not a usable record database"):
        HandStore(bad)


# -- the recorder on a real hub ---------------------------------------------------------------


def _play_hand(hub: Hub, hand_id: str, first_frame: int, frames: int = 12, fps: float = 10.0):
    hub.publish("phase", phase="cards_down", hand_id=hand_id)
    images = {}
    for i in range(first_frame, first_frame + frames):
        images[i] = frame_image(i)
        hub.publish("frame", frame_index=i, timestamp=i / fps, image=images[i], detections=None,
                    snapshot=None, hand_id=hand_id)
    last = first_frame + frames - 1
    hub.publish("phase", phase="verdict", hand_id=hand_id)
    verdict = make_verdict(hand_id, frame_index=last)
    hub.publish("verdict", verdict=verdict)
    return verdict, images


def test_recorder_stores_hand_key_frame_and_clip(tmp_path):
    store = HandStore(tmp_path / "k.sqlite")
    hub = Hub()
    rec = Recorder(store, hub, load_config(None), tmp_path / "media", clip_fps=5.0, clip_head_frames=2,
                   clip_max_frames=5, max_pending_frames=64)
    try:
        verdict, images = _play_hand(hub, "h-1", first_frame=100, frames=20, fps=10.0)
        assert rec.flush()
    finally:
        rec.close()
    hand = store.hand("h-1")
    assert hand.first.verdict == verdict
    assert hand.first.config["table"]["name"] == "table-1"
    roles = {m.role: m for m in hand.first.media}
    assert set(roles) == {"key_frame", "clip"}
    key = roles["key_frame"]
    assert key.frame_index == 119
    key_path = store.media_abspath(key.path)
    assert file_sha256(key_path) == key.sha256
    key_image = cv2.imread(str(key_path))
    assert key_image.shape == images[119].shape
    assert np.abs(key_image.astype(int) - images[119]).mean() < 4  # JPEG of that very frame
    clip = roles["clip"]
    frames = list(read_clip(store.media_abspath(clip.path), clip.meta["frames"]))
    # 5 fps from a 10 fps source: every other frame; the first 2 kept, then the newest 3 up to the verdict.
    assert [f.frame_index for f in frames] == [100, 102, 114, 116, 118]
    assert [f.timestamp for f in frames] == pytest.approx([10.0, 10.2, 11.4, 11.6, 11.8])
    for f in frames:
        assert np.abs(f.image.astype(int) - images[f.frame_index]).mean() < 4
    assert store.verify().ok


def test_recorder_records_revisions_and_actions_not_repeats(tmp_path):
    store = HandStore(tmp_path / "k.sqlite")
    hub = Hub()
    rec = Recorder(store, hub, None, tmp_path / "media")
    try:
        verdict, _ = _play_hand(hub, "h-2", first_frame=0)
        hub.publish("verdict", verdict=verdict)  # republished unchanged: no new record
        action = DealerAction("correct_card", seat=2, row="front", index=0, before="Qs", after="4s", by="floor-1",
                              at=time.time())  # no hand id: the recorder files it under the hand on the table
        hub.publish("action", action=action, ok=True, message="seat 2 front 1: Qs -> 4s")
        hub.publish("verdict", verdict=make_verdict("h-2", frame_index=11, foul_seat2=False))
        assert rec.flush()
    finally:
        rec.close()
    hand = store.hand("h-2")
    assert [r.revision for r in hand.revisions] == [0, 1]
    assert [(a.action.hand_id, a.action.after, a.ok, a.message) for a in hand.actions] == [
        ("h-2", "4s", True, "seat 2 front 1: Qs -> 4s")
    ]
    assert hand.revisions[1].media == ()  # same key frame: not stored twice
    assert store.verify().ok


def test_recorder_listener_only_enqueues_and_bounds_its_frames(tmp_path):
    """The hub calls the recorder in the pipeline's thread: nothing may be written there."""
    store = HandStore(tmp_path / "k.sqlite")
    hub = Hub()
    rec = Recorder(store, hub, None, tmp_path / "media", clip_fps=0, max_pending_frames=4, start=False)
    big = np.zeros((1080, 1920, 3), np.uint8)
    for i in range(30):
        hub.publish("frame", frame_index=i, timestamp=i / 30, image=big, hand_id="h-3")
    hub.publish("verdict", verdict=make_verdict("h-3", frame_index=29))
    assert store.count() == 0 and not (tmp_path / "media").exists()
    assert rec.dropped_frames == 26  # at most 4 frames wait for the writer; the rest are dropped
    rec._thread.start()
    assert rec.flush()
    rec.close()
    assert store.count("verdict") == 1
    assert big.sum() == 0  # the frame was not modified


# -- retention ------------------------------------------------------------------------------


def _hand_with_media(store: HandStore, tmp_path, hand_id: str, at: float) -> None:
    hub = Hub()
    rec = Recorder(store, hub, None, tmp_path / "media")
    hub.publish("phase", phase="cards_down", hand_id=hand_id)
    for i in range(3):
        hub.publish("frame", frame_index=i, timestamp=i, image=frame_image(i), hand_id=hand_id)
    hub.publish("verdict", verdict=make_verdict(hand_id, frame_index=2, decided_at=at))
    hub.publish("action", action=correction(hand_id, at=at), ok=True, message="")
    assert rec.flush()
    rec.close()


def test_prune_by_age_oldest_first_never_under_review_and_chain_still_verifies(tmp_path):
    store = HandStore(tmp_path / "k.sqlite")
    now = time.time()
    store.append_verdict(make_verdict("a-old", decided_at=now - 100 * DAY), created_at=now - 100 * DAY)
    store.append_verdict(make_verdict("b-disputed", decided_at=now - 95 * DAY), created_at=now - 95 * DAY)
    store.append_verdict(make_verdict("c-old", decided_at=now - 92 * DAY), created_at=now - 92 * DAY)
    store.append_verdict(make_verdict("d-new", decided_at=now - 2 * DAY), created_at=now - 2 * DAY)
    store.flag("b-disputed", "floor-3", "player says seat 2 was not fouled")
    report = prune(store, max_age_days=90, disk_budget_mb=None, now=now)
    assert report.hands == ("a-old", "c-old")
    assert report.kept_under_review == ("b-disputed",)
    assert store.hand_ids() == ["b-disputed", "d-new"]
    result = store.verify()
    assert result.ok, result.problem
    assert result.count == 3  # two hands and the checkpoint
    # Pruning again finds nothing new and still verifies.
    assert prune(store, 90, None, now=now).hands == ()
    assert store.verify().ok
    # Tampering is still caught after pruning.
    store._conn().execute("UPDATE verdicts SET result_json = '{}' WHERE hand_id = 'd-new'")
    problem = store.verify().problem
    assert problem is not None and "d-new" in problem.message


def test_prune_refuses_a_chain_that_does_not_verify(tmp_path):
    """Retention must never erase the evidence of tampering."""
    from kiosk.errors import KioskError

    store = HandStore(tmp_path / "k.sqlite")
    now = time.time()
    for n in range(3):
        store.append_verdict(make_verdict(f"h{n}", decided_at=now - 200 * DAY), created_at=now - 200 * DAY)
    store._conn().execute("UPDATE verdicts SET fouled = '' WHERE hand_id = 'h1'")
    with pytest.raises(KioskError, match=r"not pruning: .*record 2 \(hand h1"):
        prune(store, 90, None, now=now)
    assert store.hand_ids() == ["h0", "h1", "h2"]


def test_prune_by_disk_budget(tmp_path):
    store = HandStore(tmp_path / "k.sqlite")
    for n in range(4):
        _hand_with_media(store, tmp_path, f"h{n}", time.time())
    files = {h: [p for hid, p, _ in store.hand_media_files() if hid == h] for h in store.hand_ids()}
    assert all(p.exists() for ps in files.values() for p in ps)
    used = store.db_bytes() + sum(b for _, _, b in store.hand_media_files())
    one_hand = sum(b for hid, _, b in store.hand_media_files() if hid == "h0")
    # A budget just under what is used: the oldest hand goes (its media too), nothing else.
    budget_mb = (used - one_hand / 2) / 1024 / 1024
    report = prune(store, None, budget_mb, now=time.time() + 7200, protect_recent_seconds=3600)
    assert report.hands == ("h0",)
    assert report.freed_bytes == one_hand
    assert not any(p.exists() for p in files["h0"])
    assert all(p.exists() for h in ("h1", "h2", "h3") for p in files[h])
    assert store.verify().ok
    # The newest hour is never pruned for the budget, even at a budget of nothing.
    assert prune(store, None, 0.0, now=time.time()).hands == ()


def test_kiosk_run_keeps_the_frames_beside_a_database_given_on_the_command_line(tmp_path):
    from argparse import Namespace

    from kiosk.commands.run import _recorder
    from kiosk.table.config import KioskConfig

    for cfg, media in [(load_config(None), tmp_path / "media"),
                       (KioskConfig.model_validate({"records": {"media_dir": str(tmp_path / "set")}}), tmp_path / "set")]:
        store, rec, temporary = _recorder(Namespace(no_record=False, db=str(tmp_path / "table7.sqlite"), source=None),
                                          cfg, Hub())
        try:
            assert Path(rec.media_dir) == media and temporary is None
        finally:
            rec.close()
            store.close()


def test_the_demo_records_into_a_temporary_demo_store(tmp_path, monkeypatch):
    """`kiosk run` on the demo with no database named: a demo store in a temporary folder, never ./var."""
    import shutil
    from argparse import Namespace

    from kiosk.commands.run import _recorder

    monkeypatch.chdir(tmp_path)
    store, rec, temporary = _recorder(Namespace(no_record=False, db=None, source=None), load_config(None), Hub())
    try:
        assert temporary is not None and temporary.name.startswith("kiosk-demo-records-")
        assert Path(store.path).parent == temporary and Path(rec.media_dir) == temporary / "media"
        assert not (tmp_path / "var").exists()
    finally:
        rec.close()
        store.close()
        shutil.rmtree(temporary)
