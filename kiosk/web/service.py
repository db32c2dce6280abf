"""Serving the display as a long-running service: the HTTP server thread and systemd notifications."""

from __future__ import annotations

import errno
import logging
import os
import socket
import threading

from werkzeug.serving import WSGIRequestHandler, make_server

from kiosk.errors import KioskError

log = logging.getLogger(__name__)


def start_server(app, host: str, port: int):
    """Start a threaded werkzeug server in a daemon thread; returns (server, thread)."""
    _check_address(host, port)  # werkzeug would print its own advice and sys.exit()
    try:
        server = make_server(host, port, app, threaded=True, request_handler=_QuietHandler)
    except SystemExit:
        raise KioskError(f"cannot serve on {host}:{port} (see the message above)", exit_code=1) from None
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="web", daemon=True)
    thread.start()
    return server, thread


class _QuietHandler(WSGIRequestHandler):
    """Says `Server: kiosk`, not the werkzeug and Python versions."""

    @property
    def server_version(self) -> str:  # type: ignore[override]
        return "kiosk"

    def version_string(self) -> str:
        return "kiosk"


def _check_address(host: str, port: int) -> None:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as err:
        raise KioskError(f"cannot serve on {host}:{port}: {err.strerror or err}", exit_code=1) from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server itself binds
        try:
            probe.bind(address)
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                raise KioskError(f"port {port} on {host} is already in use (is another kiosk running?): "
                                 "stop it or use --port", exit_code=1) from None
            raise KioskError(f"cannot serve on {host}:{port}: {err.strerror or err}", exit_code=1) from None


def sd_notify(message: str) -> bool:
    """Tell systemd something (READY=1, WATCHDOG=1, STOPPING=1); False when not under systemd."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
        return True
    except OSError:
        log.warning("could not notify systemd (%s)", message)
        return False


def watchdog_interval() -> float | None:
    """Half of systemd's WatchdogSec, in seconds; None when no watchdog is set."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return max(0.5, int(usec) / 2_000_000)
    except ValueError:
        return None
