"""`kiosk floor`: the casino floor's one place for every table's hands (PostgreSQL).

    kiosk floor init  --dsn DSN [--table-role ROLE] [--floor-role ROLE]   create the schema, grant the roles
    kiosk floor ship  [--config FILE] [--db PATH] [--follow]              send this table's records now
    kiosk floor serve [--config FILE] [--host H] [--port N]               the review pages, read-only, every table

The central database and media folder come from the config's `records.central` (docs/records.md),
or from `--dsn` / `--media-dir`.
"""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

from kiosk.commands import command_parser
from kiosk.errors import KioskError


def register(subparsers) -> None:
    parser = command_parser(subparsers, "floor", "the floor's central hand history (PostgreSQL): init, ship, serve", __doc__)
    actions = parser.add_subparsers(dest="floor_action", metavar="ACTION", required=True)

    init = actions.add_parser("init", help="create the central schema (as the database's owner) and grant roles")
    init.add_argument("--dsn", required=True, help="connection string of the database's owner")
    init.add_argument("--table-role", help="the role the kiosks connect as (may insert, never update records)")
    init.add_argument("--floor-role", help="the role the floor review connects as (read-only)")

    ship = actions.add_parser("ship", help="send this table's records to the central database now")
    ship.add_argument("--follow", action="store_true", help="keep shipping new records until stopped")

    serve = actions.add_parser("serve", help="serve the review pages of every table, read-only")
    serve.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=5100, help="port (default 5100)")
    for sub in (ship, serve):
        sub.add_argument("--config", help="config file with records.central (and, to ship, records.db)")
        sub.add_argument("--dsn", help="central database (default: records.central.dsn)")
        sub.add_argument("--media-dir", help="the floor's media folder (default: records.central.media_dir)")
    ship.add_argument("--db", help="record database (default: records.db of the config)")
    for sub in (init, ship, serve):
        sub.set_defaults(func=run)


def central_settings(args, cfg) -> tuple[str, str]:
    """(dsn, media folder) from the flags, else the config's records.central."""
    central = cfg.records.central
    dsn = getattr(args, "dsn", None) or (central.dsn if central else None)
    media = getattr(args, "media_dir", None) or (central.media_dir if central else None)
    if not dsn or not media:
        raise KioskError("no central database: set records.central (dsn, media_dir) in the config "
                         "or give --dsn and --media-dir (docs/records.md)")
    return dsn, media


def run(args) -> int:
    from kiosk.table.config import load_config

    if args.floor_action == "init":
        return _init(args)
    cfg = load_config(args.config)
    dsn, media = central_settings(args, cfg)
    if args.floor_action == "ship":
        return _ship(args, cfg, dsn, media)
    return _serve(args, cfg, dsn, media)


def _init(args) -> int:
    import psycopg

    from kiosk.records.central import connect
    from kiosk.records.central_schema import install

    with connect(args.dsn) as conn:
        try:
            install(conn, args.table_role, args.floor_role)
        except psycopg.Error as err:
            raise KioskError(f"cannot create the floor's schema: {str(err).strip().splitlines()[0]}",
                             exit_code=1) from None
    print("floor schema ready" + (f"; kiosks connect as {args.table_role}" if args.table_role else "")
          + (f"; the floor review as {args.floor_role}" if args.floor_role else ""))
    return 0


def _ship(args, cfg, dsn: str, media: str) -> int:
    import psycopg

    from kiosk.records.shipper import Diverged, Shipper
    from kiosk.records.store import HandStore

    db = Path(args.db or cfg.records.db)
    store = HandStore(db, create=False)
    central = cfg.records.central
    shipper = Shipper(store, dsn, media, (central.table if central else None) or cfg.table.name,
                      batch=central.batch if central else 200)
    try:
        if args.follow:
            return _follow(shipper)
        try:
            sent = shipper.ship_all()
        except Diverged as err:
            raise KioskError(str(err), exit_code=1) from None
        except psycopg.OperationalError as err:
            raise KioskError(f"cannot reach the central database: {str(err).strip().splitlines()[0]}",
                             exit_code=1) from None
        state = shipper.state()
        print(f"table {state.table}: sent {sent} records; the floor holds up to record {state.shipped_seq}")
        return 0
    finally:
        shipper.close()
        store.close()


def _follow(shipper) -> int:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    shipper.start()
    print(f"shipping table {shipper.table} until stopped", flush=True)
    while not stop.wait(1.0):
        pass
    return 0


def _serve(args, cfg, dsn: str, media: str) -> int:
    from kiosk.records.central import CentralStore
    from kiosk.web.floor import create_floor_app
    from kiosk.web.service import start_server

    store = CentralStore(dsn, media)
    app = create_floor_app(store, cfg)
    server, thread = start_server(app, args.host, args.port)
    print(f"kiosk floor: review of every table on http://{args.host}:{args.port}/review/ (read-only)", flush=True)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        while not stop.wait(0.5) and thread.is_alive():
            pass
    finally:
        server.shutdown()
        store.close()
    return 0
