"""The shipper: sends this table's committed records to the floor's PostgreSQL, in order, once each.

The table stays offline-first: the recorder writes SQLite first, as always; the shipper reads
what is committed there and sends what the central store lacks. Each cycle:

1. asks PostgreSQL for this table's newest record there (its seq and hash) and checks that this
   kiosk holds the same record (else the chains *diverged*: another kiosk uses this table's name,
   or the SQLite file was replaced; nothing more is sent and `/healthz` says so);
2. copies the key frames and clips of the next records to the floor's media folder (a file
   already there with the right sha256 is kept; a copy is re-read and checked against the
   record's sha256 before any record names it);
3. inserts up to `batch` records with all their rows in one transaction, under a per-table
   advisory lock, skipping any already there (the record's hash is the key), and updates the
   floor's search table (`floor_hands`) and the table's review-flag mirror.

A cut link, a restarted server or a killed kiosk loses nothing: the next cycle starts again from
what PostgreSQL holds, so there are no gaps (records go in seq order, a batch is all or nothing)
and no duplicates. The seq shipped is also noted in SQLite (`central_shipped_seq`), so retention
never prunes a record the floor has not got.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from kiosk.records.central_schema import SCHEMA_VERSION, child_columns
from kiosk.records.chain import bytes_sha256, file_sha256
from kiosk.records.media import safe_name, sync_filesystem, write_unsynced
from kiosk.records.store import CHILD_TABLES, HandStore
from kiosk.records.summary import verdict_text

log = logging.getLogger(__name__)
SHIPPED_KEY = "central_shipped_seq"
HAND_COLUMNS = ("table_id", "hand_id", "record_hash", "revision", "table_name", "started_at", "first_decided_at",
                "status", "seats", "fouled", "naturals", "total_paid", "largest_payment", "revisions", "verdict_text")
RECORD_INSERT_COLUMNS = ("hash", "table_id", "seq", "kind", "hand_id", "created_at", "prev_hash", "shipped_at")


class Diverged(Exception):
    """The central chain of this table is not this kiosk's chain."""


class CentralSchemaMissing(Exception):
    pass


@dataclass(frozen=True, slots=True)
class ShipperState:
    table: str
    state: str  # starting | shipping | up to date | behind | offline | diverged | error | stopped
    shipped_seq: int | None = None  # newest seq PostgreSQL holds for this table
    local_seq: int | None = None  # newest seq this kiosk wrote
    last_ok_at: float | None = None  # the last time the central store answered
    error: str | None = None
    media_problems: int = 0  # media files that did not match their record (not copied)

    @property
    def behind(self) -> int | None:
        if self.shipped_seq is None or self.local_seq is None:
            return None
        return max(0, self.local_seq - self.shipped_seq)

    def to_json(self) -> dict:
        return {**asdict(self), "behind": self.behind}


def central_media_path(table: str, path: str, sha256: str) -> str:
    """Where a table's media file lives in the floor's folder (relative to it)."""
    p = Path(path)
    if p.is_absolute() or ".." in p.parts:
        return f"{safe_name(table)}/external/{sha256}{p.suffix}"
    return f"{safe_name(table)}/{p.as_posix()}"


