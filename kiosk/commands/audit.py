"""`kiosk audit`: check the hand records' hash chain, prune by retention, flag hands for review.

    kiosk audit verify [--db PATH] [--no-media]   exit 0 "all N records intact", 1 naming the first bad record
    kiosk audit verify --central [--config FILE]  every table's chain in the floor's PostgreSQL
    kiosk audit prune  [--db PATH] [--days N] [--budget-mb N]
    kiosk audit flag   HAND_ID [--by NAME] [--note TEXT]    (a flagged hand is never pruned)
    kiosk audit unflag HAND_ID
"""

from __future__ import annotations

import time
from pathlib import Path

from kiosk.commands import command_parser
from kiosk.errors import KioskError


def register(subparsers) -> None:
    parser = command_parser(subparsers, "audit", "verify, prune or flag the hand records", __doc__)
    actions = parser.add_subparsers(dest="audit_action", metavar="ACTION", required=True)

    def common(sub):
        sub.add_argument("--db", help="record database (default: the config's records.db, "
                            "else kiosk.sqlite in the state directory, docs/records.md)")
        sub.add_argument("--config", help="kiosk config file (for its records section)")
        sub.set_defaults(func=run)

    verify = actions.add_parser("verify", help="check every record and media file against the hash chain")
    common(verify)
    verify.add_argument("--no-media", action="store_true", help="skip re-hashing the key frames and clips")
    verify.add_argument("--central", action="store_true",
                        help="verify every table's chain in the floor's PostgreSQL (records.central), and this "
                             "table's against its own records when they are here")
    verify.add_argument("--dsn", help="with --central: the central database (default: records.central.dsn)")
    verify.add_argument("--media-dir", help="with --central: the floor's media folder")

    prune = actions.add_parser("prune", help="remove the oldest hands by age and disk budget (never one under review)")
    common(prune)
    prune.add_argument("--days", type=float, help="keep hands younger than this (default: records.retention_days)")
    prune.add_argument("--budget-mb", type=float, help="disk budget in MB (default: records.disk_budget_mb)")

    for name, text in (("flag", "mark a hand as under review"), ("unflag", "clear a hand's review flag")):
        sub = actions.add_parser(name, help=text)
        common(sub)
        sub.add_argument("hand_id")
        if name == "flag":
            sub.add_argument("--by", default="floor", help="who flagged it")
            sub.add_argument("--note", default="", help="why")


def open_store(args, must_exist: bool = True):
    from kiosk.records.store import HandStore
    from kiosk.table.config import load_config

    cfg = load_config(getattr(args, "config", None))
    db = Path(args.db) if getattr(args, "db", None) else cfg.records.db_path()
    if must_exist and not db.exists():
        raise KioskError(f"no record database at {db}", exit_code=2)
    media_dir = None if getattr(args, "db", None) else cfg.records.media_path(db)
    return HandStore(db, media_dir, create=not must_exist), cfg


def verify_central(args) -> int:
    """Every table's chain in PostgreSQL; a table whose chain differs from its own SQLite is named."""
    from kiosk.commands.floor import central_settings
    from kiosk.records.central import compare_with_local, verify_central as check_tables
    from kiosk.records.store import HandStore
    from kiosk.table.config import load_config

    cfg = load_config(args.config)
    dsn, media = central_settings(args, cfg)
    checks = check_tables(dsn, media, check_media=not args.no_media)
    bad = 0
    for c in checks:
        media_text = f", {c.media_checked} media files match" if not args.no_media else ""
        if c.ok:
            print(f"table {c.table}: all {c.count} records intact{media_text} (head {c.head[:16]})")
        else:
            bad += 1
            print(f"table {c.table}: TAMPERED: {c.problem}")
    db = Path(args.db) if args.db else Path(cfg.records.db)
    if db.exists():
        table = (cfg.records.central.table if cfg.records.central else None) or cfg.table.name
        store = HandStore(db, create=False)
        try:
            differs = compare_with_local(dsn, table, store)
        finally:
            store.close()
        if differs:
            bad += 1
            print(f"table {table}: DIFFERS from this kiosk's records: {differs}")
        else:
            print(f"table {table}: the floor's chain is this kiosk's ({db})")
    if not checks:
        print("the central database holds no table's records yet")
    return 1 if bad else 0


def run(args) -> int:
    if getattr(args, "central", False):
        return verify_central(args)
    store, cfg = open_store(args)
    try:
        if args.audit_action == "verify":
            result = store.verify(check_media=not args.no_media)
            if result.ok:
                media = f", {result.media_checked} media files match" if not args.no_media else ""
                print(f"all {result.count} records intact{media} (head {result.head[:16]})")
                return 0
            print(f"TAMPERED: {result.problem.message}")
            return 1
        if args.audit_action == "prune":
            from kiosk.records.retention import prune

            days = args.days if args.days is not None else cfg.records.retention_days
            budget = args.budget_mb if args.budget_mb is not None else cfg.records.disk_budget_mb
            report = prune(store, days, budget, time.time())
            print(
                f"pruned {len(report.hands)} hands ({report.records} records, {report.freed_bytes / 1e6:.1f} MB)"
                + (f", checkpoint record {report.checkpoint}" if report.checkpoint else "")
                + (f"; kept under review: {', '.join(report.kept_under_review)}" if report.kept_under_review else "")
            )
            return 0
        if store.hand(args.hand_id) is None:
            raise KioskError(f"no hand {args.hand_id!r} in {store.path}", exit_code=1)
        if args.audit_action == "flag":
            store.flag(args.hand_id, args.by, args.note)
            print(f"hand {args.hand_id} is under review (never pruned)")
        else:
            store.unflag(args.hand_id)
            print(f"hand {args.hand_id} is no longer under review")
        return 0
    finally:
        store.close()
