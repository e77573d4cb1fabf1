"""The engine's subcommands of ``rolit``: perft, replay, demo, bench engine."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rolit.engine import Game, write_record
from rolit.webui.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_perft_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "perft", "4", "--json")
    assert status == 0
    assert json.loads(out) == {"variant": "classic", "players": 4, "counts": [3, 20, 136, 1366]}
    status, out, _ = run(capsys, "perft", "3", "--players", "2", "--variant", "quick6", "--json")
    assert json.loads(out) == {"variant": "quick6", "players": 2, "counts": [3, 24, 109]}
    status, out, _ = run(capsys, "perft", "2", "--order", "red,blue,green,yellow", "--first", "green")
    assert status == 0 and out.split() == ["1", "3", "2", "20"]


def test_perft_errors(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "perft", "0")
    assert status == 1 and "depth must be 1 or more" in err
    status, _, err = run(capsys, "perft", "2", "--variant", "quick4", "--players", "4")
    assert status == 1 and "quick4 is played by 2 players, not 4" in err
    status, _, err = run(capsys, "perft", "2", "--first", "purple")
    assert status == 1 and err.count("\n") == 1 and "'purple' is not a colour" in err
    with pytest.raises(SystemExit) as info:
        main(["perft", "two"])
    assert info.value.code == 2


def test_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = Game("quick4", players=2)
    while not game.is_over():
        game.push(game.legal_moves()[0])
    record = tmp_path / "game.rolit"
    record.write_text(write_record(game))
    status, out, _ = run(capsys, "replay", str(record))
    assert status == 0
    assert out.startswith(game.position.board_text())
    assert "12 moves, all legal." in out and ("wins." in out or "share the win." in out)
    status, out, _ = run(capsys, "replay", str(record), "--json")
    data = json.loads(out)
    assert data["board"] == game.position.board_text().splitlines() and len(data["moves"]) == 12


def test_replay_unfinished_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "short.rolit"
    record.write_text('[Players "red:Ana, green:Tom"]\n1. R:f4 G:e3\n')
    status, out, _ = run(capsys, "replay", str(record))
    assert status == 0 and "Not finished: Red to move" in out and "Balls: Ana 2, Tom 3" in out and "Neutral: yellow 0, blue 1" in out
    record.write_text("1. R:f4 Y:f3 G:d6\n")
    status, _, err = run(capsys, "replay", str(record))
    assert status == 1 and "move 3, line 1: G:d6 is not legal" in err
    status, _, err = run(capsys, "replay", str(tmp_path / "missing.rolit"))
    assert status == 1 and "does not exist" in err
    status, _, err = run(capsys, "replay", str(tmp_path))
    assert status == 1 and "is a folder" in err
    binary = tmp_path / "photo.jpg"
    binary.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\xff\xff")
    status, _, err = run(capsys, "replay", str(binary))
    assert status == 1 and "not a text file" in err


def test_demo_plays_a_whole_game(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "demo", "--variant", "quick6", "--players", "3", "--seed", "3")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith(" 1. Red plays") and any(line.startswith("32. ") for line in lines)
    assert lines[-1].startswith("Winner: ")


def test_bench_engine_quick(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "bench", "engine", "--quick", "--repeats", "1", "--json")
    figures = json.loads(out)
    assert status == 0
    for key in ("perft_leaves_per_second", "movegen_per_second", "playouts_per_second"):
        assert figures[key]["median"] > 0 and figures[key]["runs"] == 1


def test_console_script_is_installed() -> None:
    exe = shutil.which("rolit") or str(Path(sys.executable).parent / "rolit")
    proc = subprocess.run([exe, "perft", "3", "--json"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["counts"] == [3, 20, 136]
    proc = subprocess.run([exe, "replay", "/nonexistent/file"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr.strip() == "rolit replay: /nonexistent/file does not exist"
