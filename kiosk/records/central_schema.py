"""The floor's PostgreSQL schema: every table's hand records, as each kiosk's SQLite holds them.

The chained rows (records and their detail rows) are the SQLite columns, generated from the
SQLite schema itself (`kiosk.records.store.SCHEMA`), so what the central store recomputes a
record's hash from is exactly what the table hashed: the same columns, the same values
(INTEGER -> bigint, REAL -> double precision, TEXT -> text). Each row adds the table it came
from (`table_id`) and its record's hash (`record_hash`, the key: shipping is idempotent).

Derived, not chained (rewritten by the shipper, never verified): `floor_hands` (the newest
revision of each hand with its search fields), `floor_tables` (each table's shipped head) and
`review_flags` (a mirror of each table's flags).
"""

from __future__ import annotations

import sqlite3
from functools import lru_cache

from kiosk.records.store import CHILD_TABLES, SCHEMA

SCHEMA_VERSION = "1"
PG_TYPES = {"INTEGER": "bigint", "REAL": "double precision", "TEXT": "text"}
RECORD_COLUMNS = ("seq", "kind", "hand_id", "created_at", "prev_hash")  # hashed, as in HandStore._payload


@lru_cache(maxsize=None)
def sqlite_columns() -> dict[str, tuple[tuple[str, str, bool], ...]]:
    """(name, declared type, not null) of each chained SQLite table, read from the schema itself."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    out = {}
    for table in ("records", *CHILD_TABLES):
        out[table] = tuple((r[1], r[2].upper(), bool(r[3])) for r in conn.execute(f"PRAGMA table_info({table})"))
    conn.close()
    return out


def child_columns(table: str) -> tuple[str, ...]:
    return tuple(name for name, _, _ in sqlite_columns()[table])


def _child_ddl(table: str) -> str:
    cols = [f"{name} {PG_TYPES[kind]}{' NOT NULL' if notnull else ''}"
            for name, kind, notnull in sqlite_columns()[table]]
    key = "(record_hash, position)" if CHILD_TABLES[table] == "position" else "(record_hash)"
    return (f"CREATE TABLE IF NOT EXISTS {table} (\n    record_hash text NOT NULL REFERENCES records(hash),\n"
            f"    table_id text NOT NULL,\n    " + ",\n    ".join(cols) + f",\n    PRIMARY KEY {key}\n);")


def ddl() -> str:
    """The whole schema (idempotent: CREATE ... IF NOT EXISTS)."""
    parts = [
        "CREATE TABLE IF NOT EXISTS kiosk_meta (key text PRIMARY KEY, value text NOT NULL);",
        """CREATE TABLE IF NOT EXISTS floor_tables (
    table_id text PRIMARY KEY,
    head_seq bigint NOT NULL,
    head_hash text NOT NULL,
    shipped_at double precision NOT NULL
);""",
        """CREATE TABLE IF NOT EXISTS records (
    hash text PRIMARY KEY,
    table_id text NOT NULL,
    seq bigint NOT NULL,
    kind text NOT NULL,
    hand_id text,
    created_at double precision NOT NULL,
    prev_hash text NOT NULL,
    shipped_at double precision NOT NULL,
    UNIQUE (table_id, seq)
);""",
        *(_child_ddl(t) for t in CHILD_TABLES),
        "ALTER TABLE media ADD COLUMN IF NOT EXISTS central_path text;",
        "CREATE INDEX IF NOT EXISTS verdicts_hand ON verdicts(hand_id, revision);",
        "CREATE INDEX IF NOT EXISTS actions_hand ON actions(table_id, hand_id);",
        """CREATE TABLE IF NOT EXISTS floor_hands (
    table_id text NOT NULL,
    hand_id text NOT NULL,
    record_hash text NOT NULL,
    revision bigint NOT NULL,
    table_name text NOT NULL,
    started_at double precision,
    first_decided_at double precision NOT NULL,
    status text NOT NULL,
    seats text NOT NULL,
    fouled text NOT NULL,
    naturals text NOT NULL,
    total_paid double precision NOT NULL,
    largest_payment double precision NOT NULL,
    revisions bigint NOT NULL,
    verdict_text text NOT NULL,
    -- the ruling's words, searched as a phrase; the planner knows how common each word is
    verdict_words tsvector GENERATED ALWAYS AS (to_tsvector('simple', verdict_text)) STORED,
    PRIMARY KEY (table_id, hand_id)
);""",
        # dealer corrections of the hand (kept by the shipper: 'disputed' reads no actions)
        "ALTER TABLE floor_hands ADD COLUMN IF NOT EXISTS corrections bigint NOT NULL DEFAULT 0;",
        "CREATE INDEX IF NOT EXISTS floor_hands_time ON floor_hands(first_decided_at DESC);",
        "CREATE INDEX IF NOT EXISTS floor_hands_table_time ON floor_hands(table_id, first_decided_at DESC);",
        "CREATE INDEX IF NOT EXISTS floor_hands_hand ON floor_hands(hand_id);",
        "CREATE INDEX IF NOT EXISTS floor_hands_words ON floor_hands USING gin (verdict_words);",
        """CREATE TABLE IF NOT EXISTS review_flags (
    table_id text NOT NULL,
    hand_id text NOT NULL,
    flagged_at double precision NOT NULL,
    by_whom text NOT NULL,
    note text NOT NULL,
    PRIMARY KEY (table_id, hand_id)
);""",
        f"INSERT INTO kiosk_meta VALUES ('schema_version', '{SCHEMA_VERSION}') ON CONFLICT (key) DO NOTHING;",
    ]
    return "\n".join(parts)


TABLE_ROLE_GRANTS = """
GRANT SELECT, INSERT ON records, verdicts, evidence, media, actions, checkpoints TO {role};
GRANT SELECT, INSERT, UPDATE ON floor_tables, floor_hands TO {role};
GRANT SELECT, INSERT, UPDATE, DELETE ON review_flags TO {role};
GRANT SELECT ON kiosk_meta TO {role};
"""
FLOOR_ROLE_GRANTS = """
GRANT SELECT ON kiosk_meta, floor_tables, records, verdicts, evidence, media, actions, checkpoints,
    floor_hands, review_flags TO {role};
"""


def install(conn, table_role: str | None = None, floor_role: str | None = None) -> None:
    """Create the schema (as the database's owner) and grant the kiosks' and the floor's roles."""
    from psycopg import sql

    with conn.transaction():
        conn.execute(ddl())
        for role, grants in ((table_role, TABLE_ROLE_GRANTS), (floor_role, FLOOR_ROLE_GRANTS)):
            if role:
                conn.execute(sql.SQL(grants.format(role="{role}")).format(role=sql.Identifier(role)))
