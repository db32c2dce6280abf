"""Crash safety: a recording process killed (SIGKILL) at random moments, again and again (issue 6).

A real subprocess runs the real Hub -> Recorder -> HandStore with frames, verdicts, dealer
actions, verdict revisions and retention pruning, as fast as it can. After every kill the
next run continues on the same files. At the end every committed record must be intact:
`kiosk audit verify` passes (media re-hashed too), SQLite's integrity check passes, every
stored verdict is exactly what was published, and every hand the writer saw committed is
still there (or was pruned by a checkpoint).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kiosk.records.store import HandStore
from records_support import make_verdict

WRITER = textwrap.dedent(
    """
    import sys, time
    from kiosk.records.recorder import Recorder
    from kiosk.records.retention import prune
    from kiosk.records.store import HandStore
    from kiosk.table.hub import Hub
    from records_support import correction, frame_image, make_verdict

    db, media, run = sys.argv[1], sys.argv[2], sys.argv[3]
    store = HandStore(db)
    hub = Hub()
    rec = Recorder(store, hub, None, media, clip_fps=0, max_pending_frames=64)
    print("ready", flush=True)
    n = 0
    while True:
        hand = f"{run}-{n}"
        hub.publish("phase", phase="cards_down", hand_id=hand)
        for i in range(6):
            hub.publish("frame", frame_index=i, timestamp=i / 10, image=frame_image(i, (960, 540)), hand_id=hand)
        hub.publish("verdict", verdict=make_verdict(hand, decided_at=1.7e9 + n, frame_index=5))
        hub.publish("action", action=correction(hand, at=1.7e9 + n), ok=True, message="corrected")
        hub.publish("verdict", verdict=make_verdict(hand, decided_at=1.7e9 + n, frame_index=5, foul_seat2=False))
        hub.publish("phase", phase="cleared", hand_id=hand)
        rec.flush()
        print(f"committed {hand}", flush=True)
        if n % 3 == 2:
            used = store.db_bytes() + sum(b for _, _, b in store.hand_media_files())
            prune(store, None, used * 0.8 / 1048576, time.time(), protect_recent_seconds=0)
            print("pruned", flush=True)
        n += 1
    """
)


@pytest.mark.slow
def test_repeated_kills_never_damage_committed_records(tmp_path):
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    db, media = tmp_path / "kiosk.sqlite", tmp_path / "media"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), os.getcwd()])}
    rng = random.Random(6)
    committed: list[str] = []
    kills = 20
    for run in range(kills):
        proc = subprocess.Popen(
            [sys.executable, str(script), str(db), str(media), f"r{run}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        time.sleep(rng.uniform(0.05, 1.2))
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate()
        assert proc.returncode == -signal.SIGKILL, err
        assert "Traceback" not in err, err
        # Only whole lines count: the kill may land while a line is being written.
        whole = out.split("\n")[:-1]
        committed += [line.split()[1] for line in whole if line.startswith("committed ")]

    audit = subprocess.run(
        [sys.executable, "-m", "kiosk", "audit", "verify", "--db", str(db)],
        capture_output=True, text=True, env=env,
    )
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert audit.stdout.startswith("all ")

    store = HandStore(db)
    assert store._conn().execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored = store.hand_ids()
    assert len(committed) >= kills, "the writer should commit hands between kills"
    pruned = set()
    for row in store._conn().execute("SELECT pruned_hands_json FROM checkpoints"):
        pruned.update(json.loads(row[0]))
    lost = [h for h in committed if h not in stored and h not in pruned]
    assert lost == [], f"committed hands missing: {lost}"
    for hand_id in stored:
        hand = store.hand(hand_id)
        n = int(hand_id.split("-")[1])
        first = make_verdict(hand_id, decided_at=1.7e9 + n, frame_index=5)
        assert hand.first.verdict == first
        assert {m.role for m in hand.first.media} == {"key_frame", "clip"}
        clip = next(m for m in hand.first.media if m.role == "clip")
        assert [f["frame_index"] for f in clip.meta["frames"]] == [0, 1, 2, 3, 4, 5]
        if len(hand.revisions) > 1:
            assert [a.action.kind for a in hand.actions] == ["correct_card"]
            assert hand.revisions[1].verdict == make_verdict(hand_id, decided_at=1.7e9 + n, frame_index=5,
                                                             foul_seat2=False)
        assert len(hand.revisions) <= 2
    # A committed hand is stored whole: both revisions and the correction.
    for hand_id in committed:
        if hand_id in stored:
            assert len(store.hand(hand_id).revisions) == 2
