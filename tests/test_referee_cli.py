"""``rolit referee``: boards from a file in, events out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rolit.engine import GREEN, Position, parse_square
from rolit.webui.cli import main


def _observations(tmp_path: Path) -> Path:
    start = Position.start("classic", players=4)
    one = start.play("f4")
    two = one.play("f3")
    boards = [
        start.board(),
        one.board(),
        two.board(),
        two.board().replace({parse_square("d6"): GREEN}),  # missed capture
        two.board(),  # taken back
        two.play("c3").board(),
    ]
    path = tmp_path / "game.boards"
    path.write_text("# a short game\n" + "\n\n".join(b.text() for b in boards) + "\n")
    return path


def test_referee_json_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["referee", str(_observations(tmp_path)), "--json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e["type"] for e in events] == ["move", "move", "missed_capture", "board_fixed", "move"]
    assert events[2]["capturing_moves"] == ["c3", "e3", "g3", "c5"]
    assert all({"type", "move_number", "message"} <= set(e) for e in events)


def test_referee_plain_messages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["referee", str(_observations(tmp_path)), "--first", "red"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "  1. Red plays f4 and rolls e4."
    assert lines[2] == "  3. Green must capture when it can: take the ball on d6 back and play c3, e3, g3 or c5."


def test_referee_from_a_given_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pos = Position.start("classic", players=2).play("f4")
    (tmp_path / "pos.board").write_text(pos.board_text())
    (tmp_path / "obs.boards").write_text(pos.play("e3").board().text())
    status = main(["referee", str(tmp_path / "obs.boards"), "--players", "2",
                   "--position", str(tmp_path / "pos.board"), "--to-move", "green", "--json"])
    assert status == 0
    (event,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert event["type"] == "move" and event["player"] == "green" and event["square"] == "e3"


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ("....\n.RY.\n.BG.\n....", [], "classic on 8x8, but the board seen is 4x4"),
        ("# nothing\n", [], "holds no boards"),
        ("........\n" * 3 + "...RZ...\n" + "........\n" * 4, [], "line 4: 'Z' on e4 is not a cell letter"),
        ("........\n" * 8, ["--position", "{dir}/missing.board", "--to-move", "red"], "missing.board does not exist"),
    ],
)
def test_referee_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, args: list[str], message: str) -> None:
    path = tmp_path / "obs.boards"
    path.write_text(content)
    status = main(["referee", str(path), *[a.format(dir=tmp_path) for a in args]])
    err = capsys.readouterr().err
    assert status == 1 and message in err and err.count("\n") == 1
