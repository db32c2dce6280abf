"""Floor review: recorded hands listed and searchable, one page per hand, a one-page report.

Mounted by `create_app` under /review/ when a store is given; reads the store from
`current_app.config["KIOSK_STORE"]`. Read-only except the review flag (a flagged hand is
never pruned). Clearing a flag needs the floor PIN when one is configured. The floor server
(`kiosk floor serve`) mounts the same pages over every table's records in PostgreSQL
(`kiosk.records.central.CentralStore`, `read_only`: no flag is set there).
"""

from __future__ import annotations

import datetime as dt
import time

import cv2
import numpy as np
from flask import Blueprint, Response, abort, current_app, jsonify, redirect, render_template, request, send_file, url_for

from kiosk.cards import ROWS
from kiosk.paigow.rulings import payment_lines
from kiosk.paigow.spots import ROWS as PAIGOW_ROWS
from kiosk.records.report import RULE_TITLES, ascii_text, render_report, report_pdf, report_png, rule_lines
from kiosk.records.store import HandQuery, HandStore
from kiosk.web.routes import record_wrong_pin
from kiosk.web.security import check_floor_pin

blueprint = Blueprint("review", __name__, template_folder="templates")

PAGE_SIZE = 50
STATUS_LABELS = {
    "confident": "confident",
    "needs_check": "needs dealer check",
    "integrity": "table integrity",
    "unscored": "not scored",
}


def _store() -> HandStore:
    store = current_app.config.get("KIOSK_STORE")
    if store is None:
        abort(404)
    return store


def _fmt_time(t) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t)) if t else "-"


@blueprint.app_template_filter("review_time")
def _time_filter(t) -> str:
    return _fmt_time(t)


class FilterError(ValueError):
    pass


def _query_from_args(args) -> tuple[HandQuery, dict, list[str]]:
    """The search form's values as a HandQuery; problems are reported, never a 500."""
    errors: list[str] = []
    form = {k: (args.get(k) or "").strip() for k in
            ("q", "since", "until", "seat", "foul", "natural", "min_amount", "status", "review", "page",
             "table", "text", "disputed")}

    def date(name: str, end: bool = False) -> float | None:
        """A day (to its end, for `until`) or a time of day: YYYY-MM-DD, YYYY-MM-DD HH:MM."""
        text = form[name]
        if not text:
            return None
        for pattern, whole_day in (("%Y-%m-%d", True), ("%Y-%m-%dT%H:%M", False), ("%Y-%m-%d %H:%M", False)):
            try:
                when = dt.datetime.strptime(text, pattern)
            except ValueError:
                continue
            return (when + dt.timedelta(days=1) if end and whole_day else when).timestamp()
        errors.append(f"{name}: '{text}' is not a date or time (YYYY-MM-DD or YYYY-MM-DD HH:MM)")
        return None

    def yes_no(name: str) -> bool | None:
        return {"yes": True, "no": False}.get(form[name])

    seat = None
    if form["seat"]:
        if form["seat"].isdigit() and int(form["seat"]) > 0:
            seat = int(form["seat"])
        else:
            errors.append(f"seat: '{form['seat']}' is not a seat number")
    min_amount = None
    if form["min_amount"]:
        try:
            min_amount = float(form["min_amount"])
        except ValueError:
            errors.append(f"amount: '{form['min_amount']}' is not a number")
    page = int(form["page"]) if form["page"].isdigit() and int(form["page"]) > 0 else 1
    status = form["status"] if form["status"] in STATUS_LABELS else None
    query = HandQuery(
        text=form["q"] or None, since=date("since"), until=date("until", end=True), seat=seat,
        foul=yes_no("foul"), natural=yes_no("natural"), min_amount=min_amount, status=status,
        under_review=True if form["review"] == "yes" else None,
        table=form["table"] or None, verdict_text=form["text"] or None, disputed=yes_no("disputed"),
        limit=PAGE_SIZE + 1, offset=(page - 1) * PAGE_SIZE,
    )
    form["page"] = page
    return query, form, errors


@blueprint.get("/")
def hands():
    query, form, errors = _query_from_args(request.args)
    rows = _store().list_hands(query)
    more = len(rows) > PAGE_SIZE
    args = {k: v for k, v in request.args.items() if k != "page"}
    tables = getattr(_store(), "tables", None)
    return render_template(
        "review/list.html", hands=rows[:PAGE_SIZE], form=form, errors=errors, status_labels=STATUS_LABELS,
        tables=tables() if tables else None,
        prev_url=url_for(".hands", **args, page=form["page"] - 1) if form["page"] > 1 else None,
        next_url=url_for(".hands", **args, page=form["page"] + 1) if more else None,
    )


