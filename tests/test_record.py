"""Game records: text and JSON forms, round trips, and every error naming its move or line."""

from __future__ import annotations

import json

import pytest

from rolit.engine import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    Game,
    RecordError,
    load_record,
    read_record,
    record_from_json,
    record_to_json,
    write_record,
)

RECORD = """[Variant "classic"]
[Players "red:Ana, yellow:Bo, green:Tom, blue:Kim"]
[First "red"]
[Date "2026.11.29"]
[Result "*"]

1. R:f4 Y:f3 G:e3 B:g2
2. R:d2
"""


def test_read_text_record() -> None:
    game = read_record(RECORD)
    assert [str(m) for m in game.moves] == ["R:f4", "Y:f3", "G:e3", "B:g2", "R:d2"]
    assert game.names == {RED: "Ana", YELLOW: "Bo", GREEN: "Tom", BLUE: "Kim"}
    assert game.tags == {"Date": "2026.11.29"}
    assert game.turn == YELLOW


def test_write_round_trips() -> None:
    game = read_record(RECORD)
    assert write_record(game) == RECORD.rstrip("\n")
    assert read_record(write_record(game)).position == game.position


def test_first_player_custom_order_and_two_colours_each() -> None:
    game = Game("classic", order=[RED, BLUE, GREEN, YELLOW], first=GREEN, names={RED: "Ana", GREEN: "Ana", BLUE: "Tom", YELLOW: "Tom"})
    for _ in range(6):
        game.push(game.legal_moves()[0])
    text = write_record(game)
    assert '[Order "green, yellow, red, blue"]' in text and '[First "green"]' in text
    again = read_record(text)
    assert again.order == game.order and again.moves == game.moves
    assert again.player_scores() == game.player_scores() and set(again.player_scores()) == {"Ana", "Tom"}


def test_first_defaults_to_the_first_moves_colour() -> None:
    game = read_record('[Players "red, green"]\n1. G:c3 R:b2')
    assert game.order == (GREEN, RED) and [str(m) for m in game.moves] == ["G:c3", "R:b2"]


def test_finished_game_result_is_checked() -> None:
    game = Game("quick4", players=2)
    while not game.is_over():
        game.push(game.legal_moves()[-1])
    text = write_record(game)
    outcome = game.outcome()
    assert outcome is not None and f'[Result "{outcome.result()}"]' in text
    assert read_record(text).outcome() == outcome
    loser = next(c for c in game.order if c not in outcome.winners)
    wrong = text.replace(f'[Result "{outcome.result()}"]', f'[Result "{loser.label}"]')
    with pytest.raises(RecordError, match=r"the Result tag says .* but the moves give"):
        read_record(wrong)


def test_json_round_trip() -> None:
    game = read_record(RECORD)
    data = record_to_json(game)
    assert data["players"] == {"red": "Ana", "yellow": "Bo", "green": "Tom", "blue": "Kim"}
    assert data["moves"][:2] == ["R:f4", "Y:f3"] and data["result"] == "*"
    again = load_record(json.dumps(data))
    assert again.moves == game.moves and again.names == game.names and again.tags == game.tags


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[Variant "classic"]\n1. R:f4 Y:f3 G:d6', "move 3, line 2: G:d6 is not legal: Green must capture when it can, and d6 captures nothing: play one of c3 e3 g3 c5"),
        ('[Variant "classic"]\n1. R:f4 G:d6', "move 2, line 2: G:d6 is not legal: it is Yellow's turn, not Green's"),
        ("1. R:f4\n2. Y:f3", "move 2, line 2: round number 2 is out of place; round 1 is under way"),
        ("1. R:f4 Y:z9", "move 2, line 1: Y:z9: 'z9' is not a square name"),
        ("1. R:f4 Y:f3x", "move 2, line 1: 'Y:f3x' is not a move"),
        ('[Variant "quick4"]\n[Players "red, green"]\n1. R:e5', "move 1, line 3: R:e5: e5 is not on a 4x4 board"),
        ("1. R:d4", "move 1, line 1: R:d4 is not legal: d4 is not empty"),
        ('[Variant "chess"]', "line 1: unknown variant 'chess'"),
        ('[Players "red, purple"]', "line 1: Players tag: 'purple' is not a colour"),
        ('[Players "red"]', "at least two colours"),
        ('[Players "red, red"]', "red is listed twice"),
        ('[Variant "junior"]\n[Players "red, blue"]', "junior has no blue balls"),
        ('[First "blue"]\n[Players "red, green"]', "blue starts but is not in play"),
        ("[Variant classic]", "line 1: '[Variant classic]' is not a tag"),
        ('1. R:f4\n[Variant "classic"]', "line 2: tags must come before the moves"),
        ('[Variant "classic"]\n[Variant "junior"]', "line 2: the Variant tag appears twice"),
        ('[Players "red, green"]\n[Order "red, yellow"]', "must list the same colours"),
        ('[Result "red"]\n1. R:f4', "the Result tag says 'red' but the board is not full"),
    ],
)
def test_errors_name_the_move_and_line(text: str, message: str) -> None:
    with pytest.raises(RecordError) as info:
        read_record(text)
    assert message in str(info.value)


