"""BRS and paranoid alpha-beta: forced wins, corners, compulsory capture, exact
endgames, incremental keys, and the hard time limit."""

from __future__ import annotations

import random
import time

import pytest

from rolit.engine import GREEN, RED, Board, Position, parse_square, square_name
from rolit.engine.search import Searcher

from helpers import CONTESTED_CORNER, CORNER, FORCED_WIN, position_with


def brute_value(pos: Position, root: object) -> int:
    """Paranoid value by plain minimax over the public API: root's balls minus the best other's."""
    if pos.is_full():
        counts = pos.counts()
        return counts[root] - max(counts[c] for c in pos.order if c != root)  # type: ignore[index]
    values = [brute_value(pos.play(m), root) for m in pos.legal_moves()]
    return max(values) if pos.turn == root else min(values)


# Red to move on 4x4; only a4 wins (by 2), a1 and a2 lose by 4. Found by
# exhaustive search, written down by hand.
# Red can take a1 by rolling the green ball on b2.
@pytest.mark.parametrize("algorithm", ["brs", "paranoid"])
def test_finds_the_only_winning_move(algorithm: str) -> None:
    pos = Position.from_board(Board.from_text(FORCED_WIN), "quick4", turn=RED, players=2)
    result = Searcher.for_position(pos, algorithm).search(pos, time_limit=1.0)
    assert result.solved
    assert square_name(result.best.square) == "a4"
    assert result.best.score > 0 and all(m.score < 0 for m in result.moves[1:] if m.exact)
    # The line is legal from the position and fills the board.
    line = pos
    for slot, sq in result.pv:
        line = line.play(f"{pos.variant.colours[slot].letter}:{square_name(sq)}")
    assert line.is_full()


# Two players: red can take a1 (rolling a2), and if it does not, green will (rolling b2).
@pytest.mark.parametrize(("algorithm", "players", "board"), [("brs", 2, CONTESTED_CORNER), ("brs", 4, CORNER),
                                                             ("paranoid", 2, CONTESTED_CORNER),
                                                             ("brs", 3, CONTESTED_CORNER)],
                         ids=["brs-2", "brs-4", "paranoid-2", "brs-3"])
def test_takes_the_obvious_corner(algorithm: str, players: int, board: str) -> None:
    pos = Position.from_board(Board.from_text(board), "classic", turn=RED, players=players)
    result = Searcher.for_position(pos, algorithm).search(pos, time_limit=0.2)
    assert square_name(result.best.square) == "a1"
    assert result.depth >= 2


def test_does_not_give_away_a_corner() -> None:
    # Green to move; c3 (not capturing anything on the diagonal) would let red's... every
    # non-capturing option is compared: the search must not play b2, which hands a1 to red.
    pos = position_with(GREEN, players=2, R="c3 d4 e5 f6", G="e4 d5 c6")
    result = Searcher.for_position(pos, "brs").search(pos, time_limit=0.2)
    assert square_name(result.best.square) != "b2"
    worst = {square_name(m.square): m.score for m in result.moves}
    if "b2" in worst:
        assert worst["b2"] < result.best.score


@pytest.mark.parametrize("algorithm", ["brs", "paranoid"])
def test_only_capturing_moves_when_a_capture_exists(algorithm: str) -> None:
    pos = position_with(RED, players=4, R="d4 c3", Y="e4", G="e5", B="d5")
    assert pos.has_capture()
    result = Searcher.for_position(pos, algorithm).search(pos, time_limit=0.1)
    assert sorted(m.square for m in result.moves) == sorted(m.square for m in pos.legal_moves())
    assert all(pos.flips(m.square) for m in result.moves)


@pytest.mark.parametrize(("variant", "players", "seed"), [("quick4", 2, 1), ("quick4", 2, 2), ("quick6", 3, 3),
                                                         ("quick6", 4, 4)])
def test_paranoid_endgame_is_exact(variant: str, players: int, seed: int) -> None:
    rng = random.Random(seed)
    pos = Position.start(variant, players=players)
    while len(pos.empty_squares()) > 6:
        pos = pos.play(rng.choice(pos.legal_moves()))
    result = Searcher.for_position(pos, "paranoid").search(pos, time_limit=2.0)
    assert result.solved
    best = max(brute_value(pos.play(m), pos.turn) for m in pos.legal_moves())
    lead = result.best.score
    lead = (lead - 10_000 if lead > 0 else lead + 10_000 if lead < 0 else 0) // 10
    assert lead == best


def test_incremental_keys_match_a_fresh_hash() -> None:
    rng = random.Random(7)
    pos = Position.start("classic", players=4)
    s = Searcher.for_position(pos, "paranoid")
    s.boards = list(pos.bitboards)
    s.key = s.hash_boards(s.boards)
    for _ in range(30):
        move = rng.choice(pos.legal_moves())
        occ = 0
        for b in s.boards:
            occ |= b
        key_before, boards_before = s.key, list(s.boards)
        lost = s._make(pos.variant.slot(move.colour), pos.geometry.bit[move.square], occ)
        pos = pos.play(move)
        assert s.boards == list(pos.bitboards)
        assert s.key == s.hash_boards(s.boards)
        s._unmake(lost, key_before)
        assert s.boards == boards_before
        s._make(pos.variant.slot(move.colour), pos.geometry.bit[move.square], occ)


@pytest.mark.parametrize(("algorithm", "limit"), [("brs", 0.15), ("paranoid", 0.1)])
def test_returns_within_its_time(algorithm: str, limit: float) -> None:
    rng = random.Random(11)
    pos = Position.start("classic", players=4)
    for _ in range(12):
        pos = pos.play(rng.choice(pos.legal_moves()))
    s = Searcher.for_position(pos, algorithm)
    t0 = time.perf_counter()
    result = s.search(pos, time_limit=limit)
    took = time.perf_counter() - t0
    assert took <= 1.1 * limit, took
    assert result.depth >= 2 and result.nodes > 100


def test_depth_limit_and_table_reuse() -> None:
    pos = Position.start("classic", players=2).play("f4")
    s = Searcher.for_position(pos, "brs")
    first = s.search(pos, time_limit=5.0, max_depth=4)
    assert first.depth == 4
    again = s.search(pos, time_limit=5.0, max_depth=4)
    assert again.nodes < first.nodes  # the table remembers
    assert again.best.square == first.best.square
    assert parse_square("d6") in [m.square for m in first.moves] or first.moves
