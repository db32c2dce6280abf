"""Routes of the live page: the page, its event stream, the camera view and the dealer's actions."""

from __future__ import annotations

import logging
import threading
import time

from flask import Blueprint, Response, current_app, jsonify, render_template, request, stream_with_context

from kiosk.errors import KioskError
from kiosk.table.actions import ActionError, CorrectCard, DealerAction, TableAction, parse_action
from kiosk.web import sse
from kiosk.web.camera import camera_jpeg
from kiosk.web.live import is_paigow
from kiosk.web.security import check_floor_pin

log = logging.getLogger(__name__)
blueprint = Blueprint("live", __name__)

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
    return current_app.config["KIOSK_CFG"].table.seats


@blueprint.get("/")
def page():
    live = _live()
    return render_template(
        "paigow.html" if is_paigow(live.cfg) else "live.html",
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
    runner = current_app.config["KIOSK_RUNNER"]
    reason = getattr(runner, "problem", None)
    if reason is None and source.get("status") == "lost":
        reason = f"camera lost: {source.get('detail') or 'no frames'}"
    if reason is None and live.closed:
        reason = "the display is shutting down"
    ok = reason is None
    shipper = current_app.config.get("KIOSK_SHIPPER")
    central = shipper.state().to_json() if shipper is not None else None  # offline-first: never makes ok false
    body = dict(ok=ok, phase=live.phase, source=source, version=live.version, central=central)
    if not ok:
        body["reason"] = reason
    return jsonify(body), (200 if ok else 503)


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
    min_conf = live.cfg.stabilizer.min_confidence
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


def _runner():
    runner = current_app.config["KIOSK_RUNNER"]
    if runner is None:
        raise BadRequest("the table pipeline is not running: actions cannot be applied", 503)
    return runner


def _apply(typed: TableAction):
    """Hand the action to the pipeline, which applies it and records it, and report what it said
    (its hub "action" event)."""
    action = typed.record(at=time.time(), hand_id=_live().hand_id)
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
        runner.apply(action, typed)
        answered.wait(ACTION_WAIT_S)
    except KioskError as err:
        raise BadRequest(str(err)) from None
    finally:
        unsubscribe()
    if not answered.is_set():
        return jsonify(ok=True, pending=True, message="sent to the table"), 202
    status = 200 if answer["ok"] else 409
    return jsonify(ok=answer["ok"], message=answer["message"]), status


def _parsed(parse, body: dict) -> TableAction:
    """The request as its typed action, checked whole (400 naming the field) before anything changes."""
    try:
        return parse(body, _seat_count())
    except ActionError as err:
        raise BadRequest(str(err)) from None


@blueprint.post("/action")
def action():
    """A dealer's action (a correction has its own route, behind the floor PIN)."""
    return _apply(_parsed(parse_action, _json_body()))


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
    stored = current_app.config["KIOSK_CFG"].web.floor_pin_hash
    if not stored:
        raise BadRequest("no floor PIN is set on this kiosk: run `kiosk pin` first", 403)
    limiter = current_app.config["KIOSK_PIN_LIMITER"]
    client = request.remote_addr or "?"
    checked = check_floor_pin(limiter, client, body.get("pin"), stored)
    if checked is not True and checked is not False:
        wait = int(checked) + 1
        response = jsonify(error=f"too many wrong PINs: try again in {wait} s")
        response.headers["Retry-After"] = str(wait)
        return response, 429
    if not checked:
        left = limiter.attempts_left(client)
        log.warning("wrong floor PIN from %s (%d attempts left before each one waits)", client, left)
        record_wrong_pin(client, body)
        return jsonify(error="wrong PIN: nothing was changed", attempts_left=left), 403

    live = _live()
    fix = _parsed(CorrectCard.parse, body)
    where = f"{fix.row} {fix.index + 1}"
    current = _current_card(live, fix.seat, fix.row, fix.index)
    if current is None:
        raise BadRequest(f"seat {fix.seat} has no card at {where} in the current verdict", 409)
    if current != fix.before:
        raise BadRequest(f"seat {fix.seat} {where} is now {current}, not {fix.before}: look again", 409)
    if fix.after == fix.before and not _doubtful(live, fix.seat, fix.before):
        raise BadRequest(f"the card is already {fix.after}: nothing to correct")
    # after == before on a card the kiosk was unsure of: the floor confirms it as read
    return _apply(fix)


def record_wrong_pin(client: str, body: dict) -> None:
    """A wrong PIN goes into the chained records (when recording), with what it tried to change."""
    store = current_app.config.get("KIOSK_STORE")
    if store is None:
        return
    tried = {k: str(body.get(k))[:40] for k in ("seat", "row", "index", "before", "after", "hand") if k in body}
    action = DealerAction(kind="wrong_pin", by=str(body.get("by") or "")[:40] or None, at=time.time(),
                          hand_id=_live().hand_id, extra={"client": client, "tried": tried})
    try:
        store.append_action(action, ok=False, message=f"wrong floor PIN from {client}")
    except Exception as err:  # the refusal stands even if the record database is failing
        log.error("could not record a wrong PIN: %s", err)


@blueprint.get("/favicon.ico")
def favicon():
    return Response(status=204)
