"""The floor's PostgreSQL, read: search and hand pages for the floor review, and chain verification.

`CentralStore` answers what the review Blueprint asks of a `HandStore` (`list_hands`, `hand`,
`media_abspath`), over every table, read-only (`read_only = True`: flags and corrections are
made at the table). `verify_central` recomputes every table's chain from the rows PostgreSQL
holds, exactly as `HandStore.verify` does from SQLite, and names the first break per table;
`compare_with_local` names a table whose central chain is not its own SQLite's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from kiosk.errors import KioskError
from kiosk.records.central_schema import RECORD_COLUMNS, child_columns
from kiosk.records.chain import GENESIS, ChainEntry, PrunedRun, file_sha256, link_hash, verify_chain
from kiosk.records.connections import PerThread
from kiosk.records.store import (
    CHILD_TABLES,
    HandListing,
    HandQuery,
    HandRecord,
    HandStore,
    ReviewFlag,
    action_record,
    record_label,
    verdict_record,
)

CHUNK = 2000  # records verified per round trip
LISTED = ("table_id, hand_id, record_hash, started_at, first_decided_at, status, seats, fouled, naturals, "
          "total_paid, largest_payment, revisions, corrections")


def connect(dsn: str):
    import psycopg
    from psycopg.rows import dict_row

    try:
        return psycopg.connect(dsn, autocommit=True, row_factory=dict_row, connect_timeout=5,
                               application_name="kiosk floor")
    except psycopg.OperationalError as err:
        raise KioskError(f"cannot reach the central database: {str(err).strip().splitlines()[0]}",
                         exit_code=1) from None


class CentralStore:
    """The floor's records, searched and read (one connection per thread)."""

    read_only = True

    def __init__(self, dsn: str, media_dir: str | Path):
        self.dsn = dsn
        self.media_dir = Path(media_dir)
        self._conns = PerThread(lambda: connect(self.dsn), lambda conn: not (conn.closed or conn.broken))
        self._conn()  # fail now, with a clear message, not on the first page

    def _conn(self):
        return self._conns.get()

    def close(self) -> None:
        self._conns.close()

    def media_abspath(self, path: str) -> Path:
        return self.media_dir / path

    def tables(self) -> list[str]:
        return [r["table_id"] for r in self._conn().execute("SELECT table_id FROM floor_tables ORDER BY table_id")]

    def list_hands(self, query: HandQuery = HandQuery()) -> list[HandListing]:
        where, args = _where(query)
        sql = (
            "SELECT h.*, EXISTS (SELECT 1 FROM review_flags f WHERE "
            "f.table_id = h.table_id AND f.hand_id = h.hand_id) AS under_review FROM (SELECT {LISTED} FROM floor_hands "
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY first_decided_at DESC, hand_id DESC LIMIT %s OFFSET %s) h"
            " ORDER BY first_decided_at DESC, hand_id DESC"
        ).replace("{LISTED}", LISTED)
        rows = self._conn().execute(sql, [*args, int(query.limit), int(query.offset)]).fetchall()
        return [HandListing.from_row(r, r["table_id"], r["record_hash"]) for r in rows]

    def hand(self, hand_id: str) -> HandRecord | None:
        conn = self._conn()
        found = conn.execute("SELECT table_id FROM floor_hands WHERE hand_id = %s ORDER BY table_id LIMIT 1",
                             (hand_id,)).fetchone()
        if found is None:
            return None
        table = found["table_id"]
        rows = conn.execute(
            "SELECT v.*, r.hash, r.prev_hash, r.created_at FROM verdicts v JOIN records r ON r.hash = v.record_hash "
            "WHERE v.table_id = %s AND v.hand_id = %s ORDER BY v.revision", (table, hand_id)).fetchall()
        revisions = tuple(
            verdict_record(
                r,
                conn.execute("SELECT * FROM evidence WHERE record_hash = %s ORDER BY position", (r["hash"],)),
                conn.execute("SELECT * FROM media WHERE record_hash = %s ORDER BY position", (r["hash"],)),
                media_path=lambda m: m["central_path"] or f"not-on-the-floor/{m['path']}",
            )
            for r in rows
        )
        actions = tuple(action_record(r) for r in conn.execute(
            "SELECT a.*, r.hash, r.created_at FROM actions a JOIN records r ON r.hash = a.record_hash "
            "WHERE a.table_id = %s AND a.hand_id = %s ORDER BY a.seq", (table, hand_id)))
        flag = conn.execute("SELECT * FROM review_flags WHERE table_id = %s AND hand_id = %s",
                            (table, hand_id)).fetchone()
        return HandRecord(
            hand_id, revisions, actions,
            ReviewFlag(flag["hand_id"], flag["flagged_at"], flag["by_whom"], flag["note"]) if flag else None,
        )


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _where(query: HandQuery) -> tuple[list[str], list]:
    """The same search as HandStore.list_hands, on the floor's search table."""
    where, args = [], []
    flagged = "EXISTS (SELECT 1 FROM review_flags f WHERE f.table_id = floor_hands.table_id " \
              "AND f.hand_id = floor_hands.hand_id)"
    corrected = "corrections > 0"
    if query.text:
        where.append("hand_id ILIKE %s")
        args.append(_like(query.text))
    for column, op, value in (("first_decided_at", ">=", query.since), ("first_decided_at", "<", query.until),
                              ("largest_payment", ">=", query.min_amount)):
        if value is not None:
            where.append(f"{column} {op} %s")
            args.append(value)
    seat_pat = f"%,{query.seat},%" if query.seat is not None else None
    for column, wanted in (("fouled", query.foul), ("naturals", query.natural)):
        if wanted is not None:
            if seat_pat:
                where.append(f"{column} {'' if wanted else 'NOT '}LIKE %s")
                args.append(seat_pat)
            else:
                where.append(f"{column} {'!=' if wanted else '='} ''")
    if seat_pat:
        where.append("seats LIKE %s")
        args.append(seat_pat)
    for column, value in (("status", query.status), ("table_id", query.table)):
        if value:
            where.append(f"{column} = %s")
            args.append(value)
    if query.under_review is not None:
        where.append(flagged if query.under_review else f"NOT {flagged}")
    if query.disputed is not None:
        where.append(f"({corrected} OR {flagged})" if query.disputed else f"NOT ({corrected} OR {flagged})")
    if query.verdict_text:  # the words in this order (HandStore: the text as a part of the rulings')
        # the words in this order, each the start of a word ('scoop' finds 'scoops')
        where.append("verdict_words @@ regexp_replace(phraseto_tsquery('simple', %s)::text, "
                     r"'''( |$)', ''':*\1', 'g')::tsquery")
        args.append(query.verdict_text.lower())
    return where, args


