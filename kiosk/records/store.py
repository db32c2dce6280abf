"""Hand records in one SQLite file (WAL), append-only and hash-chained.

Every stored fact is a *record* in `records` (seq, kind, prev_hash, hash), with its
details in rows keyed by that seq:

- `verdict`: one published verdict of a hand (`verdicts`, its card `evidence`, its `media`:
  key frame and showdown clip with their sha256). Revision 0 is the verdict as first
  decided; a verdict republished after a dealer action is a new revision, a new record.
- `action`: one dealer action (`actions`, with before/after, by, at, accepted or not).
- `checkpoint`: retention removed some records (`checkpoints` lists each removed run with
  the hashes that link across it).

Nothing chained is ever updated in place. `hands` is a view: the newest revision of each
hand. Review flags (`review_flags`) are operational state, not chained: a flagged hand is
never pruned.

Each record is written in one transaction (`BEGIN IMMEDIATE`, so writers in several
processes queue up and the chain stays linear); the file runs in WAL mode with
`synchronous=FULL`, so a committed record survives a crash or power loss, and a kill
mid-transaction leaves the previous state.
"""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from kiosk.errors import KioskError
from kiosk.records.private import private_db, private_dir
from kiosk.records.chain import (
    GENESIS,
    ChainEntry,
    ChainProblem,
    PrunedRun,
    canonical_json,
    file_sha256,
    link_hash,
    verify_chain,
)
from kiosk.records.connections import PerThread
from kiosk.records.media import MediaFile
from kiosk.records.summary import seat_list_text, summarize, verdict_text
from kiosk.table.actions import DealerAction
from kiosk.table.verdict import CardEvidence, NeedsCheck, Verdict

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('verdict', 'action', 'checkpoint')),
    hand_id TEXT,
    created_at REAL NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_hand ON records(hand_id);
