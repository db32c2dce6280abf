"""`kiosk bench floor`: many tables shipping into one PostgreSQL (see docs/benchmarks.md).

1. Throughput: `--tables` record databases of `--hands` hands each (random realistic showdowns scored
   by the rules engine, 52 cards of evidence, a small key frame), shipped at once, one shipper
   process per table, into one PostgreSQL: hands/s from the first record sent to the last committed.
2. Lag: every table deals live (`--live-rate` hands/s each for `--live-seconds`) with its shipper
   running as in `kiosk run`; a watcher on the floor polls every 50 ms: the lag is from the
   record's commit at the table to the poll that first sees it centrally.
3. Search: the floor topped up to `--search-hands` hands (shipped the same way), then the review
   list's searches (`CentralStore.list_hands`, what `/review/` runs) timed, 20 times each.

Without `--dsn` it starts a throwaway PostgreSQL server (Debian's binaries) in a temporary folder.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from kiosk.records.central import CentralStore
from kiosk.records.central_schema import child_columns, install
from kiosk.records.media import MediaFile, write_atomic
from kiosk.records.pg_cluster import TempCluster
from kiosk.records.shipper import Shipper
from kiosk.records.store import HandQuery, HandStore
from kiosk.rules.api import score_json
from kiosk.table.actions import DealerAction
from kiosk.table.verdict import CardEvidence, Verdict
from kiosk.vision.images import encode_jpeg
from kiosk_lab.bench.rules import random_showdown

TARGET_HANDS_PER_SECOND = 500
TARGET_LAG_SECONDS = 2.0
TARGET_SEARCH_MS = 200.0


def add_arguments(parser) -> None:
    parser.add_argument("--tables", type=int, default=8, help="tables (default 8)")
    parser.add_argument("--hands", type=int, default=2000, help="hands per table shipped at once (default 2000)")
    parser.add_argument("--live-rate", type=float, default=2.0, help="hands a second each table deals live (2)")
    parser.add_argument("--live-seconds", type=float, default=30.0, help="how long they deal live (default 30)")
    parser.add_argument("--search-hands", type=int, default=100_000, help="hands on the floor to search (100000)")
    parser.add_argument("--dsn", help="an empty PostgreSQL database (default: a throwaway server)")
    parser.add_argument("--work", help="folder for the tables' record databases (default: a temporary one)")
    parser.add_argument("--top-up", choices=("ship", "copy"), default="ship",
                        help="fill the floor to --search-hands by recording and shipping more hands (default), or "
                             "by copying the shipped hands' search rows and corrections under other table names, "
                             "days earlier (the search reads only those; much faster to make)")
    parser.add_argument("--search-only", action="store_true",
                        help="only the search figures, on the floor already in --dsn (topped up as --top-up says)")


def _showdowns(n: int, seed: int) -> list[tuple[dict, dict]]:
    rng = random.Random(seed)
    return [(sd, score_json(sd)) for sd in (random_showdown(rng) for _ in range(n))]


def _jpeg(i: int) -> bytes:
    rng = np.random.default_rng(i)
    image = np.full((180, 320, 3), (30, 90, 30), np.uint8)
    image[40:140, 40:280] = rng.integers(0, 255, (100, 240, 3), dtype=np.uint8)
    return encode_jpeg(image, 90)


def fill_table(db: str, table: str, first: int, count: int, pace: float | None = None, seed: int = 0) -> None:
    """Record `count` hands (a verdict, a dealer correction and a second revision every 10th hand)."""
    store = HandStore(db)
    if pace is None:
        store._conn().execute("PRAGMA synchronous=OFF")  # generating a backlog; live dealing keeps FULL
    pool = _showdowns(64, seed)
    backlog_start = time.time() - 45 * count  # a backlog: hands 45 s apart, up to now
    for n in range(first, first + count):
        started = time.time()
        sd, result = pool[n % len(pool)]
        hand_id = f"{table}-{n:06d}"
        evidence = tuple(CardEvidence(c, s["seat"], row, 40, (10.0, 10.0, 60.0, 90.0), 0.97, 5)
                         for s in sd["seats"] for row in ("front", "middle", "back") for c in s.get(row, []))
        decided = time.time() if pace else backlog_start + 45 * (n - first)
        verdict = Verdict(hand_id, table, decided, 40, sd, result, (), evidence, (), "bench", "bench")
        data = _jpeg(n)
        rel = f"media/{table}/{hand_id}-key.jpg"
        digest = write_atomic(store.base_dir / rel, data)
        store.append_verdict(verdict, media=[MediaFile("key_frame", rel, digest, len(data), 40, {})])
        if n % 10 == 0:
            action = DealerAction("correct_card", seat=1, row="front", index=0, before="2s", after="3s",
                                  by="dealer", at=time.time(), hand_id=hand_id)
            store.append_verdict(verdict, actions=[(action, True, "", 40)])
        if pace:
            time.sleep(max(0.0, pace - (time.time() - started)))
    store.close()


def _ship(db: str, dsn: str, media: str, table: str) -> None:
    """Ship a table's backlog; writes when it began and ended (imports and start-up left out)."""
    store = HandStore(db)
    shipper = Shipper(store, dsn, media, table, batch=500)
    started = time.time()
    shipper.ship_all()
    Path(db + ".shipped").write_text(f"{started} {time.time()}")
    store.close()


