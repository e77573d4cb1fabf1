"""Who may use the table page, and what a browser may do with it.

- **Access token** (``ACCESS_TOKEN``, set by ``rolit serve --lan``): every request
  must carry it, once as ``?token=...`` (the printed URL, the QR code) and then as
  a cookie. Without it only a page asking for it is served; the API and the
  streams answer 401.
- **CSRF token** (``CSRF_TOKEN``): every state-changing request (POST, PUT,
  PATCH, DELETE) must send it in the ``X-CSRF-Token`` header. The pages carry it
  in a ``<meta name="csrf-token">`` tag; another site's page cannot read it.
- **Headers**: a Content-Security-Policy with no inline script, no framing
  (``frame-ancestors 'none'``), ``nosniff`` and no referrer (the access token is
  in the first URL a phone opens).

Both tokens are kept in the instance folder (``secret.key``, ``access-token``,
readable by the owner only), so a restart after a crash does not lock out the
phones at the table.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
from pathlib import Path
from urllib.parse import urlencode

from flask import Flask, Response, jsonify, redirect, render_template, request

from rolit.engine.messages import _

__all__ = ["ACCESS_COOKIE", "CSRF_HEADER", "init_security", "load_or_create_secret", "new_access_token"]

log = logging.getLogger(__name__)

ACCESS_COOKIE = "rolit_access"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])


def load_or_create_secret(path: Path, make: str | None = None) -> str:
    """The secret kept in ``path``; made (``make`` or a random one) and saved owner-only on first use."""
    try:
        text = path.read_text(encoding="ascii").strip()
        if len(text) >= 16:
            return text
        log.warning("%s is too short to be a secret: making a new one", path)
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("%s cannot be read (%s): making a new one", path, exc)
    value = make or secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(value + "\n")
    os.replace(tmp, path)
    return value


def new_access_token(instance: Path, rotate: bool = False) -> str:
    """The access token of this instance folder (a new one with ``rotate``)."""
    path = instance / "access-token"
    if rotate:
        path.unlink(missing_ok=True)
    return load_or_create_secret(path, secrets.token_urlsafe(12))


def _same(a: str | None, b: str) -> bool:
    return a is not None and hmac.compare_digest(a.encode("utf-8", "replace"), b.encode("utf-8"))


def init_security(app: Flask) -> None:
    """Set the app's secret and CSRF token, and install the access gate, the CSRF check and the headers."""
    instance = Path(app.instance_path)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = load_or_create_secret(instance / "secret.key")
    secret = str(app.config["SECRET_KEY"]).encode("utf-8")
    app.config["CSRF_TOKEN"] = hmac.new(secret, b"rolit csrf", hashlib.sha256).hexdigest()
    app.jinja_env.globals["csrf_token"] = lambda: app.config["CSRF_TOKEN"]

    @app.before_request
    def gate() -> Response | None:
        token = app.config.get("ACCESS_TOKEN")
        if token:
            refused = _check_access(str(token))
            if refused is not None:
                return refused
        if request.method not in SAFE_METHODS and not _same(request.headers.get(CSRF_HEADER), app.config["CSRF_TOKEN"]):
            log.info("refused %s %s: no CSRF token", request.method, request.path)
            response = jsonify(error=_("This request lacks the page's security token: reload the page and try again."))
            response.status_code = 403
            return response
        return None

    @app.after_request
    def headers(response: Response) -> Response:
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        response.headers.setdefault("Permissions-Policy", "camera=(self), microphone=(), geolocation=()")
        return response


def _check_access(token: str) -> Response | None:
    """``None`` when the request may go on; otherwise the answer to a stranger."""
    offered = request.args.get("token")
    if _same(offered, token):
        # Swap the token in the address for a cookie, so it does not stay in the
        # address bar or the history.
        if request.method == "GET" and not request.path.startswith(("/api/", "/stream/")):
            query = {k: v for k, v in request.args.items() if k != "token"}
            response = redirect(request.path + ("?" + urlencode(query) if query else ""), code=303)
        else:
            return None
        response.set_cookie(ACCESS_COOKIE, token, max_age=30 * 24 * 3600, httponly=True,
                            samesite="Lax", secure=request.is_secure)
        return response  # type: ignore[return-value]
    if _same(request.cookies.get(ACCESS_COOKIE), token):
        return None
    if request.path.startswith("/static/"):
        return None  # the stylesheet of the page asking for the token; nothing secret
    log.info("refused %s %s from %s: no access token", request.method, request.path, request.remote_addr)
    if request.path.startswith(("/api/", "/stream/")):
        response = jsonify(error=_("This table needs its access code: open the link or QR code that rolit shows."))
        response.status_code = 401
        return response
    wrong = offered is not None
    return Response(render_template("access.html", wrong=wrong), status=401, mimetype="text/html")
