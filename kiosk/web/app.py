"""The dealer display: a Flask app fed by the hub, served by `kiosk run`.

`create_app(hub, runner=None, cfg=None, store=None)` is the whole contract: `cfg` is the validated
`KioskConfig` (None: the defaults). With a
`store` (kiosk.records.store.HandStore) the floor review pages of `kiosk.web.review`
are mounted under /review/. Every POST must carry the session's CSRF token, in the
`X-CSRF-Token` header or a `csrf_token` form field; templates get it from `csrf_token()`.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import Flask, jsonify, request, session

from kiosk.table.config import KioskConfig
from kiosk.table.hub import Hub
from kiosk.web.live import LiveState
from kiosk.web.review import blueprint as review_blueprint
from kiosk.web.routes import blueprint as live_blueprint
from kiosk.web.security import AttemptLimiter, new_csrf_token, same_token


MAX_BODY = 64 * 1024  # an action or a correction is a few hundred bytes
# Scripts only from the kiosk's own static files (no inline script, no eval); the page may not be framed.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")


def _security_headers(response):
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def create_app(hub: Hub, runner: Any = None, cfg: KioskConfig | None = None, store: Any = None, *,
               heartbeat: float = 3.0, retry_ms: int = 2000) -> Flask:
    if cfg is None:
        cfg = KioskConfig()
    elif not isinstance(cfg, KioskConfig):
        raise TypeError(f"create_app takes a KioskConfig (kiosk.table.config.load_config), not {type(cfg).__name__}")
    app = Flask(__name__)
    app.secret_key = secrets.token_bytes(32)  # sessions last as long as this process
    app.config.update(
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_HTTPONLY=True,
        MAX_CONTENT_LENGTH=MAX_BODY,
        KIOSK_HUB=hub,
        KIOSK_RUNNER=runner,
        KIOSK_CFG=cfg,
        KIOSK_STORE=store,
        KIOSK_LIVE=LiveState(hub, runner, cfg),
        KIOSK_HEARTBEAT=heartbeat,
        KIOSK_RETRY_MS=retry_ms,
        KIOSK_PIN_LIMITER=AttemptLimiter(free=cfg.web.pin_attempts_per_minute),
    )

    def csrf_token() -> str:
        if "csrf" not in session:
            session["csrf"] = new_csrf_token()
        return session["csrf"]

    app.jinja_env.globals["csrf_token"] = csrf_token
    app.after_request(_security_headers)
    app.register_error_handler(413, lambda err: (jsonify(error=f"request too large (at most {MAX_BODY // 1024} KiB)"), 413))

    @app.before_request
    def check_csrf():
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        given = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token")
        if not same_token(given, session.get("csrf")):
            return jsonify(error="missing or wrong CSRF token: reload the page and try again"), 400
        return None


    app.register_blueprint(live_blueprint)
    if store is not None:
        app.register_blueprint(review_blueprint, url_prefix="/review")
    return app


def attach_runner(app: Flask, runner: Any) -> None:
    """Give a running app its pipeline once it is up (`kiosk run` serves the page first)."""
    app.config["KIOSK_RUNNER"] = runner
    app.config["KIOSK_LIVE"].attach(runner)
