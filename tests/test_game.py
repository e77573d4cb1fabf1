"""Games (push, pop, history) and matches over several rounds."""

from __future__ import annotations

import pytest

from rolit.engine import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    Game,
    IllegalMoveError,
    Match,
    Position,
    SetupError,
    parse_square,
)


def test_push_pop_history() -> None:
    game = Game("classic", players=4)
    start = game.position
    first = game.push("f4")
    assert str(first) == "R:f4" and game.turn == YELLOW and game.peek() == first
    game.push("f3")
    assert [h.number for h in game.history] == [1, 2]
    assert game.history[0].flipped == (parse_square("e4"),) and game.history[0].before == start
    assert len(game.positions()) == 3
    assert str(game.pop()) == "Y:f3" and str(game.pop()) == "R:f4"
    assert game.position == start and game.peek() is None
    with pytest.raises(IllegalMoveError, match="no move to take back"):
        game.pop()


def test_illegal_push_changes_nothing() -> None:
    game = Game("classic")
    with pytest.raises(IllegalMoveError):
        game.push("a1")
    assert game.ply == 0 and game.position == Position.start("classic")


def test_game_plays_to_the_end() -> None:
    game = Game("quick6", players=3)
    while not game.is_over():
        assert game.outcome() is None
        game.push(game.capturing_moves()[0] if game.capturing_moves() else game.legal_moves()[0])
    assert game.ply == 32 and game.legal_moves() == []
    outcome = game.outcome()
    assert outcome is not None and sum(outcome.scores.values()) == 36


def test_copy_is_independent() -> None:
    game = Game("classic")
    game.push("f4")
    other = game.copy()
    other.push("f3")
    assert game.ply == 1 and other.ply == 2


def test_names_and_player_scores() -> None:
    pairs = Game("classic", players=4, names={RED: "Ana", GREEN: "Ana", YELLOW: "Tom", BLUE: "Tom"})
    assert pairs.player_scores() == {"Ana": 2, "Tom": 2}
    assert pairs.player_name(RED) == "Ana"
    solo = Game("classic", solo=True)
    assert solo.order == (RED, GREEN) and solo.player_scores() == {"Red": 1, "Green": 1}
    with pytest.raises(SetupError, match="yellow has a player's name but is not in play"):
        Game("classic", players=2, names={YELLOW: "Bo"})


def _finish(game: Game) -> Game:
    while not game.is_over():
        moves = game.legal_moves()
        game.push(max(moves, key=lambda m: (len(game.flips(m)), m.square)))
    return game


def test_match_rotates_the_first_seat_and_scores_rounds() -> None:
    match = Match("quick4", players=2, names={RED: "Ana", GREEN: "Tom"})
    firsts = []
    for _ in range(4):
        game = match.new_game()
        firsts.append(game.turn)
        result = match.add_round(_finish(game))
        assert result.first == game.order[0]
    assert firsts == [RED, GREEN, RED, GREEN]
    table = match.standings()
    assert sum(s.points for s in table) >= 4  # a shared win gives each winner a point
    for s in table:
        won = [r for r in match.rounds if s.player in r.winners]
        assert s.points == len(won) and s.mini_points == sum(r.totals[s.player] for r in won)
    assert table == sorted(table, key=lambda s: (-s.points, -s.mini_points))
    assert match.leaders()[0] == table[0].player


def test_match_tie_on_points_is_broken_by_mini_points() -> None:
    match = Match("quick4", players=2)
    from rolit.engine.game import RoundResult

    match.rounds = [
        RoundResult(1, RED, {"Red": 10, "Green": 6}, ("Red",)),
        RoundResult(2, GREEN, {"Red": 7, "Green": 9}, ("Green",)),
    ]
    assert [(s.player, s.points, s.mini_points) for s in match.standings()] == [("Red", 1, 10), ("Green", 1, 9)]
    assert match.leaders() == ["Red"]


def test_match_refuses_an_unfinished_round() -> None:
    match = Match("classic", players=3)
    with pytest.raises(IllegalMoveError, match="not over"):
        match.add_round(match.new_game())
    assert match.first_for_round(2) == YELLOW and match.players() == ["Red", "Yellow", "Green"]
