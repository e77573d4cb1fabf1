"""``rolit render``, ``rolit render-game`` and ``rolit bench render``."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from rolit.webui.cli import main

BOARD = "......\n......\n..RY..\n..BG..\n......\n......\n"


@pytest.fixture
def board_file(tmp_path: Path) -> Path:
    p = tmp_path / "board.txt"
    p.write_text(BOARD)
    return p


def test_render_writes_the_image_and_prints_ground_truth(
    board_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.png"
    assert (
        main(
            [
                "render",
                str(board_file),
                "-o",
                str(out),
                "--size",
                "320x240",
                "--seed",
                "4",
                "--elevation",
                "45",
                "--hand",
                "--json",
            ]
        )
        == 0
    )
    image = cv2.imread(str(out))
    assert image.shape == (240, 320, 3)
    truth = json.loads(capsys.readouterr().out)
    assert truth["n"] == 6 and truth["variant"] == "quick6" and len(truth["corners"]) == 4
    assert sorted(truth["ball_tops"]) == ["c3", "c4", "d3", "d4"]
    assert truth["camera"]["elevation"] == 45.0
    assert isinstance(truth["hidden"], list)


@pytest.mark.parametrize(
    "args,message",
    [
        (["render", "{missing}", "-o", "{out}"], "does not exist"),
        (["render", "{bad}", "-o", "{out}"], "not a cell letter"),
        (["render", "{board}", "-o", "{out}", "--variant", "classic"], "8x8"),
        (["render", "{board}", "-o", "{tmp}/no/such/x.png"], "does not exist"),
        (["render", "{board}", "-o", "{tmp}/x.txt"], "must end in"),
        (["render", "{board}", "-o", "{out}", "--size", "big"], "not a size"),
        (["render", "{board}", "-o", "{out}", "--size", "20x20"], "outside"),
        (["render", "{board}", "-o", "{out}", "--elevation", "10"], "outside 30 to 90"),
        (["render-game", "{record}", "-o", "{tmp}/c.avi", "--mistakes", "cheat"], "unknown mistake"),
        (["render-game", "{record}", "-o", "{tmp}/c.gif"], ".mp4 or .avi"),
        (["render-game", "{board}", "-o", "{tmp}/c.avi"], ""),
    ],
)
def test_errors_are_one_sentence_and_exit_1(
    args: list[str], message: str, tmp_path: Path, board_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("......\n..Z...\n......\n......\n......\n......\n")
    record = tmp_path / "g.rolit"
    record.write_text('[Variant "quick4"]\n[Players "red, green"]\n1. R:d2\n')
    names = {
        "missing": str(tmp_path / "nope.txt"),
        "bad": str(bad),
        "board": str(board_file),
        "out": str(tmp_path / "out.png"),
        "tmp": str(tmp_path),
        "record": str(record),
    }
    assert main([a.format(**names) for a in args]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_render_game_writes_frames_and_truth(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "g.rolit"
    record.write_text('[Variant "quick4"]\n[Players "red, green"]\n1. R:d2 G:c1\n')
    out = tmp_path / "frames"
    assert main(["render-game", str(record), "-o", str(out), "--size", "160x120", "--fps", "4", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    frames = sorted(out.glob("frame_*.png"))
    assert len(frames) == summary["frames"] > 10
    lines = (out / "truth.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["rows"] == ["..G.", ".GGR", ".RGG", "...."] or len(lines) == len(frames)


def test_bench_render(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "render", "--quick", "--repeats", "1", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["still_ms"]["median"] > 0 and figures["clip_frame_ms"]["runs"] == 1


def test_bench_vision_per_scene(capsys: pytest.CaptureFixture[str]) -> None:
    # Each scene's figures, as the totals count them: scene 52's calibration is refused, and the reader
    # calibrated by hand finds its board (see test_calibration_bench).
    assert main(["bench", "vision", "--per-scene", "--first-scene", "52", "--scenes", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["first_scene"] == 52 and out["nudge"] is None
    (scene,) = out["scenes"]
    assert scene["scene"] == 52 and scene["calibration_refused"] and scene["calibration_grid"] is None
    assert scene["calibrated"] is None
    by_hand = scene["by_hand"]
    assert by_hand["cells"] == 64 and by_hand["wrong"] == 0 and by_hand["grid"] < 0.5
    assert main(["bench", "vision", "--per-scene", "--nudged", "--first-scene", "0", "--scenes", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["nudge"] == [2.0, 3.0, 1.0] and out["scenes"][0]["calibration_grid"] < 0.5
    # Calibration alone: the start position is calibrated, no game frame read.
    assert main(["bench", "vision", "--per-scene", "--calibration-only", "--first-scene", "5", "--scenes", "1",
                 "--json"]) == 0  # fmt: skip
    (scene,) = json.loads(capsys.readouterr().out)["scenes"]
    assert scene["board"] == "grey" and 40 < scene["elevation"] < 41 and scene["calibration_grid"] < 0.4
    assert "uncalibrated" not in scene and "calibrated" not in scene
    # Without --json, a line a scene.
    assert main(["bench", "vision", "--per-scene", "--first-scene", "0", "--scenes", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["scene"] for line in lines if line.strip().startswith("{")] == [0, 1]