def test_moves_after_the_end_are_refused() -> None:
    game = Game("quick4", players=2)
    while not game.is_over():
        game.push(game.legal_moves()[0])
    text = write_record(game).replace('[Result "', '[Note "') + " R:a1"
    with pytest.raises(RecordError, match=r"move 13.*comes after the board is full"):
        read_record(text)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{not json", "the JSON is malformed"),
        ('["R:f4"]', "a JSON record is an object"),
        ('{"moves": "R:f4"}', "moves must be a list"),
        ('{"players": ["red"]}', "players must be an object"),
        ('{"moves": ["R:f4", "G:d6"]}', "move 2: G:d6 is not legal"),
        ('{"tags": {"bad key": "x"}}', "tag name"),
    ],
)
def test_json_errors(data: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        load_record(data)


def test_record_from_json_wants_an_object() -> None:
    with pytest.raises(RecordError, match="is an object"):
        record_from_json(["R:f4"])  # type: ignore[arg-type]


def test_tag_values_with_quotes_and_hashes_survive() -> None:
    game = Game("quick4", players=2, names={RED: 'Ana "the Ace"', GREEN: "Tom #1"})
    game.tags["Event"] = 'Club night #3 "final"'
    again = read_record(write_record(game))
    assert again.names == game.names and again.tags == game.tags


def test_names_with_commas_backslashes_and_line_breaks_round_trip() -> None:
    # Found by tests/test_fuzz_parsers.py: a comma in a name split the Players tag, and a \r or
    # \u2028 in a name or tag broke a tag line in two, so the record no longer read.
    game = Game("quick4", players=2, names={RED: "Ana, the 1st", GREEN: "C:\\Tom\\"})
    game.tags["Event"] = "night\rone\u2028two"
    game.push(game.legal_moves()[0])
    text = write_record(game)
    assert '[Players "red:Ana\\\\, the 1st, green:C:\\\\\\\\Tom\\\\\\\\"]' in text.splitlines()
    again = read_record(text)
    assert again.names == game.names and again.tags == {"Event": "night one two"} and again.moves == game.moves
    assert load_record(json.dumps(record_to_json(game))).names == game.names
    assert read_record('[Variant "quick4"]\n[Players "red:Ana, green:Tom"]').names == {RED: "Ana", GREEN: "Tom"}


def test_overlong_numbers_and_deep_json_are_record_errors() -> None:
    # Found by tests/test_fuzz_parsers.py: int() refuses more than 4,300 digits and the JSON
    # decoder recurses, so these escaped as ValueError and RecursionError.
    with pytest.raises(RecordError, match=r"round number 111111111\.\.\. is out of place"):
        read_record("1" * 5000 + ". R:f4")
    with pytest.raises(RecordError, match="malformed"):
        load_record('{"moves": [], "x": ' + "7" * 5000 + "}")
    with pytest.raises(RecordError, match="malformed"):
        load_record('{"moves": ' + "[" * 100_000 + "]" * 100_000 + "}")