class Shipper:
    """Ships one table's SQLite records to PostgreSQL; `start()` runs it in a background thread."""

    def __init__(self, store: HandStore, dsn: str, media_dir: str | Path, table: str, *, batch: int = 200,
                 interval: float = 0.5, retry: float = 5.0):
        self.store, self.dsn, self.table = store, dsn, table
        self.media_dir = Path(media_dir)
        self.batch, self.interval, self.retry = batch, interval, retry
        self._conn = None
        self._flags_shipped: list | None = None
        self._state = ShipperState(table, "starting")
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def from_config(cls, store: HandStore, cfg) -> "Shipper":
        c = cfg.records.central
        return cls(store, c.dsn, c.media_dir, c.table or cfg.table.name, batch=c.batch,
                   interval=c.interval_seconds, retry=c.retry_seconds)

    # -- running -------------------------------------------------------------------------

    def state(self) -> ShipperState:
        return self._state

    def start(self) -> "Shipper":
        self._thread = threading.Thread(target=self._loop, name="shipper", daemon=True)
        self._thread.start()
        return self

    def close(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._disconnect()
        self._set(state="stopped")

    def _loop(self) -> None:
        while not self._stop.is_set():
            wait = self.interval
            try:
                self.ship_once()
            except Exception as err:  # the link, the server, the disk: say so, wait, try again
                wait = self.retry
                self._failed(err)
            self._stop.wait(wait)

    def ship_once(self, max_batches: int | None = None) -> int:
        """Send what PostgreSQL lacks (all of it, or `max_batches` batches); returns records sent."""
        conn = self._connection()
        sent, batches = 0, 0
        while max_batches is None or batches < max_batches:
            n = self._ship_batch(conn)
            sent, batches = sent + n, batches + 1
            if n == 0 or self._stop.is_set():
                break
        self._ship_flags(conn)
        return sent

    def check(self) -> ShipperState:
        """Connect, check the schema and that the floor's newest record is this kiosk's; sends nothing."""
        try:
            head = self._central_head(self._connection())
            local = self.store.max_seq()
            self._set(state="up to date" if head >= local else "behind", shipped_seq=head, local_seq=local,
                      last_ok_at=time.time(), error=None)
        except Exception as err:
            self._failed(err)
        self._disconnect()
        return self._state

    def ship_all(self) -> int:
        """Until caught up; errors propagate (`kiosk floor ship`)."""
        return self.ship_once()

    # -- one batch -----------------------------------------------------------------------

    def _ship_batch(self, conn) -> int:
        head = self._central_head(conn)
        self._set(shipped_seq=head, local_seq=self.store.max_seq(), last_ok_at=time.time(), error=None)
        batch = self.store.export_after(head, self.batch)
        if not batch:
            self._set(state="up to date")
            return 0
        self._set(state="shipping")
        paths = self._copy_media(batch)
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (self.table,))
            if self._central_head(conn) != head:  # another shipper of this table got there first
                return 0
            self._insert(conn, batch, paths)
        last = batch[-1][0]
        self.store.set_meta(SHIPPED_KEY, str(last["seq"]))
        self._set(shipped_seq=last["seq"], last_ok_at=time.time())
        return len(batch)

    def _central_head(self, conn) -> int:
        row = conn.execute("SELECT seq, hash FROM records WHERE table_id = %s ORDER BY seq DESC LIMIT 1",
                           (self.table,)).fetchone()
        if row is None:
            return 0
        seq, central_hash = row
        local_hash = self.store.record_hash(seq)
        if local_hash is None and seq > self.store.max_seq():
            raise Diverged(f"the floor holds record {seq} of table {self.table}, which this kiosk never wrote: "
                           f"is another kiosk using the name {self.table}?")
        if local_hash is not None and local_hash != central_hash:
            raise Diverged(f"record {seq} of table {self.table} differs between this kiosk and the floor: "
                           "is another kiosk using this name, or was the record database replaced?")
        return seq

    def _copy_media(self, batch) -> dict[tuple[int, int], str | None]:
        """Copy each media file of the batch to the floor's folder, checked by hash, on disk before
        any record names it."""
        paths = {}
        for record, children in batch:
            for m in children.get("media", []):
                paths[(m["seq"], m["position"])] = self._copy_one(m)
        if paths:
            sync_filesystem(self.media_dir)
        return paths

    def _copy_one(self, m: dict) -> str | None:
        rel = central_media_path(self.table, m["path"], m["sha256"])
        dest = self.media_dir / rel
        if dest.exists() and file_sha256(dest) == m["sha256"]:
            return rel
        source = self.store.media_abspath(m["path"])
        try:
            data = source.read_bytes()
        except OSError:
            data = None

        if data is None or bytes_sha256(data) != m["sha256"]:
            log.warning("record %s: %s does not match its record; the floor gets the record without it",
                        m["seq"], source)
            self._set(media_problems=self._state.media_problems + 1)
            return None
        write_unsynced(dest, data)
        if file_sha256(dest) != m["sha256"]:
            raise OSError(f"the copy of {source} in {self.media_dir} does not match its sha256")
        return rel

    def _insert(self, conn, batch, paths) -> None:
        now = time.time()
        records = [(r["hash"], self.table, r["seq"], r["kind"], r["hand_id"], r["created_at"], r["prev_hash"], now)
                   for r, _ in batch]
        taken = conn.execute("SELECT table_id FROM records WHERE hash = ANY(%s) LIMIT 1",
                             ([r[0] for r in records],)).fetchone()
        if taken:
            raise Diverged(f"these records are on the floor already as table {taken[0]}'s: "
                           f"one record database shipped under two names ({self.table})")
        # Under the table's lock, after the head was checked: none of these rows can be there yet.
        _copy_direct(conn, "records", RECORD_INSERT_COLUMNS, records)
        hashes = {r["seq"]: r["hash"] for r, _ in batch}
        for table in CHILD_TABLES:
            rows = [row for _, children in batch for row in children.get(table, [])]
            if not rows:
                continue
            cols = child_columns(table)
            if tuple(rows[0].keys()) != cols:
                raise ValueError(f"the record database's {table} columns are not this kiosk's schema")
            if table == "media":
                values = [(hashes[r[0]], self.table, *r, paths.get((r["seq"], r["position"]))) for r in rows]
                _copy_direct(conn, table, ("record_hash", "table_id", *cols, "central_path"), values)
            else:
                _copy_direct(conn, table, ("record_hash", "table_id", *cols), [(hashes[r[0]], self.table, *r)
                                                                               for r in rows])
        _upsert_hands(conn, self.table, [(r, c["verdicts"][0]) for r, c in batch if c.get("verdicts")])
        _count_corrections(conn, self.table, {r["hand_id"] for r, _ in batch if r["hand_id"]})
        last = batch[-1][0]
        conn.execute(
            "INSERT INTO floor_tables VALUES (%s, %s, %s, %s) ON CONFLICT (table_id) DO UPDATE SET "
            "head_seq = EXCLUDED.head_seq, head_hash = EXCLUDED.head_hash, shipped_at = EXCLUDED.shipped_at",
            (self.table, last["seq"], last["hash"], now))

    def _ship_flags(self, conn) -> None:
        """Mirror the table's review flags (operational state: replaced, not appended)."""
        flags = [(f.hand_id, f.flagged_at, f.by, f.note) for f in self.store.review_flags()]
        if flags == self._flags_shipped:
            return
        with conn.transaction():
            conn.execute("DELETE FROM review_flags WHERE table_id = %s", (self.table,))
            if flags:
                with conn.cursor() as cur:
                    cur.executemany("INSERT INTO review_flags VALUES (%s, %s, %s, %s, %s)",
                                    [(self.table, *f) for f in flags])
        self._flags_shipped = flags

    # -- connection and state --------------------------------------------------------------

    def _connection(self):
        if self._conn is not None and not self._conn.closed and not self._conn.broken:
            return self._conn
        import psycopg

        self._disconnect()
        conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=5,
                               application_name=f"kiosk-shipper {self.table}")
        row = conn.execute("SELECT to_regclass('kiosk_meta') IS NOT NULL").fetchone()
        version = conn.execute("SELECT value FROM kiosk_meta WHERE key = 'schema_version'").fetchone() \
            if row[0] else None
        if version is None or version[0] != SCHEMA_VERSION:
            conn.close()
            raise CentralSchemaMissing("the central database has no kiosk schema (version "
                                       f"{SCHEMA_VERSION}): run 'kiosk floor init' against it (docs/records.md)")
        self._conn, self._flags_shipped = conn, None
        return conn

    def _disconnect(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:
                pass
        self._conn = None

    def _failed(self, err: Exception) -> None:
        import psycopg

        self._disconnect()
        if isinstance(err, Diverged):
            state, message = "diverged", str(err)
        elif isinstance(err, psycopg.OperationalError):
            state, message = "offline", f"cannot reach the central database: {str(err).strip().splitlines()[0]}"
        else:
            state, message = "error", f"{type(err).__name__}: {str(err).strip()}"
        if message != self._state.error:
            log.warning("shipper (%s): %s", self.table, message)
        self._set(state=state, error=message, local_seq=self.store.max_seq())

    def _set(self, **changes) -> None:
        self._state = replace(self._state, **changes)


def _copy_direct(conn, table: str, columns: tuple[str, ...], rows: list[tuple]) -> None:
    if rows:
        with conn.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)