# -- verification ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableCheck:
    table: str
    count: int  # records checked
    head: str
    problem: str | None = None  # the first break of the table's chain in PostgreSQL
    differs: str | None = None  # how it differs from the table's own SQLite, when that was given
    media_checked: int = 0

    @property
    def ok(self) -> bool:
        return self.problem is None and self.differs is None


def verify_central(dsn: str, media_dir: str | Path | None, check_media: bool = True) -> list[TableCheck]:
    """Every table's chain as PostgreSQL holds it, recomputed record by record."""
    with connect(dsn) as conn:
        with conn.transaction():  # one snapshot, even while shippers write
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            tables = [r["table_id"] for r in conn.execute(
                "SELECT table_id FROM floor_tables UNION SELECT DISTINCT table_id FROM records ORDER BY 1")]
            return [_verify_table(conn, t, Path(media_dir) if media_dir else None, check_media) for t in tables]


def _verify_table(conn, table: str, media_dir: Path | None, check_media: bool) -> TableCheck:
    entries, checkpoint_runs, problems, checked = [], [], [], 0
    after = 0
    while True:
        records = conn.execute(
            f"SELECT hash, {', '.join(RECORD_COLUMNS)} FROM records WHERE table_id = %s AND seq > %s "
            "ORDER BY seq LIMIT %s", (table, after, CHUNK)).fetchall()
        if not records:
            break
        rows_by_table = _children(conn, table, records[0]["seq"], records[-1]["seq"])
        for r in records:
            payload = {"record": {k: r[k] for k in RECORD_COLUMNS}}
            for t in CHILD_TABLES:
                if rows_by_table[t].get(r["seq"]):
                    payload[t] = rows_by_table[t][r["seq"]]
            entries.append(ChainEntry(r["seq"], r["prev_hash"], r["hash"], link_hash(r["prev_hash"], payload),
                                      record_label(r, rows_by_table)))
        for rows in rows_by_table["checkpoints"].values():
            checkpoint_runs += [PrunedRun(x["first"], x["last"], x["prev_hash"], x["last_hash"])
                                for x in json.loads(rows[0]["runs_json"])]
        if check_media and media_dir is not None:
            n, problem = _check_media(rows_by_table["media_paths"], media_dir, rows_by_table)
            checked += n
            if problem:
                problems.append(problem)
        after = records[-1]["seq"]
    present = {e.seq for e in entries}
    # Records pruned at the table before they were shipped are named by a checkpoint; shipped ones stay.
    runs = [r for r in checkpoint_runs if not present.intersection(range(r.first, r.last + 1))]
    head_row = conn.execute("SELECT head_seq FROM floor_tables WHERE table_id = %s", (table,)).fetchone()
    max_seq = max(head_row["head_seq"] if head_row else 0, max(present, default=0))
    chain = verify_chain(entries, runs, max_seq)
    if chain is not None:
        problems.insert(0, (chain.seq, chain.message))
    first = min(problems, key=lambda p: p[0]) if problems else None
    head = entries[-1].stored_hash if entries else GENESIS
    return TableCheck(table, len(entries), head, first[1] if first else None, None, checked)


