"""Routes of the live page: the page, its event stream, the camera view and the dealer's actions."""

from __future__ import annotations

import logging
import threading
import time

from flask import Blueprint, Response, current_app, jsonify, render_template, request, stream_with_context

from kiosk.cards import CardError, parse_card
from kiosk.errors import KioskError
from kiosk.table.actions import DealerAction
from kiosk.web import sse
from kiosk.web.camera import camera_jpeg
from kiosk.web.security import verify_pin

log = logging.getLogger(__name__)
blueprint = Blueprint("live", __name__)

SEAT_ACTIONS = {"declare_natural", "undeclare_natural", "move_button", "set_dead", "set_stack"}
TABLE_ACTIONS = {"set_stake", "new_hand"}
CORRECTABLE_ROWS = ("front", "middle", "back", "pile")
ACTION_WAIT_S = 3.0


class BadRequest(Exception):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@blueprint.errorhandler(BadRequest)
def _bad_request(err: BadRequest):
    return jsonify(error=str(err)), err.status


def _live():
    return current_app.config["KIOSK_LIVE"]


def _seat_count() -> int:
    table = getattr(current_app.config["KIOSK_CFG"], "table", None)
    return int(getattr(table, "seats", 4))


@blueprint.get("/")
def page():
    live = _live()
    return render_template(
        "live.html",
        state=live.state(),
        heartbeat_ms=int(current_app.config["KIOSK_HEARTBEAT"] * 1000),
        boot=live.boot,
        review=_review_endpoint(),
    )


def _review_endpoint() -> str | None:
    """The floor review's index endpoint (without the 'review.' prefix) when it is mounted."""
    for rule in current_app.url_map.iter_rules():
        if rule.endpoint.startswith("review.") and rule.rule.rstrip("/") == "/review":
            return rule.endpoint.split(".", 1)[1]
    return None


@blueprint.get("/state")
def state():
    return jsonify(_live().state())


@blueprint.get("/healthz")
def healthz():
    live = _live()
    source = live.source or {}
    ok = not live.closed and source.get("status") not in ("lost",)
    shipper = current_app.config.get("KIOSK_SHIPPER")
    central = shipper.state().to_json() if shipper is not None else None  # offline-first: never makes ok false
    return jsonify(ok=ok, phase=live.phase, source=source, version=live.version, central=central), \
        (200 if ok else 503)