def _shipping_seconds(dbs) -> float:
    spans = [tuple(map(float, Path(db + ".shipped").read_text().split())) for db in dbs]
    return max(e for _, e in spans) - min(s for s, _ in spans)


def _live(db: str, dsn: str, media: str, table: str, first: int, count: int, rate: float, seed: int) -> None:
    store = HandStore(db)
    shipper = Shipper(store, dsn, media, table).start()  # the defaults of records.central
    fill_table(db, table, first, count, pace=1.0 / rate, seed=seed)
    deadline = time.time() + 30
    while shipper.state().behind not in (0,) and time.time() < deadline:
        time.sleep(0.1)
    shipper.close()
    store.close()


def _parallel(target, jobs: list[tuple]) -> float:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=target, args=job) for job in jobs]
    t0 = time.perf_counter()
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    if any(p.exitcode != 0 for p in procs):
        raise RuntimeError(f"a {target.__name__} process failed")
    return time.perf_counter() - t0


def run(args) -> int:
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="kiosk-floor-bench-"))
    cluster = None
    dsn = args.dsn
    if dsn is None:
        cluster = TempCluster().start()
        dsn = cluster.create_database("floor_bench")
        print(f"PostgreSQL: a throwaway server ({cluster.bindir.parent.name}) on 127.0.0.1:{cluster.port}")
    try:
        _install(dsn)
        if args.search_only:
            tables = [f"bench-{i + 1}" for i in range(args.tables)]
            ok = _search(args, dsn, str(work / "floor-media"), tables, {}) <= TARGET_SEARCH_MS
        else:
            ok = _measure(args, dsn, work, cluster)
    finally:
        if cluster is not None:
            cluster.close()
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


def _install(dsn: str) -> None:
    import psycopg


    with psycopg.connect(dsn, autocommit=True) as conn:
        install(conn)


