"""Monte-Carlo tree search with max^n backups."""

from __future__ import annotations

import random
import time

import pytest

from rolit.engine import RED, Board, Position, square_name
from rolit.engine.mcts import MCTS

from helpers import CONTESTED_CORNER, CORNER, FORCED_WIN


@pytest.mark.parametrize(("players", "board"), [(2, CONTESTED_CORNER), (4, CORNER)], ids=["2", "4"])
def test_takes_the_obvious_corner(players: int, board: str) -> None:
    pos = Position.from_board(Board.from_text(board), "classic", turn=RED, players=players)
    result = MCTS.for_position(pos, seed=3).search(pos, time_limit=0.3)
    assert square_name(result.best.square) == "a1"
    assert result.nodes > 50


def test_finds_the_winning_endgame_move() -> None:
    pos = Position.from_board(Board.from_text(FORCED_WIN), "quick4", turn=RED, players=2)
    result = MCTS.for_position(pos, seed=1).search(pos, time_limit=0.2)
    assert square_name(result.best.square) == "a4"
    assert result.best.score > 500  # red wins most playouts after a4


def test_root_moves_are_the_legal_moves_and_the_line_is_legal() -> None:
    rng = random.Random(4)
    pos = Position.start("quick6", players=3)
    for _ in range(9):
        pos = pos.play(rng.choice(pos.legal_moves()))
    result = MCTS.for_position(pos, seed=2).search(pos, time_limit=0.1)
    assert sorted(m.square for m in result.moves) == sorted(m.square for m in pos.legal_moves())
    line = pos
    for slot, sq in result.pv:
        assert pos.variant.colours[slot] == line.turn  # real turn order
        line = line.play(sq)


def test_returns_within_its_time_and_playout_cap() -> None:
    pos = Position.start("classic", players=4)
    # The quickest of three: on a shared machine one search in a few hundred is stalled by a tenth of a second
    # (CI on 2026-12-06: 0.21 s), while a search that ignored its limit would overrun every time.
    took = []
    for _ in range(3):
        t0 = time.perf_counter()
        MCTS.for_position(pos, seed=5).search(pos, time_limit=0.1)
        took.append(time.perf_counter() - t0)
    assert min(took) <= 0.11
    capped = MCTS.for_position(pos, seed=5).search(pos, time_limit=10, max_playouts=40)
    assert capped.nodes == 40
    assert sum(1 for _ in capped.moves) == 3