def _copy_in(conn, table: str, columns: tuple[str, ...], rows: list[tuple],
             conflict: str = "ON CONFLICT DO NOTHING") -> int:
    """COPY rows into a per-session staging table, then insert the ones not there yet; returns how many."""
    if not rows:
        return 0
    cols = ", ".join(columns)
    stage = f"stage_{table}"
    with conn.cursor() as cur:
        cur.execute(f"CREATE TEMP TABLE IF NOT EXISTS {stage} (LIKE {table} INCLUDING DEFAULTS) "
                    "ON COMMIT DELETE ROWS")
        with cur.copy(f"COPY {stage} ({cols}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        cur.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM {stage} {conflict}")
        return cur.rowcount


def _count_corrections(conn, table: str, hands: set[str]) -> None:
    """Each touched hand's number of dealer corrections, counted from the actions the floor holds."""
    if hands:
        conn.execute(
            "UPDATE floor_hands h SET corrections = (SELECT count(*) FROM actions a WHERE a.table_id = h.table_id "
            "AND a.hand_id = h.hand_id AND a.kind = 'correct_card') WHERE h.table_id = %s AND h.hand_id = ANY(%s)",
            (table, list(hands)))


def _upsert_hands(conn, table: str, verdicts: list[tuple[dict, dict]]) -> None:
    """The floor's search row of each hand: its newest revision (derived, not chained)."""
    newest: dict[str, tuple] = {}
    for r, v in verdicts:  # in seq order: a later revision of the same hand replaces an earlier one
        first = newest[v["hand_id"]][6] if v["hand_id"] in newest else v["decided_at"]
        newest[v["hand_id"]] = (
            table, v["hand_id"], r["hash"], v["revision"], v["table_name"], v["started_at"], first,
            v["status"], v["seats"], v["fouled"], v["naturals"], v["total_paid"], v["largest_payment"],
            v["revision"] + 1,
            verdict_text(json.loads(v["result_json"]), json.loads(v["needs_check_json"])).lower())
    updated = ", ".join(f"{c} = EXCLUDED.{c}" for c in (
        "record_hash", "revision", "table_name", "status", "seats", "fouled", "naturals", "total_paid",
        "largest_payment", "revisions", "verdict_text"))
    _copy_in(conn, "floor_hands", HAND_COLUMNS, list(newest.values()),
             f"ON CONFLICT (table_id, hand_id) DO UPDATE SET {updated} WHERE floor_hands.revision < EXCLUDED.revision")
