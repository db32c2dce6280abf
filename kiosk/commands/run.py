"""`kiosk run`: the kiosk at the table. Camera -> card reader -> table pipeline -> dealer display.

Serves the dealer display first (so the screen says what is happening while the card
reader loads), then starts the pipeline and the recorder. Ctrl-C or SIGTERM stops it
cleanly: the pipeline stops, the recorder writes what it holds, the server closes.
Under systemd (Type=notify) it reports READY and feeds the watchdog while the pipeline
is healthy; a pipeline that dies makes it exit non-zero so systemd restarts it.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from kiosk.errors import KioskError
from kiosk.commands import command_parser
from kiosk.vision.models_dir import MODELS_DEFAULT, default_models_dir

log = logging.getLogger("kiosk.run")
DEFAULT_CONFIG = Path("kiosk.yaml")


def register(subparsers) -> None:
    parser = command_parser(
        subparsers, "run", "run the kiosk: read the table from the camera and serve the dealer display", __doc__)
    parser.add_argument("--config", metavar="FILE",
                        help="table config (default: $KIOSK_CONFIG, else ./kiosk.yaml if present, else built-in defaults)")
    parser.add_argument("--source", metavar="SPEC",
                        help="camera index, rtsp:// or http:// URL, video file or folder of images "
                             "(default: the config's source; built in: the demo recording, looped)")
    parser.add_argument("--host", help="address to serve the display on (default: config web.host, 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default: config web.port, 5000)")
    parser.add_argument("--game", choices=("chinese-poker", "paigow"),
                        help="the game this table deals (default: config game.name, chinese-poker); "
                             "paigow on the built-in demo plays the Pai Gow demo recording")
    parser.add_argument("--no-record", action="store_true", help="do not record hands")
    parser.add_argument("--db", metavar="PATH", help="record database (default: config records.db, else kiosk.sqlite "
                        "in the state directory; the demo: a temporary demo store); its frames go in media/ beside "
                        "it unless the config sets records.media_dir")
    parser.add_argument("--models", metavar="DIR", help=f"card reader weights (default: {MODELS_DEFAULT})")
    parser.add_argument("--verbose", action="store_true", help="log every web request")
    parser.set_defaults(func=run)


def config_path(given: str | None) -> Path | None:
    """--config, else $KIOSK_CONFIG, else ./kiosk.yaml when it exists, else None (defaults)."""
    if given:
        return Path(given)
    if os.environ.get("KIOSK_CONFIG"):
        return Path(os.environ["KIOSK_CONFIG"])
    return DEFAULT_CONFIG if DEFAULT_CONFIG.exists() else None


def _models_dir(given: str | None) -> Path:
    return Path(given) if given else default_models_dir()


def _source_spec(args, cfg):
    spec = args.source if args.source is not None else cfg.source
    if isinstance(spec, str) and spec.strip().isdigit():
        return int(spec)
    return spec


def _is_demo(spec) -> bool:
    from kiosk.table.config import DEMO_RECORDING, PAIGOW_DEMO

    demos = (DEMO_RECORDING.resolve(), PAIGOW_DEMO.resolve())
    return spec is None or (isinstance(spec, str) and Path(spec).resolve() in demos)


def _open_source(spec, hub, camera=None):
    """Files play in real time like a camera; the built-in demo recording loops for ever."""
    from kiosk.table.config import DEMO_RECORDING
    from kiosk.table.sources import open_source

    demo = _is_demo(spec)
    builtin = spec is None or Path(spec).resolve() == DEMO_RECORDING.resolve()  # None: the demo, or why it is missing
    return open_source(None if builtin else spec, realtime=True, loop=demo, hub=hub, camera=camera)


def records_location(db: str | None, records, demo: bool) -> tuple[Path | None, Path | None]:
    """(database, media folder) to record into; (None, None): a demo store in a temporary folder.

    The table's records go where the config says, else in the state directory (`state_dir()`).
    The demo never writes there: unless a database is named (--db or records.db), it records into
    a temporary demo store that is deleted when the kiosk stops.
    """
    if demo and not db and not records.db:
        return None, None
    path = Path(db) if db else records.db_path()
    return path, records.media_path(path if db else None)


def _recorder(args, cfg, hub):
    if args.no_record or not cfg.records.enabled:
        return None, None, None
    # The recorder is part of the kiosk: if it cannot be imported that is a bug, not a reason to run unrecorded.
    from kiosk.records.recorder import Recorder
    from kiosk.records.store import HandStore

    db, media = records_location(args.db, cfg.records, _is_demo(_source_spec(args, cfg)))
    temporary = None
    if db is None:
        temporary = Path(tempfile.mkdtemp(prefix="kiosk-demo-records-"))
        db, media = temporary / "demo.sqlite", temporary / "media"
    store = HandStore(db, media_dir=media)
    return store, Recorder(store, hub, cfg, media), temporary


def _check_exposure(host: str, pin_hash: str | None) -> None:
    """Beyond this PC only with the floor PIN set, and never silently."""
    if host in ("127.0.0.1", "localhost", "::1") or host.startswith("127."):
        return
    if not pin_hash:
        raise KioskError(f"--host {host} would let other machines reach the dealer display: set the floor PIN "
                         "first (`kiosk pin`), or serve on 127.0.0.1")
    print(f"kiosk run: WARNING: serving on {host}: any machine that can reach this address can open the "
          "display and send dealer actions (card corrections still need the floor PIN)", file=sys.stderr, flush=True)


def _shipper(cfg, store):
    """With `records.central`, ship the records to the floor's PostgreSQL in the background."""
    if store is None or cfg.records.central is None:
        return None
    from kiosk.records.shipper import Shipper

    return Shipper.from_config(store, cfg).start()


