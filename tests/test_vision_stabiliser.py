"""The stabiliser reports a board once it has held, unoccluded, for long enough."""

from __future__ import annotations

from rolit.engine import UNKNOWN, Position, parse_square
from rolit.vision.observation import Observation
from rolit.vision.stabiliser import Stabiliser


def obs(board):  # type: ignore[no-untyped-def]
    return Observation(board, status="ok", quality=1.0)


def test_a_board_settles_once_after_the_hold_time() -> None:
    s = Stabiliser(hold=0.4, min_frames=3)
    board = Position.start("classic").board()
    results = [s.push(obs(board), t / 10) for t in range(10)]
    settled = [r for r in results if r is not None]
    assert len(settled) == 1 and settled[0].board == board and settled[0].since == 0.0


def test_a_hand_restarts_the_wait() -> None:
    s = Stabiliser(hold=0.3, min_frames=2)
    board = Position.start("classic").board()
    hand = board.replace({parse_square("d4"): UNKNOWN})
    assert s.push(obs(board), 0.0) is None
    for t in (0.1, 0.2, 0.3, 0.4):
        assert s.push(obs(hand), t) is None  # a cell hidden in most frames never settles
    assert s.push(obs(board), 0.45) is None
    assert s.push(obs(board), 0.6) is None  # the window still mostly sees the hand
    assert s.push(obs(board), 0.8) is None
    assert s.push(obs(board), 1.2) is not None


def test_a_cell_unsure_in_some_frames_is_decided_by_the_others() -> None:
    # The reader says "unknown" for a cell now and then (a glint): that frame abstains.
    s = Stabiliser(hold=0.4, min_frames=3)
    board = Position.start("classic").board()
    unsure = board.replace({parse_square("d4"): UNKNOWN})
    results = [s.push(obs(unsure if i % 2 else board), i / 10) for i in range(8)]
    settled = [r for r in results if r is not None]
    assert len(settled) == 1 and settled[0].board == board


def test_a_cell_seen_too_rarely_does_not_settle() -> None:
    s = Stabiliser(hold=0.2, min_frames=3)
    board = Position.start("classic").board()
    unsure = board.replace({parse_square("d4"): UNKNOWN})
    assert all(s.push(obs(board if i % 4 == 0 else unsure), i / 10) is None for i in range(12))


def test_flicker_between_readings_never_settles() -> None:
    s = Stabiliser(hold=0.2, min_frames=3)
    a = Position.start("classic").board()
    b = a.replace({parse_square("c3"): a[parse_square("d4")]})
    assert all(s.push(obs(a if i % 2 else b), i * 0.1) is None for i in range(20))


def test_no_board_and_allow_unknown() -> None:
    s = Stabiliser(hold=0.0, min_frames=1, allow_unknown=True)
    board = Position.start("classic").board().replace({parse_square("a1"): UNKNOWN})
    assert s.push(Observation(None), 0.0) is None
    assert s.push(obs(board), 0.1) is None  # first sight starts the count
    assert s.push(obs(board), 0.2) is not None
