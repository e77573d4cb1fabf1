"""A phone joining a ``--lan`` table in a real browser: the access code, then the page works under
the Content-Security-Policy (no script or style blocked) and its clicks carry the CSRF token."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer

TOKEN = "family-table-code"


@pytest.fixture
def lan_table(tmp_path: Path) -> Iterator[LiveServer]:
    from rolit.webui import create_app

    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "SOURCE": "manual", "VARIANT": "quick6",
                      "ACCESS_TOKEN": TOKEN, "INVITE_URL": f"http://192.168.1.2:5000/?token={TOKEN}"})
    server = LiveServer(app)
    yield server
    server.close()


def _blocked(page: Any) -> list[str]:
    """Console errors of the page (a CSP violation is reported there)."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def test_joining_with_the_code_then_playing(browser: Any, lan_table: LiveServer) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.set_default_timeout(15_000)
    errors = _blocked(page)
    page.goto(lan_table.url + "/")
    page.wait_for_selector("[data-testid=access-code]")
    page.fill("[data-testid=access-code]", "wrong")
    page.press("[data-testid=access-code]", "Enter")
    page.wait_for_selector("text=That code is not right")
    page.fill("[data-testid=access-code]", TOKEN)
    page.press("[data-testid=access-code]", "Enter")
    page.wait_for_function("() => document.querySelectorAll('#board g[data-colour]').length == 4")
    assert "token" not in page.url  # swapped for a cookie
    page.click("#board g[data-square='e3']")
    page.wait_for_function("() => document.querySelectorAll('#moves li:not(.empty)').length == 1")
    for path in ("/invite", "/games", "/camera", "/calibrate"):
        page.goto(lan_table.url + path)
        page.wait_for_load_state("load")
    assert page.goto(lan_table.url + "/invite").ok
    assert page.locator("[data-testid=invite-qr] svg").count() == 1
    # The two 401 answers of the asking page are expected; nothing else may fail.
    assert [e for e in errors if "status of 401" not in e] == [], errors