def run(args) -> int:
    from kiosk.table.config import for_game, load_config
    from kiosk.table.hub import Hub
    from kiosk.web.app import attach_runner, create_app
    from kiosk.web.service import sd_notify, start_server, watchdog_interval

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not args.verbose:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
    path = config_path(args.config)
    cfg = for_game(load_config(path), getattr(args, "game", None))
    host = args.host or cfg.web.host
    port = args.port if args.port is not None else cfg.web.port
    _check_exposure(host, cfg.web.floor_pin_hash)
    spec = _source_spec(args, cfg)

    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    hub = Hub()
    source = store = recorder = runner = server = app = demo_store = shipper = None
    code = 0
    try:
        source = _open_source(spec, hub, cfg.camera)
        store, recorder, demo_store = _recorder(args, cfg, hub)
        app = create_app(hub, None, cfg, store)
        shipper = _shipper(cfg, store)
        app.config["KIOSK_SHIPPER"] = shipper
        server, _ = start_server(app, host, port)
        records = "off" if store is None else (
            f"demo store {store.path}, deleted at exit (--db FILE keeps them)" if demo_store else store.path)
        print(f"kiosk run: dealer display on http://{host}:{port}/  (config: {path or 'built-in defaults'}; "
              f"source: {spec}; records: {records})", flush=True)

        from kiosk.paigow.runner import runner_class
        from kiosk.vision.reader import load_reader

        reader = load_reader(model_dir=_models_dir(args.models))
        # Recording: read each frame as the recorder stores it, so a replay reads the same pixels.
        runner = runner_class(cfg)(cfg, source, reader, hub, jpeg_quality=recorder.jpeg_quality if recorder else None)
        attach_runner(app, runner)
        runner.start()
        sd_notify("READY=1")
        code = _supervise(runner, app, stop, watchdog_interval(), sd_notify)
    finally:
        sd_notify("STOPPING=1")
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if runner is None and source is not None:
            source.close()
        _shutdown(runner, recorder, store, app, server, shipper)
        if demo_store is not None:
            shutil.rmtree(demo_store, ignore_errors=True)
    return code


def _runner_alive(runner) -> bool:
    for name in ("is_alive", "alive"):
        attr = getattr(runner, name, None)
        if attr is not None:
            return bool(attr() if callable(attr) else attr)
    thread = getattr(runner, "thread", None) or getattr(runner, "_thread", None)
    return thread.is_alive() if thread is not None else True


STALL_SECONDS = 20.0  # a connected camera that yields no frame for this long: the pipeline is stuck


def _supervise(runner, app, stop: threading.Event, watchdog: float | None, notify) -> int:
    """Wait for Ctrl-C/SIGTERM. Feed systemd's watchdog while the pipeline is healthy: frames
    keep coming, or the camera is being reconnected, or a recording ended normally."""
    live = app.config["KIOSK_LIVE"]
    tick = min(watchdog or 1.0, 1.0)
    last_ping = 0.0
    last_frame, frame_seen_at = None, time.monotonic()
    stalled = False
    while not stop.wait(tick):
        status = (live.source or {}).get("status")
        if not _runner_alive(runner) and status != "ended":
            print("kiosk run: the table pipeline stopped unexpectedly (see the log above); exiting so "
                  "the service restarts", file=sys.stderr, flush=True)
            return 1
        frame = (live.frame or {}).get("frame_index")
        if frame != last_frame or status != "connected":
            last_frame, frame_seen_at = frame, time.monotonic()
        was_stalled = stalled
        stalled = time.monotonic() - frame_seen_at > STALL_SECONDS
        if stalled and not was_stalled:
            log.warning("no frame for %.0f s from a connected source: not feeding the watchdog",
                        STALL_SECONDS)
        if watchdog and not stalled and time.monotonic() - last_ping >= watchdog:
            notify("WATCHDOG=1")
            last_ping = time.monotonic()
    print("kiosk run: stopping", flush=True)
    return 0


def _shutdown(runner, recorder, store, app, server, shipper=None) -> None:
    """Stop in the reverse order of start; each step runs even if an earlier one fails."""
    steps = []
    if runner is not None:
        steps += [("pipeline", runner.stop), ("pipeline", lambda: runner.join(timeout=10))]
    if recorder is not None:
        steps.append(("recorder", recorder.close))
    if shipper is not None:
        steps.append(("shipper", shipper.close))
    if app is not None:
        steps.append(("display", app.config["KIOSK_LIVE"].close))
    if server is not None:
        steps.append(("web server", server.shutdown))
    if store is not None and hasattr(store, "close"):
        steps.append(("record database", store.close))
    for what, step in steps:
        try:
            step()
        except TypeError:
            if what == "pipeline":
                runner.join()
            else:
                log.exception("stopping the %s failed", what)
        except Exception:
            log.exception("stopping the %s failed", what)
