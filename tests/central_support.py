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
    assert rec.flush(timeout=600)  # fsync per hand: slow on a busy disk
    rec.close()
    return ids


def central_rows(dsn: str, table: str) -> list[tuple[int, str]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT seq, hash FROM records WHERE table_id = %s ORDER BY seq", (table,)).fetchall()


def local_rows(store: HandStore) -> list[tuple[int, str]]:
    return [tuple(r) for r in store._conn().execute("SELECT seq, hash FROM records ORDER BY seq")]


class LinkProxy:
    """A TCP relay on 127.0.0.1 between a shipper and PostgreSQL whose link can be cut and restored:
    `cut()` drops every open connection and refuses new ones, as a pulled cable or a dead switch does."""

    def __init__(self, target_port: int):
        import socket
        import threading

        self.target = ("127.0.0.1", target_port)
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.up = threading.Event()
        self.up.set()
        self.open: list = []
        self.cuts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket
        import threading

        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.up.is_set():
                client.close()
                continue
            try:
                server = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            self.open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a, b) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.close()
            except OSError:
                pass

    def cut(self) -> None:
        import socket

        self.up.clear()
        self.cuts += 1
        for s in self.open:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass
        self.open = []

    def restore(self) -> None:
        self.up.set()

    def close(self) -> None:
        self.cut()
        self.listener.close()


def exactly_once(dsn: str, table: str, store: HandStore) -> None:
    """Every record of the table is in PostgreSQL once, in order, with its hash; every hand's revisions too."""
    assert central_rows(dsn, table) == local_rows(store)
    with psycopg.connect(dsn) as conn:
        dup = conn.execute("SELECT hand_id, revision, count(*) FROM verdicts WHERE table_id = %s "
                           "GROUP BY 1, 2 HAVING count(*) > 1", (table,)).fetchall()
        hands = conn.execute("SELECT count(*) FROM floor_hands WHERE table_id = %s", (table,)).fetchone()[0]
    assert dup == []
    assert hands == len(store.hand_ids())