def _hand_or_404(hand_id: str):
    hand = _store().hand(hand_id)
    if hand is None:
        abort(404, description=f"no recorded hand {hand_id!r}")
    return hand


def _revision(hand):
    rev = request.args.get("rev", "")
    if rev == "":
        return hand.latest
    if not rev.isdigit() or not any(r.revision == int(rev) for r in hand.revisions):
        abort(404, description=f"hand {hand.hand_id} has no verdict revision {rev!r}")
    return next(r for r in hand.revisions if r.revision == int(rev))


def _key_frame(hand, rev):
    """The key frame in force for a revision: its own, else the newest one recorded before it."""
    for r in reversed([x for x in hand.revisions if x.revision <= rev.revision]):
        for m in r.media:
            if m.role == "key_frame":
                return r, m
    return None, None


def _frame_size(store: HandStore, media) -> tuple[int, int] | None:
    meta = media.meta or {}
    if meta.get("width") and meta.get("height"):
        return int(meta["width"]), int(meta["height"])
    try:
        data = store.media_abspath(media.path).read_bytes()
    except OSError:
        return None
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_REDUCED_GRAYSCALE_8)
    return None if image is None else (image.shape[1] * 8, image.shape[0] * 8)


def _cards_by_seat(verdict) -> list[dict]:
    """For the page: each seat's rows with each card's evidence (confidence, votes)."""
    evidence = {(e.seat, e.card): e for e in verdict.evidence}
    doubtful = {(n.seat, n.card) for n in verdict.needs_check}
    result = verdict.result if isinstance(verdict.result, dict) else {}
    seat_results = {s.get("seat"): s for s in result.get("seats") or []}
    out = []
    seats = verdict.showdown.get("seats", [])
    if verdict.showdown.get("game") == "paigow":  # the banker's hand first, as laid out
        seats = [dict(verdict.showdown.get("banker") or {}, banker=True)] + seats
    for s in seats:
        seat = s.get("seat")
        res = seat_results.get(seat, {}) if not s.get("banker") else {"status": "banker"}
        rows = []
        for row in (*ROWS, "cards", *PAIGOW_ROWS):
            cards = s.get(row)
            if not cards:
                continue
            described = ((res.get("rows") or {}).get(row) or {}).get("hand") or (res.get("hands") or {}).get(row)
            rows.append({
                "name": "pile" if row == "cards" else row,
                "hand": described,
                "royalty": ((res.get("rows") or {}).get(row) or {}).get("royalty"),
                "cards": [
                    {"card": c, "evidence": evidence.get((seat, c)), "doubtful": (seat, c) in doubtful}
                    for c in cards
                ],
            })
        out.append({
            "seat": seat, "status": res.get("status") or ("dead" if s.get("dead") else "?"),
            "points": res.get("points"), "natural": res.get("natural_text"), "declared": s.get("declared_natural"),
            "foul_reason": res.get("foul_reason"), "stack": s.get("stack"), "rows": rows,
        })
    return out


def _paigow_payments(result) -> list[dict] | None:
    """A scored Pai Gow table's payments (None for Chinese Poker: its transfers are listed)."""
    if not isinstance(result, dict) or result.get("game") != "paigow" or "error" in result:
        return None

    return payment_lines(result)


@blueprint.get("/hands/<hand_id>")
def hand(hand_id: str):
    store = _store()
    hand = _hand_or_404(hand_id)
    rev = _revision(hand)
    key_rev, key = _key_frame(hand, rev)
    clip = next((m for r in hand.revisions for m in r.media if m.role == "clip"), None)
    size = _frame_size(store, key) if key else None
    return render_template(
        "review/hand.html", hand=hand, rev=rev, verdict=rev.verdict, result=rev.verdict.result,
        key=key, key_rev=key_rev, frame_size=size, clip=clip, seats=_cards_by_seat(rev.verdict),
        rulings=rule_lines(rev.verdict.result), paigow_payments=_paigow_payments(rev.verdict.result),
        status_labels=STATUS_LABELS, rule_titles=RULE_TITLES,
        pin_required=bool(current_app.config["KIOSK_CFG"].web.floor_pin_hash),
        message=request.args.get("message"), read_only=getattr(store, "read_only", False),
    )


