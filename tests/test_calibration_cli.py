"""``rolit recognize``, ``calibrate``, ``watch`` and ``markers`` as DESIGN.md's contracts say."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from rolit.calibration.bench import draw_scene
from rolit.engine import Position
from rolit.vision.synthetic.demo import DEMO_PARAMS, demo_game
from rolit.vision.synthetic.renderer import render
from rolit.webui.cli import main


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("photos")
    start, _ = render(Position.start("quick6").board(), DEMO_PARAMS, variant="quick6")
    middle, truth = render(demo_game().positions()[8].board(), DEMO_PARAMS, variant="quick6")
    paths = {"start": folder / "start.jpg", "middle": folder / "middle.png", "blank": folder / "blank.png"}
    cv2.imwrite(str(paths["start"]), start)
    cv2.imwrite(str(paths["middle"]), middle)
    cv2.imwrite(str(paths["blank"]), np.full((360, 640, 3), 120, np.uint8))
    (folder / "truth.txt").write_text(truth.board.text())
    return paths


def test_recognize_json_contract(photos: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["recognize", str(photos["middle"]), "--variant", "quick6", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"n", "rows", "board", "corners", "unknown", "confidence"}
    assert data["n"] == 6 and len(data["rows"]) == 6 and len(data["board"]) == 6 and len(data["corners"]) == 4
    truth = (photos["middle"].parent / "truth.txt").read_text().splitlines()
    for got, want in zip(data["rows"], truth, strict=True):
        assert all(g in ("?", w) for g, w in zip(got, want, strict=True))
    assert 0.0 <= data["confidence"] <= 1.0


def test_recognize_without_a_board_exits_3(photos: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["recognize", str(photos["blank"])]) == 3
    assert "no 8x8 board found" in capsys.readouterr().err
    assert main(["recognize", str(photos["blank"].parent / "missing.jpg")]) == 1
    not_image = photos["blank"].parent / "notes.jpg"
    not_image.write_text("hello")
    assert main(["recognize", str(not_image)]) == 1
    assert "not an image" in capsys.readouterr().err


def test_calibrate_then_recognize(photos: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "profile.json"
    assert main(["calibrate", str(photos["start"]), "--variant", "quick6", "-o", str(profile)]) == 0
    assert json.loads(profile.read_text())["variant"] == "quick6"
    assert "the grid was placed by the board's printed lines" in capsys.readouterr().out
    turned = tmp_path / "turned.json"
    assert main(["calibrate", str(photos["start"]), "--variant", "quick6", "--turn", "2", "-o", str(turned)]) == 0
    assert json.loads(turned.read_text())["rotation"] == 2
    assert main(["recognize", str(photos["middle"]), "--variant", "quick6", "--calibration", str(profile)]) == 0
    assert main(["recognize", str(photos["middle"]), "--calibration", str(profile)]) == 1
    assert "made for quick6, not classic" in capsys.readouterr().err
    assert main(["calibrate", str(photos["middle"]), "--variant", "quick6", "-o", str(profile)]) == 1
    assert "does not show the start position" in capsys.readouterr().err


def test_watch_prints_settled_boards(photos: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(10):
        cv2.imwrite(str(folder / f"{i:02d}.png"), cv2.imread(str(photos["start"])))
    assert main(["watch", str(folder), "--variant", "quick6", "--fps", "6", "--hold", "0.1", "--timeout", "5"]) == 0
    out = capsys.readouterr().out.strip()
    assert out == Position.start("quick6").board_text()


def test_markers_sheet(tmp_path: Path) -> None:
    assert main(["markers", "-o", str(tmp_path / "sheet.png")]) == 0
    assert cv2.imread(str(tmp_path / "sheet.png")) is not None
    assert main(["markers", "-o", str(tmp_path / "no" / "such" / "sheet.png")]) == 1


def test_calibrate_without_a_board_exits_3_and_says_what_to_do(
    photos: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "profile.json"
    assert main(["calibrate", str(photos["blank"]), "-o", str(profile)]) == 3
    err = capsys.readouterr().err
    assert "no board found in the calibration picture" in err and "--corners" in err and "rolit markers" in err
    assert not profile.exists()


def test_calibrate_from_corners_given_by_hand(
    photos: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, truth = render(Position.start("quick6").board(), DEMO_PARAMS, variant="quick6")
    # Any order: the bottom-right corner first, then the rest crosswise.
    (tl, tr, br, bl) = [f"{x:.1f},{y:.1f}" for x, y in truth.corners]
    profile = tmp_path / "profile.json"
    args = ["calibrate", str(photos["start"]), "--variant", "quick6", "-o", str(profile)]
    assert main([*args, "--corners", br, tl, bl, tr]) == 0
    out = capsys.readouterr().out
    assert "the corners given" in out and "the grid was placed by the board's printed lines" in out
    # Kept in order, and moved onto the board's printed lines: a few hundredths of a cell from the cups' grid.
    saved = np.asarray(json.loads(profile.read_text())["corners"])
    pitch = float(np.linalg.norm(np.subtract(truth.corners[1], truth.corners[0]))) / 6
    assert np.allclose(saved, np.asarray(truth.corners), atol=0.05 * pitch)
    assert main(["recognize", str(photos["middle"]), "--variant", "quick6", "--calibration", str(profile), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert np.allclose(np.asarray(data["corners"]), saved, atol=0.06)
    # Bad corners: a usage error (status 2), or a clear one (status 1); nothing is written.
    profile.unlink()
    for bad in ([tl, tr, br], [tl, tr, br, "left,top"]):
        with pytest.raises(SystemExit) as usage:
            main([*args, "--corners", *bad])
        assert usage.value.code == 2
    assert "a corner is X,Y in pixels" in capsys.readouterr().err
    assert main([*args, "--corners", tl, tr, br, "5000,10"]) == 1
    assert "inside the 640x360 picture" in capsys.readouterr().err
    assert main([*args, "--corners", "10,10", "11,10", "12,10", "13,11"]) == 1
    assert "outer corners" in capsys.readouterr().err
    assert not profile.exists()


def test_calibrate_says_when_nothing_but_the_outline_placed_the_grid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Development start position 91: a dim black board with no lines or cups that show.
    variant, _, params, _, _ = draw_scene(91)
    image, _ = render(Position.start(variant).board(), params, variant=variant)
    photo = tmp_path / "start.png"
    cv2.imwrite(str(photo), image)
    assert main(["calibrate", str(photo), "--variant", variant, "-o", str(tmp_path / "p.json")]) == 0
    assert "placed by its outline and balls alone" in capsys.readouterr().out
    assert json.loads((tmp_path / "p.json").read_text())["seen_placed_by"] == "outline"


def test_calibrate_has_words_for_whatever_placed_the_grid() -> None:
    from rolit.calibration.cli import PLACES
    from rolit.calibration.profile import PLACED_BY

    assert set(PLACES) == set(PLACED_BY)
