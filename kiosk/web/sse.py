"""Server-sent events for the live page: the whole page state on every change, heartbeats between.

Each state event carries the id `<boot>-<version>`; a client that reconnects (the browser
does so by itself after `retry` ms) sends it back as Last-Event-ID. Every event holds the
full state, so a resumed client is sent the current state at once and has missed nothing.
A changed boot part tells the page the kiosk restarted (it reloads itself).

>>> format_event({"a": 1}, event="state", id="x-1")
'id: x-1\\nevent: state\\ndata: {"a":1}\\n\\n'
"""

from __future__ import annotations

import json
import time
from typing import Iterator

from kiosk.web.live import LiveState


def format_event(data, event: str | None = None, id: str | None = None, retry: int | None = None) -> str:
    lines = []
    if retry is not None:
        lines.append(f"retry: {int(retry)}")
    if id is not None:
        lines.append(f"id: {id}")
    if event is not None:
        lines.append(f"event: {event}")
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"), default=str)
    lines.extend(f"data: {line}" for line in payload.split("\n"))
    return "\n".join(lines) + "\n\n"


def stream(live: LiveState, heartbeat: float = 3.0, retry_ms: int = 2000,
           last_event_id: str | None = None) -> Iterator[str]:
    """The event stream for one client; ends when the kiosk shuts down or the client leaves."""
    version = live.version
    hello = {"boot": live.boot, "resumed_from": last_event_id, "heartbeat_ms": int(heartbeat * 1000)}
    yield format_event(hello, event="hello", retry=retry_ms)
    yield format_event(live.state(), event="state", id=f"{live.boot}-{version}")
    while not live.closed:
        new = live.wait(version, heartbeat)
        if live.closed:
            break
        if new != version:
            version = new
            yield format_event(live.state(), event="state", id=f"{live.boot}-{version}")
        else:
            beat = {"t": time.time(), "version": version, "frame_age": live.frame_age(),
                    "source": (live.source or {}).get("status")}
            yield format_event(beat, event="heartbeat")
    yield format_event({"reason": "the kiosk is shutting down"}, event="bye")
