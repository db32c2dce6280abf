"""The floor review server (`kiosk floor serve`): the review pages of `kiosk.web.review` over the
floor's PostgreSQL, for every table, read-only. No dealer display, no form posts: flags and
corrections are made at the table."""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, redirect, request, url_for

from kiosk.table.config import KioskConfig
from kiosk.web.review import blueprint as review_blueprint



def create_floor_app(store: Any, cfg: KioskConfig | None = None) -> Flask:
    """The floor's review app over `store` (a CentralStore); `cfg` the validated KioskConfig (None: defaults)."""
    app = Flask(__name__)
    cfg = cfg if cfg is not None else KioskConfig()
    app.config.update(KIOSK_STORE=store, KIOSK_CFG=cfg, KIOSK_FLOOR=True)
    app.jinja_env.globals["csrf_token"] = lambda: ""  # nothing here is ever posted

    @app.before_request
    def read_only():
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            return jsonify(error="the floor review is read-only: flags and corrections are made at the table"), 405
        return None

    @app.get("/")
    def index():
        return redirect(url_for("review.hands"))

    @app.get("/healthz")
    def healthz():
        try:
            tables = store.tables()
        except Exception as err:  # the database went away: say so, do not crash the page
            return jsonify(ok=False, error=str(err).strip().splitlines()[0]), 503
        return jsonify(ok=True, tables=tables)


    app.register_blueprint(review_blueprint, url_prefix="/review")
    return app
