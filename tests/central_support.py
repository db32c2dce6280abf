"""Tables recording hands for the floor tests: real Recorder, real SQLite, real media files."""

from __future__ import annotations

from dataclasses import replace

import psycopg

from kiosk.records.recorder import Recorder
from kiosk.records.store import HandStore
from kiosk.table.hub import Hub
from records_support import correction, frame_image, make_verdict


def record_hands(store: HandStore, media_dir, table: str, first: int, count: int, *, corrected_every: int = 3,
                 frames: int = 3, at: float | None = None) -> list[str]:
    """`count` hands through the Recorder (key frame + clip each); every `corrected_every`-th gets a
    dealer correction and a second revision. Returns the hand ids."""
    hub = Hub()
    rec = Recorder(store, hub, None, media_dir, max_pending_frames=64)
    ids = []
    for n in range(first, first + count):
        hand_id = f"{table}-{n:05d}"
        hub.publish("phase", phase="cards_down", hand_id=hand_id)
        for i in range(frames):
            hub.publish("frame", frame_index=i, timestamp=i / 5, image=frame_image(i + n), hand_id=hand_id)
        when = None if at is None else at + 60 * n  # hand n decided n minutes after `at`
        v = make_verdict(hand_id, frame_index=frames - 1, decided_at=when)
        hub.publish("verdict", verdict=replace(v, table=table))
        if corrected_every and n % corrected_every == 0:
            hub.publish("action", action=correction(hand_id, before="Qs", after="4s"), ok=True, message="")
            v2 = make_verdict(hand_id, frame_index=frames - 1, foul_seat2=False,
                              decided_at=None if when is None else when + 30)
            hub.publish("verdict", verdict=replace(v2, table=table))
        ids.append(hand_id)
    assert rec.flush()
    rec.close()
    return ids


def central_rows(dsn: str, table: str) -> list[tuple[int, str]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT seq, hash FROM records WHERE table_id = %s ORDER BY seq", (table,)).fetchall()


def local_rows(store: HandStore) -> list[tuple[int, str]]:
    return [tuple(r) for r in store._conn().execute("SELECT seq, hash FROM records ORDER BY seq")]
