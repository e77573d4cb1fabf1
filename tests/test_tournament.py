"""Tournaments: Wilson intervals, line-ups, rotated seats, parallel games."""

from __future__ import annotations

import math

import pytest

from rolit.engine import SetupError
from rolit.engine.tournament import lineups, play_game, run_tournament, wilson_interval


def test_wilson_interval_matches_the_formula() -> None:
    # Textbook values: 45 of 50 -> [0.786, 0.957]; 0 of 10 -> [0, 0.278]; 10 of 10 -> [0.722, 1].
    lo, hi = wilson_interval(45, 50)
    assert math.isclose(lo, 0.7864, abs_tol=1e-3) and math.isclose(hi, 0.9565, abs_tol=1e-3)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and math.isclose(hi, 0.2775, abs_tol=1e-3)
    lo, hi = wilson_interval(10, 10)
    assert math.isclose(lo, 0.7225, abs_tol=1e-3) and math.isclose(hi, 1.0)
    lo, hi = wilson_interval(50, 100)
    assert math.isclose(lo, 0.4038, abs_tol=1e-3) and math.isclose(hi, 0.5962, abs_tol=1e-3)
    # Narrower with more games, always around the rate.
    assert wilson_interval(900, 1000)[1] - wilson_interval(900, 1000)[0] < hi - lo
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_lineups() -> None:
    assert lineups(["brs", "greedy"], 4) == [("brs", "greedy", "greedy", "greedy")]
    assert lineups(["brs", "paranoid"], 2) == [("brs", "paranoid")]
    assert lineups(["brs", "paranoid", "mcts"], 2) == [("brs", "paranoid"), ("brs", "mcts"), ("paranoid", "mcts")]
    with pytest.raises(SetupError):
        lineups([], 2)


def test_seats_rotate_and_results_add_up() -> None:
    result = run_tournament(["greedy", "random"], 4, 0.01, variant="quick4", players=2, jobs=1)
    seats = [tuple(g.seats.items()) for g in result.games]
    assert seats[0] == (("red", "greedy"), ("green", "random"))
    assert seats[1] == (("red", "random"), ("green", "greedy"))
    assert sum(s.games for s in result.standings) == 8
    assert math.isclose(sum(s.points for s in result.standings), 4)  # one win (or shares) per game
    for g in result.games:
        assert sum(g.scores.values()) <= 16 and g.winners
    data = result.to_json()
    assert data["games"] == 4 and {"win_rate", "ci95"} <= set(data["standings"][0])
    assert "95% CI" in result.table()


def test_four_players_one_engine_against_three_greedy() -> None:
    result = run_tournament(["brs", "greedy"], 4, 0.02, variant="quick6", players=4, jobs=1)
    brs = next(s for s in result.standings if s.engine == "brs")
    greedy = next(s for s in result.standings if s.engine == "greedy")
    assert brs.games == 4 and greedy.games == 12
    assert {g.seats[c] for g in result.games for c in ("red", "yellow", "green", "blue")} == {"brs", "greedy"}
    assert [next(c for c, e in g.seats.items() if e == "brs") for g in result.games] == [
        "red", "blue", "green", "yellow"]


def test_parallel_games_give_the_same_games() -> None:
    one = run_tournament(["greedy", "random"], 4, 0.01, variant="quick4", jobs=1, seed=5)
    two = run_tournament(["greedy", "random"], 4, 0.01, variant="quick4", jobs=2, seed=5)
    assert [g.scores for g in one.games] == [g.scores for g in two.games]


def test_play_game_and_errors() -> None:
    game = play_game(0, ("random", "random"), "quick4", 2, 0.01, seed=3)
    assert sum(game.scores.values()) == 16
    with pytest.raises(SetupError, match="unknown engine"):
        run_tournament(["brs", "deep-blue"], 2, 0.1)
    with pytest.raises(SetupError, match="at least one game"):
        run_tournament(["brs", "greedy"], 0, 0.1)
    with pytest.raises(SetupError, match="quick4 is played by 2 players"):
        run_tournament(["brs", "greedy"], 2, 0.1, variant="quick4", players=4)