@blueprint.get("/hands/<hand_id>/media/<int:seq>/<role>")
def media(hand_id: str, seq: int, role: str):
    """A key frame or clip, served only through the record that references it."""
    store = _store()
    hand = _hand_or_404(hand_id)
    for r in hand.revisions:
        if r.seq == seq:
            for m in r.media:
                if m.role == role:
                    path = store.media_abspath(m.path)
                    if not path.exists():
                        abort(404, description=f"the {role.replace('_', ' ')} of record {seq} is missing")
                    mimetype = "image/jpeg" if role == "key_frame" else "video/x-motion-jpeg"
                    return send_file(path, mimetype=mimetype, as_attachment=role != "key_frame",
                                     download_name=f"{hand_id}-r{r.revision}-{path.name}")
    abort(404)


def _report_image(hand_id: str):
    store = _store()
    hand = _hand_or_404(hand_id)
    rev = _revision(hand)
    _, key = _key_frame(hand, rev)
    jpeg = None
    if key is not None:
        try:
            jpeg = store.media_abspath(key.path).read_bytes()
        except OSError:
            jpeg = None
    return hand, rev, render_report(hand, rev.revision, jpeg)


@blueprint.get("/hands/<hand_id>/report.png")
def report_as_png(hand_id: str):
    hand, rev, pages = _report_image(hand_id)
    return Response(report_png(pages), mimetype="image/png", headers={
        "Content-Disposition": f'inline; filename="{ascii_text(hand.hand_id)}-r{rev.revision}-report.png"'})


@blueprint.get("/hands/<hand_id>/report.pdf")
def report_as_pdf(hand_id: str):
    hand, rev, pages = _report_image(hand_id)
    return Response(report_pdf(pages), mimetype="application/pdf", headers={
        "Content-Disposition": f'attachment; filename="{ascii_text(hand.hand_id)}-r{rev.revision}-report.pdf"'})


@blueprint.get("/hands/<hand_id>/record.json")
def record_json(hand_id: str):
    hand = _hand_or_404(hand_id)
    return jsonify(
        hand_id=hand.hand_id,
        under_review=bool(hand.flag),
        revisions=[
            {"seq": r.seq, "revision": r.revision, "hash": r.hash, "prev_hash": r.prev_hash, "status": r.status,
             "started_at": r.started_at, "config": r.config, "verdict": r.verdict.to_json(),
             "media": [{"role": m.role, "path": m.path, "sha256": m.sha256, "bytes": m.bytes} for m in r.media]}
            for r in hand.revisions
        ],
        actions=[
            {"seq": a.seq, "hash": a.hash, "kind": a.action.kind, "seat": a.action.seat, "row": a.action.row,
             "index": a.action.index, "before": a.action.before, "after": a.action.after, "by": a.action.by,
             "at": a.action.at, "value": a.action.value, "ok": a.ok, "message": a.message}
            for a in hand.actions
        ],
    )


@blueprint.post("/hands/<hand_id>/review")
def set_review(hand_id: str):
    store = _store()
    if getattr(store, "read_only", False):
        abort(405, description="the floor review is read-only: a hand is put under review at its table")
    hand = _hand_or_404(hand_id)
    what = request.form.get("action", "flag")
    by = (request.form.get("by") or "").strip()[:40]
    if what == "flag":
        if not by:
            return redirect(url_for(".hand", hand_id=hand_id, message="say who puts the hand under review"))
        store.flag(hand.hand_id, by, (request.form.get("note") or "").strip()[:500])
        return redirect(url_for(".hand", hand_id=hand_id, message="hand under review: it will not be pruned"))
    stored = current_app.config["KIOSK_CFG"].web.floor_pin_hash
    if stored:
        client = request.remote_addr or "?"
        checked = check_floor_pin(current_app.config.get("KIOSK_PIN_LIMITER"), client, request.form.get("pin"), stored)
        if checked is not True and checked is not False:
            return redirect(url_for(".hand", hand_id=hand_id,
                                    message=f"too many wrong PINs: try again in {int(checked) + 1} s"))
        if not checked:
            record_wrong_pin(client, {"hand": hand.hand_id, "by": by})
            return redirect(url_for(".hand", hand_id=hand_id, message="wrong floor PIN: the hand stays under review"))
    store.unflag(hand.hand_id)
    return redirect(url_for(".hand", hand_id=hand_id, message="review closed"))