@blueprint.get("/events")
def events():
    live = _live()
    gen = sse.stream(live, heartbeat=current_app.config["KIOSK_HEARTBEAT"],
                     retry_ms=current_app.config["KIOSK_RETRY_MS"],
                     last_event_id=request.headers.get("Last-Event-ID"))
    return Response(stream_with_context(gen), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@blueprint.get("/camera.jpg")
def camera():
    live = _live()
    frame = live.frame
    if frame is None or frame.get("image") is None:
        return jsonify(error="no camera frame yet"), 404
    verdict = live.verdict
    doubtful = {n.card for n in verdict.needs_check if n.card} if verdict is not None else set()
    stab = getattr(live.cfg, "stabilizer", None)
    min_conf = float(getattr(stab, "min_confidence", 0.8))
    detections = frame.get("detections") or ()
    jpeg = camera_jpeg(frame["image"], detections, doubtful, min_conf)
    return Response(jpeg, mimetype="image/jpeg", headers={
        "Cache-Control": "no-store",
        "X-Frame-Index": str(frame.get("frame_index", "")),
        "X-Cards": str(len(detections)),
    })


# ---- dealer actions ----

def _json_body() -> dict:
    body = request.get_json(silent=True)
    if body is None:
        body = request.form.to_dict()
    if not isinstance(body, dict):
        raise BadRequest("send the action as a JSON object")
    return body


def _seat(body: dict) -> int:
    seats = _seat_count()
    try:
        seat = int(body.get("seat"))
    except (TypeError, ValueError):
        raise BadRequest(f"seat must be a number from 1 to {seats}, got {body.get('seat')!r}") from None
    if not 1 <= seat <= seats:
        raise BadRequest(f"there is no seat {seat} (seats are 1 to {seats})")
    return seat


def _amount(value, what: str, allow_none: bool = False):
    if value in (None, "") and allow_none:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise BadRequest(f"{what} must be a number, got {value!r}") from None
    if number < 0 or number != number or number == float("inf"):
        raise BadRequest(f"{what} must be zero or more, got {value!r}")
    return int(number) if number.is_integer() else number


def _runner():
    runner = current_app.config["KIOSK_RUNNER"]
    if runner is None:
        raise BadRequest("the table pipeline is not running: actions cannot be applied", 503)
    return runner


def _apply(action: DealerAction):
    """Hand the action to the pipeline and report what it said (its hub "action" event)."""
    runner = _runner()
    hub = current_app.config["KIOSK_HUB"]
    answered = threading.Event()
    answer: dict = {}

    def listen(event):
        if event.kind == "action" and event.data.get("action") is action:
            answer.update(ok=bool(event.data.get("ok", True)), message=event.data.get("message", ""))
            answered.set()

    unsubscribe = hub.subscribe(listen)
    try:
        runner.apply(action)
        answered.wait(ACTION_WAIT_S)
    except KioskError as err:
        raise BadRequest(str(err)) from None
    finally:
        unsubscribe()
    if not answered.is_set():
        return jsonify(ok=True, pending=True, message="sent to the table"), 202
    status = 200 if answer["ok"] else 409
    return jsonify(ok=answer["ok"], message=answer["message"]), status


@blueprint.post("/action")
def action():
    body = _json_body()
    kind = body.get("kind")
    if kind not in SEAT_ACTIONS | TABLE_ACTIONS:
        raise BadRequest(f"unknown action {kind!r}")
    live = _live()
    fields: dict = {"kind": kind, "at": time.time(), "hand_id": live.hand_id}
    if kind in SEAT_ACTIONS:
        fields["seat"] = _seat(body)
    if kind == "set_dead":
        value = body.get("value")
        if not isinstance(value, bool):
            raise BadRequest("set_dead needs value true (dead) or false (playing)")
        fields["value"] = value
    elif kind == "set_stack":
        fields["value"] = _amount(body.get("value"), f"the stack of seat {fields['seat']}", allow_none=True)
    elif kind == "set_stake":
        stake = _amount(body.get("value"), "the stake")
        if stake == 0:
            raise BadRequest("the stake must be more than zero")
        fields["value"] = stake
        pair = body.get("pair")
        if pair is not None:
            try:
                a, b = (int(s) for s in pair)
            except (TypeError, ValueError):
                raise BadRequest(f"a pair stake names two seats, got {pair!r}") from None
            seats = _seat_count()
            if a == b or not (1 <= a <= seats and 1 <= b <= seats):
                raise BadRequest(f"a pair stake names two different seats from 1 to {seats}, got {pair!r}")
            fields["extra"] = {"pair": [a, b]}
    return _apply(DealerAction(**fields))


def _current_card(live, seat: int, row: str, index: int) -> str | None:
    verdict = live.verdict
    if verdict is None or (live.hand_id is not None and verdict.hand_id != live.hand_id):
        return None
    for shown in verdict.showdown.get("seats", []):
        if shown.get("seat") == seat:
            cards = shown.get("cards" if row == "pile" else row) or []
            return str(cards[index]) if 0 <= index < len(cards) else None
    return None


def _doubtful(live, seat: int, card: str) -> bool:
    verdict = live.verdict
    return verdict is not None and any(n.seat == seat and n.card == card for n in verdict.needs_check)


@blueprint.post("/correct")
def correct():
    """A floor-authorised correction of one misread card (PIN checked before anything else)."""
    body = _json_body()
    cfg = current_app.config["KIOSK_CFG"]
    stored = getattr(getattr(cfg, "web", None), "floor_pin_hash", None)
    if not stored:
        raise BadRequest("no floor PIN is set on this kiosk: run `kiosk pin` first", 403)
    limiter = current_app.config["KIOSK_PIN_LIMITER"]
    client = request.remote_addr or "?"
    wait = limiter.retry_after(client)
    if wait > 0:
        response = jsonify(error=f"too many wrong PINs: try again in {int(wait) + 1} s")
        response.headers["Retry-After"] = str(int(wait) + 1)
        return response, 429
    if not verify_pin(str(body.get("pin", "")), stored):
        left = limiter.failed(client)
        log.warning("wrong floor PIN from %s (%d attempts left this minute)", client, left)
        return jsonify(error="wrong PIN: nothing was changed", attempts_left=left), 403

    live = _live()
    seat = _seat(body)
    row = body.get("row")
    if row not in CORRECTABLE_ROWS:
        raise BadRequest(f"row must be one of {', '.join(CORRECTABLE_ROWS)}, got {row!r}")
    try:
        index = int(body.get("index"))
    except (TypeError, ValueError):
        raise BadRequest(f"index must be the card's position in the row, got {body.get('index')!r}") from None
    by = str(body.get("by") or "").strip()
    if not by or len(by) > 40:
        raise BadRequest("say who authorises the correction (floor staff id, up to 40 characters)")
    try:
        after = str(parse_card(str(body.get("after", ""))))
        before = str(parse_card(str(body.get("before", ""))))
    except CardError as err:
        raise BadRequest(str(err)) from None
    current = _current_card(live, seat, row, index)
    if current is None:
        raise BadRequest(f"seat {seat} has no card at {row} {index + 1} in the current verdict", 409)
    if current != before:
        raise BadRequest(f"seat {seat} {row} {index + 1} is now {current}, not {before}: look again", 409)
    if after == before and not _doubtful(live, seat, before):
        raise BadRequest(f"the card is already {after}: nothing to correct")
    # after == before on a card the kiosk was unsure of: the floor confirms it as read
    action = DealerAction(kind="correct_card", seat=seat, row=row, index=index, before=before,
                          after=after, by=by, at=time.time(), hand_id=live.hand_id)
    return _apply(action)


@blueprint.get("/favicon.ico")
def favicon():
    return Response(status=204)