CREATE TABLE IF NOT EXISTS verdicts (
    seq INTEGER PRIMARY KEY REFERENCES records(seq),
    hand_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    table_name TEXT NOT NULL,
    started_at REAL,
    decided_at REAL NOT NULL,
    frame_index INTEGER NOT NULL,
    config_json TEXT NOT NULL,
    config_digest TEXT NOT NULL,
    model_version TEXT NOT NULL,
    showdown_json TEXT NOT NULL,
    result_json TEXT NOT NULL,
    needs_check_json TEXT NOT NULL,
    integrity_json TEXT NOT NULL,
    meta_json TEXT NOT NULL,
    status TEXT NOT NULL,
    seats TEXT NOT NULL,
    fouled TEXT NOT NULL,
    naturals TEXT NOT NULL,
    total_paid REAL NOT NULL,
    largest_payment REAL NOT NULL,
    UNIQUE (hand_id, revision)
);
CREATE INDEX IF NOT EXISTS verdicts_decided ON verdicts(decided_at);
CREATE TABLE IF NOT EXISTS evidence (
    seq INTEGER NOT NULL REFERENCES records(seq),
    position INTEGER NOT NULL,
    card TEXT NOT NULL,
    seat INTEGER NOT NULL,
    row TEXT NOT NULL,
    frame_index INTEGER NOT NULL,
    x1 REAL NOT NULL, y1 REAL NOT NULL, x2 REAL NOT NULL, y2 REAL NOT NULL,
    confidence REAL NOT NULL,
    votes INTEGER NOT NULL,
    PRIMARY KEY (seq, position)
);
CREATE TABLE IF NOT EXISTS media (
    seq INTEGER NOT NULL REFERENCES records(seq),
    position INTEGER NOT NULL,
    role TEXT NOT NULL,
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    frame_index INTEGER,
    meta_json TEXT NOT NULL,
    PRIMARY KEY (seq, position)
);
CREATE TABLE IF NOT EXISTS actions (
    seq INTEGER PRIMARY KEY REFERENCES records(seq),
    hand_id TEXT,
    kind TEXT NOT NULL,
    seat INTEGER,
    row TEXT,
    idx INTEGER,
    before_card TEXT,
    after_card TEXT,
    by_whom TEXT,
    at REAL NOT NULL,
    value_json TEXT NOT NULL,
    extra_json TEXT NOT NULL,
    ok INTEGER NOT NULL,
    message TEXT NOT NULL,
    frame_index INTEGER
);
CREATE INDEX IF NOT EXISTS actions_hand ON actions(hand_id);
CREATE TABLE IF NOT EXISTS checkpoints (
    seq INTEGER PRIMARY KEY REFERENCES records(seq),
    runs_json TEXT NOT NULL,
    pruned_hands_json TEXT NOT NULL,
    reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS review_flags (
    hand_id TEXT PRIMARY KEY,
    flagged_at REAL NOT NULL,
    by_whom TEXT NOT NULL,
    note TEXT NOT NULL
);
CREATE VIEW IF NOT EXISTS hands AS
    SELECT v.*, r.prev_hash AS prev_hash, r.hash AS hash,
           (SELECT MIN(v0.decided_at) FROM verdicts v0 WHERE v0.hand_id = v.hand_id) AS first_decided_at,
           (SELECT COUNT(*) FROM verdicts v1 WHERE v1.hand_id = v.hand_id) AS revisions,
           (SELECT COUNT(*) FROM actions a WHERE a.hand_id = v.hand_id AND a.kind = 'correct_card') AS corrections,
           (SELECT COUNT(*) FROM review_flags f WHERE f.hand_id = v.hand_id) AS under_review
    FROM verdicts v JOIN records r ON r.seq = v.seq
    WHERE v.revision = (SELECT MAX(v2.revision) FROM verdicts v2 WHERE v2.hand_id = v.hand_id);
"""

# Tables whose rows belong to a record (keyed by seq) and are covered by its hash.
CHILD_TABLES = {
    "verdicts": "seq",
    "evidence": "position",
    "media": "position",
    "actions": "seq",
    "checkpoints": "seq",
}


def verdict_status(verdict: Verdict) -> str:
    if "error" in verdict.result:
        return "unscored"
    if verdict.integrity:
        return "integrity"
    if verdict.needs_check:
        return "needs_check"
    return "confident"


def _json(value) -> str:
    return canonical_json(value)


def _jsonable(value):
    """DealerAction values may be tuples or other plain data; keep them JSON."""
    try:
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return str(value)


@dataclass(frozen=True, slots=True)
class VerdictRecord:
    seq: int
    hand_id: str
    revision: int
    verdict: Verdict
    started_at: float | None
    config: dict
    status: str
    hash: str
    prev_hash: str
    created_at: float
    media: tuple[MediaFile, ...] = ()


@dataclass(frozen=True, slots=True)
class ActionRecord:
    seq: int
    action: DealerAction
    ok: bool
    message: str
    frame_index: int | None
    hash: str
    created_at: float


@dataclass(frozen=True, slots=True)
class ReviewFlag:
    hand_id: str
    flagged_at: float
    by: str
    note: str


@dataclass(frozen=True, slots=True)
class HandListing:
    """One line of the hands list: the newest revision of a hand."""

    hand_id: str
    table: str
    started_at: float | None
    decided_at: float
    status: str
    seats: tuple[int, ...]
    fouled: tuple[int, ...]
    naturals: tuple[int, ...]
    total_paid: float
    largest_payment: float
    revisions: int
    corrections: int
    under_review: bool
    hash: str

    @classmethod
    def from_row(cls, r, table: str, hash: str) -> "HandListing":
        """A listing from a hands row (SQLite's or the floor's: the two name the table and the hash apart)."""
        return cls(
            hand_id=r["hand_id"], table=table, started_at=r["started_at"], decided_at=r["first_decided_at"],
            status=r["status"], seats=_seats(r["seats"]), fouled=_seats(r["fouled"]), naturals=_seats(r["naturals"]),
            total_paid=r["total_paid"], largest_payment=r["largest_payment"], revisions=r["revisions"],
            corrections=r["corrections"], under_review=bool(r["under_review"]), hash=hash,
        )


@dataclass(frozen=True, slots=True)
class HandRecord:
    hand_id: str
    revisions: tuple[VerdictRecord, ...]  # oldest first
    actions: tuple[ActionRecord, ...]  # in the order they happened
    flag: ReviewFlag | None

    @property
    def latest(self) -> VerdictRecord:
        return self.revisions[-1]

    @property
    def first(self) -> VerdictRecord:
        return self.revisions[0]


@dataclass(frozen=True, slots=True)
class HandQuery:
    text: str | None = None  # part of the hand id
    since: float | None = None  # unix time, on the hand's first decision
    until: float | None = None
    seat: int | None = None  # the seat played (with foul/natural: fouled/natural at that seat)
    foul: bool | None = None
    natural: bool | None = None
    min_amount: float | None = None  # largest single payment at least this
    status: str | None = None
    under_review: bool | None = None
    table: str | None = None  # the table's name, exactly
    verdict_text: str | None = None  # words of the rulings (rule lines, needs-check reasons), any case
    disputed: bool | None = None  # a dealer correction or under review
    limit: int = 50
    offset: int = 0


@dataclass(frozen=True, slots=True)
class VerifyResult:
    count: int  # records checked
    head: str  # hash of the newest record
    problem: ChainProblem | None = None
    media_checked: int = 0

    @property
    def ok(self) -> bool:
        return self.problem is None


def _seats(text: str) -> tuple[int, ...]:
    return tuple(int(s) for s in text.strip(",").split(",") if s)


class HandStore:
    """The record database. Safe to share between threads (one connection per thread)."""

    def __init__(self, path: str | Path, media_dir: str | Path | None = None, *, create: bool = True):
        self.path = Path(path)
        if not create and not self.path.exists():
            raise KioskError(f"no record database at {self.path}", exit_code=2)
        try:
            if not self.path.parent.exists():
                private_dir(self.path.parent)
            if create or self.path.exists():
                private_db(self.path)
        except OSError as err:
            raise KioskError(f"cannot create the folder for {self.path}: {err.strerror or err}") from None
        self.base_dir = self.path.parent.resolve()
        self.media_dir = Path(media_dir) if media_dir is not None else self.base_dir / "media"
        self._conns = PerThread(self._open, close_errors=(sqlite3.Error,))
        try:
            conn = self._conn()
            conn.executescript(SCHEMA)
            conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        except sqlite3.DatabaseError as err:
            raise KioskError(f"{self.path} is not a usable record database: {err}", exit_code=2) from None

    # -- connections ---------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        return self._conns.get()

    def _open(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            # FULL: the WAL is fsynced on every commit, so a decided hand survives power loss,
            # not only a crash of this process. One fsync per hand is cheap.
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.create_function("verdict_text", 2, _verdict_text_sql, deterministic=True)
        except sqlite3.DatabaseError as err:
            raise KioskError(f"{self.path} is not a usable record database: {err}", exit_code=2) from None
        return conn

    def close(self) -> None:
        self._conns.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # -- writing -------------------------------------------------------------------------

    def _append(self, conn: sqlite3.Connection, kind: str, hand_id: str | None, created_at: float, fill) -> int:
        last = conn.execute("SELECT hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        prev_hash = last[0] if last else GENESIS
        cur = conn.execute(
            "INSERT INTO records(kind, hand_id, created_at, prev_hash, hash) VALUES (?, ?, ?, ?, '')",
            (kind, hand_id, float(created_at), prev_hash),
        )
        seq = cur.lastrowid
        fill(conn, seq)
        payload = self._payload(conn, seq)
        conn.execute("UPDATE records SET hash = ? WHERE seq = ?", (link_hash(prev_hash, payload), seq))
        return seq

    def next_revision(self, hand_id: str) -> int:
        row = self._conn().execute("SELECT MAX(revision) FROM verdicts WHERE hand_id = ?", (hand_id,)).fetchone()
        return 0 if row[0] is None else row[0] + 1

    def append_verdict(
        self,
        verdict: Verdict,
        *,
        config: dict | None = None,
        started_at: float | None = None,
        media: Sequence[MediaFile] = (),
        actions: Sequence[tuple[DealerAction, bool, str, int | None]] = (),
        created_at: float | None = None,
    ) -> int:
        """Record one verdict (the next revision of its hand) in one transaction; returns its seq.

        `actions` are dealer actions to record in the same transaction, before the verdict.
        """
        created_at = time.time() if created_at is None else created_at
        summary = summarize(verdict.showdown, verdict.result)

        def fill(conn, seq):
            row = conn.execute("SELECT MAX(revision) FROM verdicts WHERE hand_id = ?", (verdict.hand_id,)).fetchone()
            revision = 0 if row[0] is None else row[0] + 1
            conn.execute(
                "INSERT INTO verdicts VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    seq, verdict.hand_id, revision, verdict.table, started_at, float(verdict.decided_at),
                    int(verdict.frame_index), _json(config or {}), verdict.config_digest, verdict.model_version,
                    _json(verdict.showdown), _json(verdict.result),
                    _json([_plain(n) for n in verdict.needs_check]), _json(list(verdict.integrity)),
                    _json(_jsonable(verdict.meta)), verdict_status(verdict),
                    seat_list_text(summary.seats), seat_list_text(summary.fouled), seat_list_text(summary.naturals),
                    summary.total_paid, summary.largest_payment,
                ),
            )
            conn.executemany(
                "INSERT INTO evidence VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (seq, i, e.card, int(e.seat), e.row, int(e.frame_index), *map(float, e.box),
                     float(e.confidence), int(e.votes))
                    for i, e in enumerate(verdict.evidence)
                ],
            )
            conn.executemany(
                "INSERT INTO media VALUES (?,?,?,?,?,?,?,?)",
                [
                    (seq, i, m.role, m.path, m.sha256, int(m.bytes), m.frame_index, _json(m.meta or {}))
                    for i, m in enumerate(media)
                ],
            )

        with self._write() as conn:
            for action, ok, message, frame_index in actions:
                self._append_action(conn, action, ok, message, frame_index, created_at)
            return self._append(conn, "verdict", verdict.hand_id, created_at, fill)

    def append_action(
        self, action: DealerAction, ok: bool = True, message: str = "", frame_index: int | None = None,
        created_at: float | None = None,
    ) -> int:
        created_at = time.time() if created_at is None else created_at
        with self._write() as conn:
            return self._append_action(conn, action, ok, message, frame_index, created_at)

    def _append_action(self, conn, action: DealerAction, ok, message, frame_index, created_at) -> int:
        def fill(conn, seq):
            conn.execute(
                "INSERT INTO actions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    seq, action.hand_id, action.kind, action.seat, action.row, action.index, action.before,
                    action.after, action.by, float(action.at or created_at), _json(_jsonable(action.value)),
                    _json(_jsonable(action.extra)), 1 if ok else 0, message or "", frame_index,
                ),
            )

        return self._append(conn, "action", action.hand_id, created_at, fill)

    # -- retention support ---------------------------------------------------------------

    def prune_records(self, seqs: Iterable[int], pruned_hands: Sequence[str], reason: str,
                      created_at: float | None = None) -> tuple[int | None, list[Path]]:
        """Remove records, leaving a checkpoint that keeps the chain verifiable.

        In one transaction: append the checkpoint (while the records it names still exist),
        then delete them. Returns the checkpoint's seq and the media files the removed
        records referenced (the caller deletes them once this has committed).
        """
        seqs = sorted(set(seqs))
        if not seqs:
            return None, []
        created_at = time.time() if created_at is None else created_at
        with self._write() as conn:
            placeholders = ",".join("?" * len(seqs))
            stored = {
                r["seq"]: (r["prev_hash"], r["hash"], r["kind"])
                for r in conn.execute(f"SELECT seq, prev_hash, hash, kind FROM records WHERE seq IN ({placeholders})", seqs)
            }
            if any(kind == "checkpoint" for _, _, kind in stored.values()):
                raise ValueError("checkpoint records are never pruned")
            runs: list[list[int]] = []
            for seq in seqs:
                if seq not in stored:
                    continue
                if runs and runs[-1][1] == seq - 1:
                    runs[-1][1] = seq
                else:
                    runs.append([seq, seq])
            run_rows = [
                {"first": a, "last": b, "prev_hash": stored[a][0], "last_hash": stored[b][1]} for a, b in runs
            ]
            files = [
                self.media_abspath(r["path"])
                for r in conn.execute(f"SELECT path FROM media WHERE seq IN ({placeholders})", seqs)
            ]

            def fill(conn, seq):
                conn.execute(
                    "INSERT INTO checkpoints VALUES (?,?,?,?)",
                    (seq, _json(run_rows), _json(sorted(set(pruned_hands))), reason),
                )

            checkpoint = self._append(conn, "checkpoint", None, created_at, fill)
            for table in ("evidence", "media", "verdicts", "actions"):
                conn.execute(f"DELETE FROM {table} WHERE seq IN ({placeholders})", seqs)
            conn.execute(f"DELETE FROM records WHERE seq IN ({placeholders})", seqs)
        return checkpoint, files

    # -- shipping to the floor's central store (kiosk/records/shipper.py) ---------------

    def meta(self, key: str) -> str | None:
        row = self._conn().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._write() as conn:
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def max_seq(self) -> int:
        """The highest seq ever handed out (SQLite's AUTOINCREMENT counter), 0 for a new store."""
        row = self._conn().execute("SELECT seq FROM sqlite_sequence WHERE name = 'records'").fetchone()
        return row[0] if row else 0

    def record_hash(self, seq: int) -> str | None:
        row = self._conn().execute("SELECT hash FROM records WHERE seq = ?", (seq,)).fetchone()
        return row[0] if row else None

    def export_after(self, seq: int, limit: int) -> list[tuple[sqlite3.Row, dict[str, list[sqlite3.Row]]]]:
        """Up to `limit` records after `seq`, oldest first: (record row, {child table: rows}), as stored
        (`sqlite3.Row`: by column name or, in the schema's column order, by position)."""
        conn = self._conn()
        conn.execute("BEGIN")  # one snapshot: a record and its rows together
        try:
            records = conn.execute("SELECT * FROM records WHERE seq > ? ORDER BY seq LIMIT ?",
                                   (seq, int(limit))).fetchall()
            if not records:
                return []
            first, last = records[0]["seq"], records[-1]["seq"]
            children: dict[int, dict[str, list[sqlite3.Row]]] = {r["seq"]: {} for r in records}
            for table, order in CHILD_TABLES.items():
                for r in conn.execute(
                        f"SELECT * FROM {table} WHERE seq BETWEEN ? AND ? ORDER BY seq, {order}", (first, last)):
                    if r[0] in children:  # seq is every child table's first column
                        children[r[0]].setdefault(table, []).append(r)
        finally:
            conn.execute("COMMIT")
        return [(r, children[r["seq"]]) for r in records]

    def review_flags(self) -> list[ReviewFlag]:
        return [ReviewFlag(r["hand_id"], r["flagged_at"], r["by_whom"], r["note"])
                for r in self._conn().execute("SELECT * FROM review_flags ORDER BY hand_id")]

    # -- review flags (operational state, not chained) ----------------------------------

    def flag(self, hand_id: str, by: str = "floor", note: str = "", at: float | None = None) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO review_flags VALUES (?,?,?,?)",
                (hand_id, time.time() if at is None else at, by or "floor", note or ""),
            )

    def unflag(self, hand_id: str) -> None:
        with self._write() as conn:
            conn.execute("DELETE FROM review_flags WHERE hand_id = ?", (hand_id,))

    def flagged(self) -> set[str]:
        return {r[0] for r in self._conn().execute("SELECT hand_id FROM review_flags")}

    # -- reading -------------------------------------------------------------------------

    def media_abspath(self, path: str) -> Path:
        p = Path(path)
        return p if p.is_absolute() else self.base_dir / p

    def media_relpath(self, path: Path) -> str:
        path = Path(path).resolve()
        try:
            return str(path.relative_to(self.base_dir))
        except ValueError:
            return str(path)

    def count(self, kind: str | None = None) -> int:
        if kind:
            return self._conn().execute("SELECT COUNT(*) FROM records WHERE kind = ?", (kind,)).fetchone()[0]
        return self._conn().execute("SELECT COUNT(*) FROM records").fetchone()[0]

    def hand_ids(self) -> list[str]:
        rows = self._conn().execute(
            "SELECT hand_id FROM verdicts WHERE revision = 0 ORDER BY seq"
        ).fetchall()
        return [r[0] for r in rows]

    def list_hands(self, query: HandQuery = HandQuery()) -> list[HandListing]:
        where, args = [], []
        if query.text:
            where.append("hand_id LIKE ? ESCAPE '\\'")
            args.append("%" + query.text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        if query.since is not None:
            where.append("first_decided_at >= ?")
            args.append(query.since)
        if query.until is not None:
            where.append("first_decided_at < ?")
            args.append(query.until)
        seat_pat = f"%,{query.seat},%" if query.seat is not None else None
        for column, wanted in (("fouled", query.foul), ("naturals", query.natural)):
            if wanted is True:
                where.append(f"{column} LIKE ?" if seat_pat else f"{column} != ''")
                if seat_pat:
                    args.append(seat_pat)
            elif wanted is False:
                where.append(f"{column} NOT LIKE ?" if seat_pat else f"{column} = ''")
                if seat_pat:
                    args.append(seat_pat)
        if seat_pat:
            where.append("seats LIKE ?")
            args.append(seat_pat)
        if query.min_amount is not None:
            where.append("largest_payment >= ?")
            args.append(query.min_amount)
        if query.status:
            where.append("status = ?")
            args.append(query.status)
        if query.under_review is not None:
            where.append("under_review > 0" if query.under_review else "under_review = 0")
        if query.table:
            where.append("table_name = ?")
            args.append(query.table)
        if query.disputed is not None:
            where.append("(corrections > 0 OR under_review > 0)" if query.disputed else
                         "(corrections = 0 AND under_review = 0)")
        if query.verdict_text:
            where.append("instr(verdict_text(result_json, needs_check_json), ?) > 0")
            args.append(query.verdict_text.lower())
        sql = "SELECT * FROM hands"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY first_decided_at DESC, seq DESC LIMIT ? OFFSET ?"
        args += [int(query.limit), int(query.offset)]
        return [HandListing.from_row(r, r["table_name"], r["hash"]) for r in self._conn().execute(sql, args)]

    def hand(self, hand_id: str) -> HandRecord | None:
        conn = self._conn()
        rows = conn.execute(
            "SELECT v.*, r.hash, r.prev_hash, r.created_at FROM verdicts v JOIN records r ON r.seq = v.seq "
            "WHERE v.hand_id = ? ORDER BY v.revision",
            (hand_id,),
        ).fetchall()
        if not rows:
            return None
        revisions = tuple(self._verdict_record(conn, r) for r in rows)
        actions = tuple(
            action_record(r)
            for r in conn.execute(
                "SELECT a.*, r.hash, r.created_at FROM actions a JOIN records r ON r.seq = a.seq "
                "WHERE a.hand_id = ? ORDER BY a.seq",
                (hand_id,),
            )
        )
        flag = conn.execute("SELECT * FROM review_flags WHERE hand_id = ?", (hand_id,)).fetchone()
        return HandRecord(
            hand_id, revisions, actions,
            ReviewFlag(flag["hand_id"], flag["flagged_at"], flag["by_whom"], flag["note"]) if flag else None,
        )

    def _verdict_record(self, conn, r) -> VerdictRecord:
        evidence = conn.execute("SELECT * FROM evidence WHERE seq = ? ORDER BY position", (r["seq"],)).fetchall()
        media = conn.execute("SELECT * FROM media WHERE seq = ? ORDER BY position", (r["seq"],)).fetchall()
        return verdict_record(r, evidence, media)

    def hand_media_files(self) -> list[tuple[str, Path, int]]:
        """(hand id, absolute path, bytes) of every media file a record references."""
        return [
            (r["hand_id"], self.media_abspath(r["path"]), r["bytes"])
            for r in self._conn().execute(
                "SELECT r.hand_id, m.path, m.bytes FROM media m JOIN records r ON r.seq = m.seq"
            )
        ]

    def db_bytes(self) -> int:
        """Bytes the database uses (pages in use, plus the WAL file)."""
        conn = self._conn()
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        wal = self.path.with_name(self.path.name + "-wal")
        return (pages - free) * page_size + (wal.stat().st_size if wal.exists() else 0)

    def hands_oldest_first(self) -> list[tuple[str, float, list[int], int]]:
        """(hand id, first record time, its record seqs, its media bytes), oldest hand first.

        Actions recorded without a hand id count as their own 'hand' ("", time, [seq]).
        """
        conn = self._conn()
        groups: dict[str, list] = {}
        for r in conn.execute("SELECT seq, hand_id, created_at, kind FROM records WHERE kind != 'checkpoint' ORDER BY seq"):
            key = r["hand_id"] if r["hand_id"] is not None else f"\0{r['seq']}"
            g = groups.setdefault(key, [r["hand_id"] or "", r["created_at"], [], 0])
            g[2].append(r["seq"])
        for r in conn.execute("SELECT r.hand_id, r.seq, m.bytes FROM media m JOIN records r ON r.seq = m.seq"):
            key = r["hand_id"] if r["hand_id"] is not None else f"\0{r['seq']}"
            if key in groups:
                groups[key][3] += r["bytes"]
        return sorted((tuple(g) for g in groups.values()), key=lambda g: (g[1], g[2][0]))

    # -- verifying -----------------------------------------------------------------------

    def _payload(self, conn, seq: int, rows_by_table: dict | None = None) -> dict:
        """The canonical content of record `seq`: its record row (less its hash) and child rows."""
        record = conn.execute(
            "SELECT seq, kind, hand_id, created_at, prev_hash FROM records WHERE seq = ?", (seq,)
        ).fetchone()
        payload = {"record": dict(record)}
        for table, order in CHILD_TABLES.items():
            if rows_by_table is not None:
                rows = rows_by_table[table].get(seq, [])
            else:
                rows = [dict(r) for r in conn.execute(f"SELECT * FROM {table} WHERE seq = ? ORDER BY {order}", (seq,))]
            if rows:
                payload[table] = rows
        return payload

    def verify(self, check_media: bool = True) -> VerifyResult:
        """Check every record against the chain (and each media file against its sha256)."""
        conn = self._conn()
        conn.execute("BEGIN")  # one consistent snapshot, even while a recorder writes
        try:
            return self._verify(conn, check_media)
        finally:
            conn.execute("COMMIT")

    def _verify(self, conn, check_media: bool) -> VerifyResult:
        rows_by_table: dict[str, dict[int, list[dict]]] = {}
        for table, order in CHILD_TABLES.items():
            grouped: dict[int, list[dict]] = {}
            for r in conn.execute(f"SELECT * FROM {table} ORDER BY seq, {order}"):
                grouped.setdefault(r["seq"], []).append(dict(r))
            rows_by_table[table] = grouped
        records = conn.execute("SELECT * FROM records ORDER BY seq").fetchall()
        known = {r["seq"] for r in records}
        labels, entries = {}, []
        for r in records:
            seq = r["seq"]
            payload = {"record": {k: r[k] for k in ("seq", "kind", "hand_id", "created_at", "prev_hash")}}
            for table in CHILD_TABLES:
                rows = rows_by_table[table].get(seq)
                if rows:
                    payload[table] = rows
            label = record_label(r, rows_by_table)
            labels[seq] = label
            entries.append(ChainEntry(seq, r["prev_hash"], r["hash"], link_hash(r["prev_hash"], payload), label))
        runs = []
        for rows in rows_by_table["checkpoints"].values():
            for run in json.loads(rows[0]["runs_json"]):
                runs.append(PrunedRun(run["first"], run["last"], run["prev_hash"], run["last_hash"]))
        seq_row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'records'").fetchone()
        max_seq = max(seq_row[0] if seq_row else 0, max(known, default=0))
        problems = []
        problem = verify_chain(entries, runs, max_seq)
        if problem:
            problems.append(problem)
        # Rows whose record is gone (a record row deleted, its details left behind).
        for table in CHILD_TABLES:
            for seq in rows_by_table[table]:
                if seq not in known:
                    problems.append(ChainProblem(seq, f"record {seq} was removed (its {table} rows remain)"))
                    break
        checked = 0
        if check_media:
            for seq, rows in sorted(rows_by_table["media"].items()):
                for m in rows:
                    path = self.media_abspath(m["path"])
                    what = f"record {seq} ({labels.get(seq, '?')}): {m['role'].replace('_', ' ')} {m['path']}"
                    if not path.exists():
                        problems.append(ChainProblem(seq, f"{what} was removed"))
                        break
                    checked += 1
                    if file_sha256(path) != m["sha256"]:
                        problems.append(ChainProblem(seq, f"{what} was altered (its sha256 differs from the record)"))
                        break
        head = records[-1]["hash"] if records else GENESIS
        first = min(problems, key=lambda p: p.seq) if problems else None
        return VerifyResult(count=len(records), head=head, problem=first, media_checked=checked)


def verdict_record(r, evidence_rows, media_rows, media_path=lambda m: m["path"]) -> VerdictRecord:
    """A VerdictRecord from its stored rows (a verdicts row joined with its record's hash, prev_hash,
    created_at; its evidence and media rows). `media_path` says where each media file is read from."""
    evidence = tuple(
        CardEvidence(e["card"], e["seat"], e["row"], e["frame_index"], (e["x1"], e["y1"], e["x2"], e["y2"]),
                     e["confidence"], e["votes"])
        for e in evidence_rows
    )
    media = tuple(
        MediaFile(m["role"], media_path(m), m["sha256"], m["bytes"], m["frame_index"], json.loads(m["meta_json"]))
        for m in media_rows
    )
    verdict = Verdict(
        hand_id=r["hand_id"], table=r["table_name"], decided_at=r["decided_at"], frame_index=r["frame_index"],
        showdown=json.loads(r["showdown_json"]), result=json.loads(r["result_json"]),
        needs_check=tuple(NeedsCheck(**n) for n in json.loads(r["needs_check_json"])),
        evidence=evidence, integrity=tuple(json.loads(r["integrity_json"])),
        model_version=r["model_version"], config_digest=r["config_digest"], meta=json.loads(r["meta_json"]),
    )
    return VerdictRecord(
        seq=r["seq"], hand_id=r["hand_id"], revision=r["revision"], verdict=verdict,
        started_at=r["started_at"], config=json.loads(r["config_json"]), status=r["status"],
        hash=r["hash"], prev_hash=r["prev_hash"], created_at=r["created_at"], media=media,
    )


def record_label(r, rows_by_table) -> str:
    seq = r["seq"]
    if r["kind"] == "verdict":
        v = rows_by_table["verdicts"].get(seq)
        rev = v[0]["revision"] if v else "?"
        return f"hand {r['hand_id']}, verdict revision {rev}"
    if r["kind"] == "action":
        a = rows_by_table["actions"].get(seq)
        what = a[0]["kind"] if a else "?"
        return f"hand {r['hand_id']}, dealer action {what}" if r["hand_id"] else f"dealer action {what}"
    return "pruning checkpoint"


def _verdict_text_sql(result_json: str, needs_check_json: str) -> str:
    return verdict_text(json.loads(result_json), json.loads(needs_check_json)).lower()


def _plain(n: NeedsCheck) -> dict:
    return {"seat": n.seat, "reason": n.reason, "card": n.card}


def action_record(r) -> ActionRecord:
    action = DealerAction(
        kind=r["kind"], seat=r["seat"], value=json.loads(r["value_json"]), row=r["row"], index=r["idx"],
        before=r["before_card"], after=r["after_card"], by=r["by_whom"], at=r["at"], hand_id=r["hand_id"],
        extra=json.loads(r["extra_json"]),
    )
    return ActionRecord(r["seq"], action, bool(r["ok"]), r["message"], r["frame_index"], r["hash"], r["created_at"])
