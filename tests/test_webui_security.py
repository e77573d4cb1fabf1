"""rolit.webui.security: the access token of ``--lan``, CSRF tokens, security headers."""

from __future__ import annotations

import re
import stat

from helpers import make_client

TOKEN = "table-token-123456"


def _unchanged(client, before) -> None:  # type: ignore[no-untyped-def]
    after = client.get("/api/state").get_json()
    assert after["moves"] == before["moves"] and after["board"] == before["board"]


def test_every_answer_has_the_security_headers(client) -> None:
    for url in ("/", "/camera", "/calibrate", "/invite", "/games", "/api/state", "/static/table.js", "/api/nothing"):
        with client.get(url) as response:
            headers = response.headers
        csp = headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, url
        assert "unsafe-inline" not in csp
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["Referrer-Policy"] == "no-referrer"


def test_pages_have_no_inline_script_or_style(client) -> None:
    # The policy forbids inline code: a page that had some would break in the browser.
    for url in ("/", "/camera", "/calibrate", "/invite", "/games"):
        page = client.get(url).get_data(as_text=True)
        for tag in re.findall(r"<script\b[^>]*>", page):
            assert "src=" in tag or 'type="application/json"' in tag, (url, tag)
        assert " style=" not in page and "<style" not in page, url
        assert re.search(r' on[a-z]+="', page) is None, url


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(app) -> None:
    stranger = app.test_client()  # deliberately not make_client: no token
    before = stranger.get("/api/state").get_json()
    for url, body in (("/api/click", {"square": "b2"}), ("/api/new-game", {"variant": "classic"}),
                      ("/api/undo", {"confirm": True}), ("/api/record", None)):
        response = stranger.post(url, json=body)
        assert response.status_code == 403, url
        assert "security token" in response.get_json()["error"]
        _unchanged(stranger, before)
    wrong = stranger.post("/api/click", json={"square": "b2"}, headers={"X-CSRF-Token": "x" * 64})
    assert wrong.status_code == 403
    _unchanged(stranger, before)


def test_the_page_carries_the_token_the_api_wants(app) -> None:
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    token = re.search(r'<meta name="csrf-token" content="([0-9a-f]+)">', page).group(1)  # type: ignore[union-attr]
    assert client.post("/api/click", json={"square": "b2"}, headers={"X-CSRF-Token": token}).status_code == 200


def test_secret_survives_a_restart_and_is_private(make_app, tmp_path) -> None:
    first = make_app(VARIANT="quick6")
    again = make_app(VARIANT="quick6")
    assert first.config["CSRF_TOKEN"] == again.config["CSRF_TOKEN"]
    key = tmp_path / "instance" / "secret.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_without_the_access_token_only_the_asking_page_is_served(make_app) -> None:
    app = make_app(VARIANT="quick6", ACCESS_TOKEN=TOKEN)
    client = make_client(app)
    page = client.get("/")
    assert page.status_code == 401 and b'name="token"' in page.data and b'data-testid="board"' not in page.data
    for url in ("/api/state", "/stream/frame.jpg", "/api/record.txt"):
        response = client.get(url)
        assert response.status_code == 401 and "access code" in response.get_json()["error"], url
    assert client.post("/api/click", json={"square": "b2"}).status_code == 401
    with client.get("/static/style.css") as style:
        assert style.status_code == 200
    wrong = client.get("/?token=nope")
    assert wrong.status_code == 401 and b"not right" in wrong.data
    assert client.get("/games").status_code == 401


def test_the_token_in_the_link_becomes_a_cookie(make_app) -> None:
    app = make_app(VARIANT="quick6", ACCESS_TOKEN=TOKEN)
    client = make_client(app)
    response = client.get(f"/?token={TOKEN}")
    assert response.status_code == 303 and response.headers["Location"] == "/"
    cookie = response.headers["Set-Cookie"]
    assert "rolit_access=" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert client.get("/").status_code == 200
    assert client.get("/api/state").status_code == 200
    assert client.post("/api/click", json={"square": "b2"}).status_code == 200
    # An API call may carry the token itself (no redirect).
    assert make_client(app).get(f"/api/state?token={TOKEN}").status_code == 200


def test_invite_page_shows_the_link_and_qr_only_on_the_lan(make_app) -> None:
    local = make_client(make_app(VARIANT="quick6")).get("/invite").get_data(as_text=True)
    assert "rolit serve --lan" in local and "<svg" not in local
    url = f"http://192.168.1.20:5000/?token={TOKEN}"
    app = make_app(VARIANT="quick6", ACCESS_TOKEN=TOKEN, INVITE_URL=url)
    client = make_client(app)
    client.get(f"/?token={TOKEN}")
    page = client.get("/invite").get_data(as_text=True)
    assert url in page and "<svg" in page
