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
import signal
import sys
import threading
import time
from pathlib import Path

from kiosk.vision.models_dir import MODELS_DEFAULT, default_models_dir

log = logging.getLogger("kiosk.run")
DEFAULT_CONFIG = Path("kiosk.yaml")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "run", help="run the kiosk: read the table from the camera and serve the dealer display")
    parser.add_argument("--config", metavar="FILE",
                        help="table config (default: $KIOSK_CONFIG, else ./kiosk.yaml if present, else built-in defaults)")
    parser.add_argument("--source", metavar="SPEC",
                        help="camera index, rtsp:// or http:// URL, video file or folder of images "
                             "(default: the config's source; built in: the demo recording, looped)")
    parser.add_argument("--host", help="address to serve the display on (default: config web.host, 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default: config web.port, 5000)")
    parser.add_argument("--no-record", action="store_true", help="do not record hands")
    parser.add_argument("--db", metavar="PATH", help="record database (default: config records.db); its frames go in "
                        "media/ beside it unless the config sets records.media_dir")
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


def _open_source(spec, hub, camera=None):
    """Files play in real time like a camera; the built-in demo recording loops for ever."""
    from kiosk.table.config import DEMO_RECORDING
    from kiosk.table.sources import open_source

    is_demo = isinstance(spec, str) and Path(spec).resolve() == DEMO_RECORDING.resolve()
    return open_source(None if is_demo else spec, realtime=True, loop=is_demo, hub=hub, camera=camera)


def _recorder(args, cfg, hub):
    if args.no_record or not cfg.records.enabled:
        return None, None
    # The recorder is part of the kiosk: if it cannot be imported that is a bug, not a reason to run unrecorded.
    from kiosk.records.recorder import Recorder
    from kiosk.records.store import HandStore

    media = cfg.records.media_dir
    if args.db and "media_dir" not in cfg.records.model_fields_set:
        media = Path(args.db).parent / "media"  # another database: its frames beside it, not in the default folder
    store = HandStore(args.db or cfg.records.db, media_dir=media)
    return store, Recorder(store, hub, cfg, media)


def _shipper(cfg, store):
    """With `records.central`, ship the records to the floor's PostgreSQL in the background."""
    if store is None or cfg.records.central is None:
        return None
    from kiosk.records.shipper import Shipper

    return Shipper.from_config(store, cfg).start()


def run(args) -> int:
    from kiosk.table.config import load_config
    from kiosk.table.hub import Hub
    from kiosk.web.app import attach_runner, create_app
    from kiosk.web.service import sd_notify, start_server, watchdog_interval

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not args.verbose:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
    path = config_path(args.config)
    cfg = load_config(path)
    host = args.host or cfg.web.host
    port = args.port if args.port is not None else cfg.web.port
    spec = _source_spec(args, cfg)

    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    hub = Hub()
    source = store = recorder = runner = server = app = shipper = None
    code = 0
    try:
        source = _open_source(spec, hub, cfg.camera)
        store, recorder = _recorder(args, cfg, hub)
        app = create_app(hub, None, cfg, store)
        shipper = _shipper(cfg, store)
        app.config["KIOSK_SHIPPER"] = shipper
        server, _ = start_server(app, host, port)
        print(f"kiosk run: dealer display on http://{host}:{port}/  (config: {path or 'built-in defaults'}; "
              f"source: {spec}; records: {store.path if store else 'off'})", flush=True)

        from kiosk.table.runner import TableRunner
        from kiosk.vision.reader import load_reader

        reader = load_reader(model_dir=_models_dir(args.models))
        # Recording: read each frame as the recorder stores it, so a replay reads the same pixels.
        runner = TableRunner(cfg, source, reader, hub, jpeg_quality=recorder.jpeg_quality if recorder else None)
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
