"""rolit.webui.session: what the table does when the board or the camera is bumped."""

from __future__ import annotations

from rolit.engine import RED, Position, parse_square
from rolit.webui.session import TableSession
from rolit.webui.settings import GameSettings


def _camera_session() -> tuple[TableSession, Position]:
    settings = GameSettings.from_json({"variant": "quick6", "players": 4, "first": "red", "hints": "off"})
    session = TableSession(settings, manual=False, grace=None, background=False)
    start = Position.start("quick6")
    session.observe_settled(start.board())
    return session, start


def test_after_a_bump_the_same_position_goes_on() -> None:
    session, start = _camera_session()
    session.board_moved()
    assert session.snapshot()["recheck"]
    session.observe_settled(start.board())
    state = session.snapshot()
    assert not state["recheck"] and state["flag"] is None
    assert state["log"][-1]["type"] == "board_checked"
    move = start.legal_moves()[0]
    events = session.observe_settled(start.play(move).board())
    assert [e.type for e in events] == ["move"]


def test_after_a_bump_a_different_board_is_flagged_not_judged() -> None:
    session, start = _camera_session()
    session.board_moved()
    # What a grid found one cell off reads: the balls shifted, not a move.
    moved = start.board().replace({parse_square("c3", 6): None, parse_square("b3", 6): RED,
                                   parse_square("d3", 6): None, parse_square("c4", 6): None})
    assert session.observe_settled(moved) == []
    state = session.snapshot()
    assert state["flag"]["type"] == "board_moved" and "moved" in state["flag"]["message"]
    assert state["moves"] == [] and state["to_fix"] and state["recheck"]
    # Put back as it was: the flag goes, play goes on.
    session.observe_settled(start.board())
    state = session.snapshot()
    assert state["flag"] is None and not state["recheck"]
    assert [e.type for e in session.observe_settled(start.play("e3").board())] == ["move"]


def test_a_new_game_forgets_the_bump() -> None:
    session, _start = _camera_session()
    session.board_moved()
    session.new_game(GameSettings.from_json({"variant": "quick6"}))
    assert not session.snapshot()["recheck"]


def test_a_clean_move_after_a_false_bump_is_the_game_going_on() -> None:
    session, start = _camera_session()
    session.board_moved()  # the grid was found again in the same place: not a real bump
    move = start.legal_moves()[0]
    events = session.observe_settled(start.play(move).board())
    assert [e.type for e in events] == ["move"]
    state = session.snapshot()
    assert not state["recheck"] and state["flag"] is None and len(state["moves"]) == 1
