"""The calibration page when the board is not found by itself (a black board's start position): the page
offers an outline to drag, the corners dragged onto the grid are saved, and the colours calibrate from them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import pytest

from rolit.engine import Position
from rolit.vision.sources import open_source
from rolit.vision.synthetic.renderer import render

from .conftest import LiveServer, demo_config
from helpers import unseen_scene


@pytest.fixture
def black_board(tmp_path: Path) -> Iterator[tuple[LiveServer, Any]]:
    from rolit.webui import create_app

    # Scene 324: a black board, its cups unseen, only the four start balls on it.
    variant, _, params = unseen_scene(324)
    image, truth = render(Position.start(variant).board(), params, variant=variant)
    picture = tmp_path / "start.png"
    cv2.imwrite(str(picture), image)
    config = {**demo_config(tmp_path), "SOURCE": str(picture), "VARIANT": variant,
              "SOURCE_FACTORY": lambda spec: open_source(spec, fps=5.0, loop=True)}
    server = LiveServer(create_app(config))
    yield server, truth
    server.close()


def test_corners_dragged_by_hand_when_no_board_is_found(browser: Any, black_board: tuple[LiveServer, Any]) -> None:
    server, truth = black_board
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(30_000)
    page.goto(server.url + "/calibrate")
    page.wait_for_function("() => document.querySelector('#calib-status').textContent.includes('No board found')")
    assert page.locator("#corners circle").count() == 4
    state = page.request.get(server.url + "/api/calibration").json()
    assert state["corners"] is None and state["manual_corners"] is False
    box = page.locator("#corners").bounding_box()
    assert box is not None
    width, height = state["size"]
    # The offered outline's corners go clockwise from the top-left, as the grid's do.
    for i, (x, y) in enumerate(truth.corners):
        handle = page.locator("#corners circle").nth(i).bounding_box()
        assert handle is not None
        page.mouse.move(handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + x / width * box["width"], box["y"] + y / height * box["height"], steps=8)
        page.mouse.up()
    page.click("#save-corners")
    page.wait_for_function("() => document.querySelector('#calib-status').textContent.includes('Corners saved')")
    assert page.request.get(server.url + "/api/calibration").json()["manual_corners"] is True

    page.click("#calibrate")
    page.wait_for_function("() => document.querySelector('#calib-status').textContent.includes('Colours calibrated')",
                           timeout=90_000)
    start = Position.start("classic").board().text().splitlines()
    page.wait_for_function(
        "(want) => fetch('/api/calibration').then(r => r.json()).then(d => JSON.stringify(d.board) === want)",
        arg=json.dumps(start),
    )
