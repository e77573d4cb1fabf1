"""Properties of random games, checked with hypothesis."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rolit.engine import Game, Position, square_col, square_row

import reference_rules as ref

SEATINGS = [
    ("classic", 4), ("classic", 3), ("classic", 2),
    ("junior", 4), ("quick6", 3), ("quick6", 2), ("quick4", 2),
]


@st.composite
def games(draw: st.DrawFn) -> tuple[Game, list[int]]:
    """A seating and a list of choice indices that drive a random game to its end."""
    variant, players = draw(st.sampled_from(SEATINGS))
    first_index = draw(st.integers(0, players - 1))
    start = Position.start(variant, players=players)
    first = start.turn_order()[first_index]
    game = Game(variant, players=players, first=first)
    choices = draw(st.lists(st.integers(0, 10_000), min_size=64, max_size=64))
    return game, choices


def _grid(pos: Position) -> ref.Grid:
    n = pos.size
    grid: ref.Grid = [[None] * n for _ in range(n)]
    for sq in pos.geometry.squares:
        colour = pos.colour_at(sq)
        grid[square_row(sq)][square_col(sq)] = None if colour is None else pos.variant.slot(colour)
    return grid


def _on_line_to_nearest_own(pos: Position, placed: int, flipped: int) -> bool:
    """True if ``flipped`` lies on a straight, gap-free run from ``placed`` that ends at the nearest own ball."""
    mover = pos.turn
    dr = square_row(flipped) - square_row(placed)
    dc = square_col(flipped) - square_col(placed)
    if not (dr == 0 or dc == 0 or abs(dr) == abs(dc)):
        return False
    step_r, step_c = (dr > 0) - (dr < 0), (dc > 0) - (dc < 0)
    r, c = square_row(placed) + step_r, square_col(placed) + step_c
    passed_flipped = False
    while 0 <= r < pos.size and 0 <= c < pos.size:
        colour = pos.colour_at(r * 8 + c)
        if colour is None:
            return False  # a gap before any own ball
        if colour == mover:
            return passed_flipped  # the nearest own ball: it must lie beyond the flipped one
        if r * 8 + c == flipped:
            passed_flipped = True
        r, c = r + step_r, c + step_c
    return False


@settings(max_examples=60, deadline=None)
@given(games())
def test_random_games_obey_the_rules(case: tuple[Game, list[int]]) -> None:
    game, choices = case
    n = game.variant.size
    i = 0
    while not game.is_over():
        pos = game.position
        moves = pos.legal_moves()
        # Legal moves agree with the independent reference implementation.
        expected = sorted(r * 8 + c for r, c in ref.legal(_grid(pos), pos.variant.slot(pos.turn)))
        assert [m.square for m in moves] == expected
        # A non-capturing move is legal only when no capture exists.
        capturing = {m.square for m in moves if pos.flips(m)}
        assert pos.has_capture() == bool(capturing)
        if capturing:
            assert capturing == {m.square for m in moves}
        move = moves[choices[i % len(choices)] % len(moves)]
        flipped = pos.flips(move)
        for sq in flipped:
            assert _on_line_to_nearest_own(pos, move.square, sq)
        game.push(move)
        # push/pop restores the position exactly, then push again.
        after = game.position
        assert game.pop() == move and game.position == pos
        game.push(move)
        assert game.position == after
        assert after.balls == 4 + game.ply
        assert after.count(move.colour) == pos.count(move.colour) + 1 + len(flipped)
        i += 1
    assert game.ply == n * n - 4 == game.variant.moves_per_game
    outcome = game.outcome()
    assert outcome is not None
    assert sum(outcome.scores.values()) == n * n
    assert all(outcome.scores[w] == max(outcome.scores[c] for c in game.order) for w in outcome.winners)


@settings(max_examples=40, deadline=None)
@given(games())
def test_records_round_trip_for_random_games(case: tuple[Game, list[int]]) -> None:
    from rolit.engine import load_record, read_record, record_to_json, write_record

    game, choices = case
    stop = choices[0] % (game.variant.moves_per_game + 1)
    for i in range(stop):
        moves = game.legal_moves()
        game.push(moves[choices[(i + 1) % len(choices)] % len(moves)])
    text = write_record(game)
    again = read_record(text)
    assert again.moves == game.moves and again.position == game.position
    assert write_record(again) == text
    import json

    from_json = load_record(json.dumps(record_to_json(game)))
    assert from_json.moves == game.moves and from_json.order == game.order
