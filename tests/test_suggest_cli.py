"""``rolit suggest`` and ``rolit tournament``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rolit.webui.cli import main

from helpers import CORNER


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def board_file(tmp_path: Path) -> str:
    path = tmp_path / "board.txt"
    path.write_text(CORNER)
    return str(path)


def test_suggest_json_contract(capsys: pytest.CaptureFixture[str], board_file: str) -> None:
    status, out, _ = run(capsys, "suggest", board_file, "--to-move", "red", "--time", "0.2", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["to_move"] == "red" and data["players"] == ["red", "yellow", "green", "blue"]
    assert data["elapsed"] <= 0.22
    moves = data["moves"]
    assert next(m["square"] for m in moves) == "a1" and len(moves) == 4
    for m in moves:
        assert set(m) >= {"square", "score", "reason", "line"}
        assert isinstance(m["score"], float) and m["line"][0] == "R:" + m["square"]
    assert moves[0]["reason"] == "Takes the a1 corner, which can never be lost, and rolls 1 ball."


def test_suggest_text_and_options(capsys: pytest.CaptureFixture[str], board_file: str) -> None:
    status, out, _ = run(capsys, "suggest", board_file, "--to-move", "red", "--players", "2", "--time", "0.1",
                         "--top", "2", "--engine", "mcts")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("Red to move; mcts")
    assert lines[1].lstrip().startswith("1. ") and "% win" in lines[1]
    assert sum(1 for line in lines if line.lstrip()[:2] in ("1.", "2.", "3.")) == 2


def test_suggest_follows_the_board_size(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "small.txt"
    path.write_text("......\n......\n..RY..\n..EG..\n......\n......\n")
    status, out, _ = run(capsys, "suggest", str(path), "--to-move", "red", "--time", "0.05", "--json")
    assert status == 0 and json.loads(out)["variant"] == "junior"


def test_suggest_errors(capsys: pytest.CaptureFixture[str], board_file: str, tmp_path: Path) -> None:
    status, _, err = run(capsys, "suggest", str(tmp_path / "missing.txt"), "--to-move", "red")
    assert status == 1 and err.count("\n") == 1 and "does not exist" in err
    status, _, err = run(capsys, "suggest", board_file, "--to-move", "purple")
    assert status == 1 and "'purple' is not a colour" in err
    status, _, err = run(capsys, "suggest", board_file, "--to-move", "blue", "--players", "2")
    assert status == 1 and "blue is not in play" in err
    status, _, err = run(capsys, "suggest", board_file, "--to-move", "red", "--time", "-1")
    assert status == 1 and "more than 0 seconds" in err
    bad = tmp_path / "bad.txt"
    bad.write_text("RRRRRRRR\n" * 8)
    status, _, err = run(capsys, "suggest", str(bad), "--to-move", "red", "--time", "0.05")
    assert status == 1 and "board is full" in err


def test_tournament_json_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "tournament", "--engines", "greedy,random", "--games", "4", "--time", "0.01",
                         "--variant", "quick4", "--jobs", "1", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["games"] == 4 and len(data["results"]) == 4
    assert {s["engine"] for s in data["standings"]} == {"greedy", "random"}
    lo, hi = data["standings"][0]["ci95"]
    assert 0 <= lo <= data["standings"][0]["win_rate"] <= hi <= 1
    status, out, err = run(capsys, "tournament", "--engines", "easy,random", "--games", "2", "--time", "0.01",
                           "--variant", "quick4", "--jobs", "1")
    assert status == 0 and "95% CI" in out and "game 1:" in err
    status, _, err = run(capsys, "tournament", "--engines", "brs,nobody", "--games", "2")
    assert status == 1 and "unknown engine 'nobody'" in err
