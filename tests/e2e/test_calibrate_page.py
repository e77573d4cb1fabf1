"""The calibration page in a real browser on the demo: drag a corner of the found grid, save it,
and go back to finding the board automatically."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer, demo_config


@pytest.fixture
def demo_table(tmp_path: Path) -> Iterator[LiveServer]:
    from rolit.webui import create_app

    server = LiveServer(create_app(demo_config(tmp_path)))
    yield server
    server.close()


def test_dragging_a_corner_saves_it_in_the_profile(browser: Any, demo_table: LiveServer, tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(30_000)
    page.goto(demo_table.url + "/calibrate")
    page.wait_for_function("() => document.querySelectorAll('#corners circle').length == 4")
    found = page.request.get(demo_table.url + "/api/calibration").json()
    box = page.locator("#corners").bounding_box()
    handle = page.locator("#corners circle").first.bounding_box()
    assert box and handle
    x, y = handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 10, y + 8, steps=5)
    page.mouse.move(x + 20, y + 16, steps=5)
    page.mouse.up()
    page.click("#save-corners")
    page.wait_for_function("() => document.querySelector('#calib-status').textContent.includes('Corners saved')")

    state = page.request.get(demo_table.url + "/api/calibration").json()
    assert state["manual_corners"] is True and state["profile"] is True
    saved = json.loads((tmp_path / "profile.json").read_text())["corners"]
    # The first corner moved by the drag, in the frame's pixels; the others stayed.
    scale_x, scale_y = found["size"][0] / box["width"], found["size"][1] / box["height"]
    tl = min(range(4), key=lambda i: saved[i][0] + saved[i][1])
    start = min(found["corners"], key=lambda p: p[0] + p[1])
    assert abs(saved[tl][0] - (start[0] + 20 * scale_x)) < 6 * scale_x
    assert abs(saved[tl][1] - (start[1] + 16 * scale_y)) < 6 * scale_y

    page.click("#auto-corners")
    page.wait_for_function("() => document.querySelector('#calib-status').textContent.includes('Corners saved')")
    assert page.request.get(demo_table.url + "/api/calibration").json()["manual_corners"] is False