def _cpu_seconds(cluster) -> tuple[float, float]:
    """CPU seconds so far of this benchmark's child processes (the shippers) and of the PostgreSQL
    server (the postmaster with the backends it reaped, and those alive); the server's is 0 with --dsn."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    server = 0.0
    if cluster is not None:
        tick = os.sysconf("SC_CLK_TCK")
        master = int((cluster.data / "postmaster.pid").read_text().split()[0])
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            pid, ppid = int(stat.parent.name), int(fields[1])
            if pid == master:
                server += sum(int(f) for f in fields[11:15]) / tick  # utime stime cutime cstime
            elif ppid == master:
                server += (int(fields[11]) + int(fields[12])) / tick
    return children.ru_utime + children.ru_stime, server


def _measure(args, dsn: str, work: Path, cluster=None) -> bool:
    tables = [f"bench-{i + 1}" for i in range(args.tables)]
    dbs = {t: str(work / t / "kiosk.sqlite") for t in tables}
    media = str(work / "floor-media")
    t0 = time.perf_counter()
    _parallel(fill_table, [(dbs[t], t, 1, args.hands, None, i) for i, t in enumerate(tables)])
    print(f"recorded {args.tables} x {args.hands} hands in {time.perf_counter() - t0:.0f} s (not timed below)")
    before = _cpu_seconds(cluster)
    _parallel(_ship, [(dbs[t], dsn, media, t) for t in tables])
    after = _cpu_seconds(cluster)
    seconds = _shipping_seconds(dbs.values())
    hands = args.tables * args.hands
    rate = hands / seconds
    print(f"shipped {hands} hands ({hands // 10} with a correction and a second revision, a key frame each) "
          f"from {args.tables} tables in {seconds:.1f} s: {rate:.0f} hands/s (target >= {TARGET_HANDS_PER_SECOND})")
    shipper_ms, server_ms = ((a - b) * 1000 / hands for a, b in zip(after, before))
    print(f"CPU per hand: {shipper_ms:.2f} ms in the shippers (spawn and imports included), "
          f"{server_ms:.2f} ms in PostgreSQL" + (" (a server of its own: not measured)" if cluster is None else ""))
    lags = _live_lag(args, dsn, media, tables, dbs)
    median = statistics.median(lags)
    print(f"live: {len(lags)} hands dealt at {args.live_rate:g}/s per table; commit -> visible centrally: "
          f"median {median:.2f} s, p95 {_pct(lags, 95):.2f} s, max {max(lags):.2f} s "
          f"(target median <= {TARGET_LAG_SECONDS:g} s)")
    worst = _search(args, dsn, media, tables, dbs)
    return rate >= TARGET_HANDS_PER_SECOND and median <= TARGET_LAG_SECONDS and worst <= TARGET_SEARCH_MS


def _pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def _live_lag(args, dsn: str, media: str, tables: list[str], dbs: dict) -> list[float]:
    import psycopg

    count = max(1, int(args.live_rate * args.live_seconds))
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_live, args=(dbs[t], dsn, media, t, args.hands + 1, count, args.live_rate, 100 + i))
             for i, t in enumerate(tables)]
    seen: dict[str, float] = {}
    with psycopg.connect(dsn, autocommit=True) as conn:
        known = {h for (h,) in conn.execute("SELECT hash FROM records")}
        for p in procs:
            p.start()
        while any(p.is_alive() for p in procs):
            now = time.time()
            for h, created in conn.execute("SELECT hash, created_at FROM records WHERE shipped_at > %s",
                                           (now - 60,)).fetchall():
                if h not in known and h not in seen:
                    seen[h] = now - created
            time.sleep(0.05)
    return list(seen.values())


SEARCHES = {
    "newest 50, every table": {},
    "one table, an hour around a time": {"table": "bench-3", "window": 3600},
    "seat 2 fouled": {"seat": 2, "foul": True},
    "ruling text 'scoop'": {"verdict_text": "scoop"},
    "ruling text 'D-9' (a natural)": {"verdict_text": "d-9"},
    "disputed (corrected or under review)": {"disputed": True},
    "page 20 of every table": {"offset": 950},
}


def _copy_floor(conn, missing: int) -> None:
    """Copies of the shipped hands' search rows (and their correction actions, so 'disputed' finds them),
    under table names `T~k`, k days earlier, until the floor holds `missing` more hands."""
    shipped = conn.execute("SELECT count(*) AS n FROM floor_hands WHERE table_id NOT LIKE '%%~%%'").fetchone()["n"]
    copies = -(-missing // shipped)
    cols = ("hand_id, record_hash, revision, table_name, started_at, first_decided_at, status, seats, fouled, "
            "naturals, total_paid, largest_payment, revisions, verdict_text, corrections")
    action_cols = [c for c in child_columns("actions") if c not in ("seq", "hand_id")]
    with conn.transaction():
        for k in range(1, copies + 1):
            take = min(shipped, missing - (k - 1) * shipped)
            conn.execute(
                f"INSERT INTO records SELECT r.hash || '~{k}', r.table_id || '~{k}', r.seq, r.kind, "
                f"r.hand_id || '~{k}', r.created_at - {k} * 86400, r.prev_hash, r.shipped_at FROM records r "
                "JOIN actions a ON a.record_hash = r.hash WHERE r.table_id NOT LIKE '%%~%%'")
            conn.execute(
                f"INSERT INTO actions (record_hash, table_id, seq, hand_id, {', '.join(action_cols)}) "
                f"SELECT record_hash || '~{k}', table_id || '~{k}', seq, hand_id || '~{k}', "
                f"{', '.join(action_cols)} FROM actions WHERE table_id NOT LIKE '%%~%%'")
            conn.execute(
                f"INSERT INTO floor_hands (table_id, {cols}) SELECT table_id || '~{k}', hand_id || '~{k}', "
                f"record_hash || '~{k}', revision, table_name, started_at - {k} * 86400, "
                f"first_decided_at - {k} * 86400, status, seats, fouled, naturals, total_paid, largest_payment, "
                f"revisions, verdict_text, corrections FROM floor_hands WHERE table_id NOT LIKE '%%~%%' "
                f"ORDER BY first_decided_at DESC LIMIT {take}")
    print(f"topped up the floor with {missing} copies of shipped hands' search rows ({copies} days earlier at most)")


def _search(args, dsn: str, media: str, tables: list[str], dbs: dict) -> float:
    central = CentralStore(dsn, media)
    have = central._conn().execute("SELECT count(*) AS n FROM floor_hands").fetchone()["n"]
    missing = max(0, args.search_hands - have)
    if missing and args.top_up == "copy":
        _copy_floor(central._conn(), missing)
    elif missing:
        per = -(-missing // len(tables))
        first = args.hands + int(args.live_rate * args.live_seconds) + 1
        _parallel(fill_table, [(dbs[t], t, first, per, None, 200 + i) for i, t in enumerate(tables)])
        _parallel(_ship, [(dbs[t], dsn, media, t) for t in tables])
        seconds = _shipping_seconds(dbs.values())
        added = per * len(tables)
        print(f"topped up the floor with {added} hands, shipped at {added / seconds:.0f} hands/s")
    conn = central._conn()
    conn.execute("ANALYZE")
    total = conn.execute("SELECT count(*) AS n FROM floor_hands").fetchone()["n"]
    middle = conn.execute("SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY first_decided_at) AS t "
                          "FROM floor_hands WHERE table_id = 'bench-3'").fetchone()["t"] or 0.0
    worst = 0.0
    print(f"search over {total} hands ({len(tables)} tables), CentralStore.list_hands as /review/ runs it, 20 runs:")
    for name, spec in SEARCHES.items():
        spec = dict(spec)
        window = spec.pop("window", None)
        if window:
            spec.update(since=middle - window / 2, until=middle + window / 2)
        query = HandQuery(limit=51, **spec)
        times, found = [], 0
        for _ in range(20):
            t0 = time.perf_counter()
            found = len(central.list_hands(query))
            times.append((time.perf_counter() - t0) * 1000)
        worst = max(worst, statistics.median(times))
        print(f"  {name:40s} median {statistics.median(times):6.1f} ms, max {max(times):6.1f} ms ({found} rows)")
    print(f"slowest search median {worst:.1f} ms (target <= {TARGET_SEARCH_MS:g} ms)")
    central.close()
    return worst