def _children(conn, table: str, first: int, last: int) -> dict:
    out: dict = {}
    for t, order in CHILD_TABLES.items():
        cols = child_columns(t)
        extra = ", central_path" if t == "media" else ""
        grouped: dict[int, list[dict]] = {}
        paths: dict[int, list] = {}
        for r in conn.execute(f"SELECT {', '.join(cols)}{extra} FROM {t} WHERE table_id = %s AND seq BETWEEN %s "
                              f"AND %s ORDER BY seq, {order}", (table, first, last)):
            if extra:
                paths.setdefault(r["seq"], []).append(r.pop("central_path"))
            grouped.setdefault(r["seq"], []).append(r)
        out[t] = grouped
        if extra:
            out["media_paths"] = paths
    return out


def _check_media(paths: dict, media_dir: Path, rows_by_table: dict) -> tuple[int, tuple[int, str] | None]:
    checked = 0
    for seq in sorted(paths):
        for m, central in zip(rows_by_table["media"][seq], paths[seq]):
            label = f"record {seq}: {m['role'].replace('_', ' ')} {m['path']}"
            if central is None or not (media_dir / central).exists():
                return checked, (seq, f"{label} is not in the floor's media folder")
            checked += 1
            if file_sha256(media_dir / central) != m["sha256"]:
                return checked, (seq, f"{label} was altered on the floor (its sha256 differs from the record)")
    return checked, None


def compare_with_local(dsn: str, table: str, store: HandStore) -> str | None:
    """How the table's chain in PostgreSQL differs from its SQLite (None: the same, as far as shipped)."""
    local = {r["seq"]: r["hash"] for r in store._conn().execute("SELECT seq, hash FROM records")}
    with connect(dsn) as conn:
        central = conn.execute("SELECT seq, hash FROM records WHERE table_id = %s ORDER BY seq", (table,)).fetchall()
    for r in central:
        mine = local.get(r["seq"])
        if mine is None and r["seq"] > store.max_seq():
            return f"the floor holds record {r['seq']}, which this kiosk's records never had"
        if mine is not None and mine != r["hash"]:
            return f"record {r['seq']} differs between the floor and this kiosk's records ({store.path})"
    return None
