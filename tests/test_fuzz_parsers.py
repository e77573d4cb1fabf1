"""Fuzzing every text parser with hypothesis: random text and damaged valid input never crash.

Each parser either returns a valid object or raises the error class its module documents
(``BoardTextError``, ``SquareError``, ``ValueError`` for colours, ``IllegalMoveError`` for moves,
``SetupError`` for editions, ``RecordError``, ``SettingsError``, ``CalibrationError``); never an
``IndexError``, ``KeyError``, ``TypeError``, ``RecursionError``... And valid objects survive a round
trip through their text (or JSON) form unchanged.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolit.calibration import CalibrationError, Profile
from rolit.engine import (
    UNKNOWN,
    Board,
    BoardTextError,
    Colour,
    Game,
    IllegalMoveError,
    Move,
    Position,
    RecordError,
    RolitError,
    SetupError,
    SquareError,
    get_variant,
    load_record,
    parse_board,
    parse_boards,
    parse_square,
    read_record,
    record_from_json,
    record_to_json,
    square_name,
    write_record,
)
from rolit.engine.board import Cell
from rolit.webui.settings import COMPUTER_LEVELS, HINT_POLICIES, GameSettings, SettingsError

T = TypeVar("T")

# ROLIT_FUZZ_SCALE=10 runs ten times as many examples (a longer hunt than the default quick pass).
SCALE = float(os.environ.get("ROLIT_FUZZ_SCALE", "1"))
FUZZ = settings(max_examples=round(100 * SCALE), deadline=None)
FEW = settings(max_examples=round(40 * SCALE), deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- Strategies -------------------------------------------------------------------------------

# Characters that mean something to one parser or another, to hit the interesting paths often.
NOISE = [*".?RYGBEXOrygbexo#\n\r \t[]\":,*\\{}0123456789abcdefghz-+_", "\u2028", "\x0b", "\x00", "é", "٣"]
noise_char = st.sampled_from(NOISE) | st.characters(codec="utf-8")
noisy_text = st.text(alphabet=noise_char, max_size=200)
any_text = st.one_of(st.text(max_size=200), noisy_text)

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=20,
)

CELLS: list[Cell] = [None, None, None, UNKNOWN, *Colour]


@st.composite
def boards(draw: st.DrawFn) -> Board:
    size = draw(st.sampled_from((4, 6, 8)))
    return Board(size, draw(st.lists(st.sampled_from(CELLS), min_size=size * size, max_size=size * size)))


@st.composite
def board_texts(draw: st.DrawFn) -> str:
    """Valid board text: one to three boards, maybe spaced out, lower case, with comments."""
    parts = []
    for board in draw(st.lists(boards(), min_size=1, max_size=3)):
        rows = board.text().splitlines()
        if draw(st.booleans()):
            rows = [" ".join(row) for row in rows]
        if draw(st.booleans()):
            rows = [row.lower() for row in rows]
        if draw(st.booleans()):
            rows.insert(draw(st.integers(0, len(rows))), "# a comment")
        parts.append("\n".join(rows))
    return "\n\n".join(parts)


@st.composite
def mutated(draw: st.DrawFn, texts: st.SearchStrategy[str]) -> str:
    """A valid text damaged a few times: characters deleted, replaced, duplicated or inserted,
    lines shuffled, dropped or repeated."""
    text = draw(texts)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "replace", "duplicate", "insert", "shuffle", "drop_line", "dup_line"]))
        n = len(text)
        if kind in ("delete", "replace", "duplicate") and n:
            i = draw(st.integers(0, n - 1))
            j = draw(st.integers(i + 1, min(n, i + 4)))
            middle = {"delete": "", "replace": draw(st.text(noise_char, min_size=1, max_size=3)),
                      "duplicate": text[i:j] * 2}[kind]
            text = text[:i] + middle + text[j:]
        elif kind == "insert":
            i = draw(st.integers(0, n))
            text = text[:i] + draw(st.text(noise_char, min_size=1, max_size=5)) + text[i:]
        else:
            lines = text.split("\n")
            if kind == "shuffle":
                lines = draw(st.permutations(lines))
            elif lines:
                i = draw(st.integers(0, len(lines) - 1))
                lines = lines[:i] + lines[i + 1:] if kind == "drop_line" else lines[: i + 1] + lines[i:]
            text = "\n".join(lines)
    return text


SEATINGS = [("classic", 4), ("classic", 3), ("classic", 2), ("junior", 4), ("junior", 2), ("quick6", 3),
            ("quick6", 2), ("quick4", 2)]
names_text = st.text(st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=12).map(
    str.strip).filter(bool)
tag_names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True).filter(
    lambda k: k not in ("Variant", "Players", "Order", "First", "Result"))
tag_values = st.text(st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp")), max_size=15)


@st.composite
def games(draw: st.DrawFn) -> Game:
    """A game in any edition and seating (custom orders, names, extra tags), part-played or finished."""
    variant_name, players = draw(st.sampled_from(SEATINGS))
    variant = get_variant(variant_name)
    order = list(draw(st.permutations(variant.colours))[:players])
    first = draw(st.sampled_from(order))
    names = draw(st.dictionaries(st.sampled_from(order), names_text, max_size=players))
    game = Game(variant, order=order, first=first, names=names)
    game.tags = draw(st.dictionaries(tag_names, tag_values, max_size=3))
    for choice in draw(st.lists(st.integers(0, 99), max_size=variant.moves_per_game)):
        moves = game.legal_moves()
        game.push(moves[choice % len(moves)])
    return game


# --- Helpers ----------------------------------------------------------------------------------


def outcome(parse: Callable[[Any], T], value: Any, errors: type[Exception] | tuple[type[Exception], ...]) -> T | None:
    """``parse(value)``, or ``None`` when it raises one of ``errors`` with a message. Any other
    exception propagates and fails the test."""
    try:
        return parse(value)
    except errors as exc:
        assert str(exc).strip(), f"{type(exc).__name__} without a message"
        return None


def check_board(board: Board) -> None:
    assert board.size in (4, 6, 8)
    assert all(cell is None or cell is UNKNOWN or isinstance(cell, Colour) for _, cell in board.items())
    assert parse_board(board.text()) == board


def same_game(a: Game, b: Game) -> bool:
    return (a.variant == b.variant and a.order == b.order and a.moves == b.moves and a.names == b.names
            and a.tags == b.tags)


def check_game(game: Game) -> None:
    """A game a parser returned is a real game: it replays from its own record."""
    assert isinstance(game, Game)
    assert same_game(read_record(write_record(game)), game)


# --- Boards, squares, colours, moves, editions -------------------------------------------------


@FUZZ
@given(st.one_of(any_text, board_texts(), mutated(board_texts())))
def test_board_text_parses_or_raises_board_text_error(text: str) -> None:
    for board in outcome(parse_boards, text, BoardTextError) or []:
        check_board(board)
    board = outcome(Board.from_text, text, BoardTextError)
    if board is not None:
        check_board(board)
    rows = text.split("\n")
    board = outcome(Board.from_rows, rows, BoardTextError)
    if board is not None:
        check_board(board)


@FUZZ
@given(st.lists(boards(), max_size=3), st.booleans())
def test_boards_round_trip_through_text(items: list[Board], spaced: bool) -> None:
    texts = [b.text() if not spaced else "\n".join(" ".join(r) for r in b.text().splitlines()) for b in items]
    assert parse_boards("\n\n".join(texts)) == items
    for board, text in zip(items, texts, strict=True):
        assert Board.from_text(text) == board and Board.from_text(text.lower()) == board
        assert Board.from_rows(text.splitlines()) == board


@FUZZ
@given(st.one_of(any_text, st.from_regex(r"\s*[a-zA-Z][0-9]{1,3}\s*", fullmatch=True)), st.sampled_from((4, 6, 8)))
def test_squares_parse_or_raise_square_error(text: str, size: int) -> None:
    sq = outcome(lambda t: parse_square(t, size), text, SquareError)
    if sq is not None:
        assert square_name(sq) == text.strip().lower()
        assert sq // 8 < size and sq % 8 < size


def test_every_square_round_trips() -> None:
    for size in (4, 6, 8):
        for row in range(size):
            for col in range(size):
                sq = row * 8 + col
                assert parse_square(square_name(sq), size) == sq
                assert parse_square(f" {square_name(sq).upper()} ", size) == sq


@FUZZ
@given(any_text)
def test_colours_parse_or_raise_value_error(text: str) -> None:
    colour = outcome(Colour.parse, text, ValueError)
    assert colour is None or isinstance(colour, Colour)
    colour = outcome(Colour.from_letter, text, ValueError)
    assert colour is None or (isinstance(colour, Colour) and colour.letter == text.upper())


def test_every_colour_round_trips() -> None:
    for colour in Colour:
        for text in (colour.label, colour.title, colour.letter, colour.letter.lower(), f" {colour.label.upper()} "):
            assert Colour.parse(text) is colour
        assert Colour.from_letter(colour.letter) is colour and Colour.from_letter(colour.letter.lower()) is colour


@FUZZ
@given(st.one_of(any_text, st.from_regex(r"[A-Za-z]:[a-z][0-9]", fullmatch=True)),
       st.sampled_from(SEATINGS))
def test_moves_parse_or_raise_rolit_errors(text: str, seating: tuple[str, int]) -> None:
    position = Position.start(seating[0], players=seating[1])
    move = outcome(lambda t: Move.parse(t, position.size), text, (IllegalMoveError, SquareError))
    if move is not None:
        assert Move.parse(str(move), position.size) == move
    move = outcome(position.check_move, text, IllegalMoveError)
    if move is not None:
        assert move in position.legal_moves()
    assert isinstance(position.is_legal(text), bool)
    for legal in position.legal_moves():
        assert position.check_move(str(legal)) == legal


@FUZZ
@given(any_text)
def test_editions_parse_or_raise_setup_error(text: str) -> None:
    variant = outcome(get_variant, text, SetupError)
    assert variant is None or variant.name == text.strip().lower()


# --- Game records -------------------------------------------------------------------------------

record_words = st.sampled_from(['[Variant "quick4"]', '[Players "red, green"]', '[Order "green, red"]',
                                '[First "red"]', '[Result "red"]', '[Result "*"]', "1.", "2.", "R:d2", "G:c1",
                                "R:a1", "E:b2", "*", "#", "\n", " ", '[Date "x"]', "[", '"'])
record_like = st.lists(st.one_of(record_words, noisy_text.map(lambda t: t[:10])), max_size=25).map("".join)


@FUZZ
@given(st.one_of(any_text, record_like, games().map(write_record).flatmap(lambda t: mutated(st.just(t)))))
def test_text_records_read_or_raise_record_error(text: str) -> None:
    game = outcome(read_record, text, RecordError)
    if game is not None:
        check_game(game)
    game = outcome(load_record, text, RecordError)
    if game is not None:
        check_game(game)


@FUZZ
@given(st.one_of(
    json_values.map(json.dumps),
    games().map(lambda g: json.dumps(record_to_json(g))).flatmap(lambda t: mutated(st.just(t))),
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 3000).map(lambda n: '{"moves": ' + "[" * n + "]" * n + "}"),
    st.integers(4000, 5000).map(lambda n: '{"moves": [], "x": ' + "7" * n + "}"),
    st.sampled_from(['{"moves": NaN}', '{"players": Infinity}', '{"result": -Infinity, "moves": []}']),
))
def test_json_records_load_or_raise_record_error(text: str) -> None:
    game = outcome(load_record, text, RecordError)
    if game is not None:
        check_game(game)


record_keys = st.sampled_from(["variant", "players", "order", "first", "tags", "moves", "result", "scores", "x"])
plausible = st.one_of(
    json_values, st.sampled_from(["quick4", "classic", "red", "green", "R:d2", "*", ""]),
    st.lists(st.sampled_from(["R:d2", "G:c1", "red", "green", "R:zz", "blue"]), max_size=4),
    st.dictionaries(st.sampled_from(["red", "green", "blue", "grey", "Date", "1"]), st.text(max_size=5), max_size=3),
)


@FUZZ
@given(st.one_of(json_values, st.dictionaries(record_keys, plausible, max_size=6)))
def test_json_record_objects_replay_or_raise_record_error(data: Any) -> None:
    game = outcome(record_from_json, data, RecordError)
    if game is not None:
        check_game(game)


@FEW
@given(games())
def test_records_round_trip(game: Game) -> None:
    text = write_record(game)
    assert same_game(read_record(text), game) and same_game(load_record(text), game)
    data = record_to_json(game)
    assert same_game(record_from_json(data), game)
    assert same_game(load_record(json.dumps(data)), game)
    assert record_to_json(load_record(json.dumps(data))) == data


@FEW
@given(games(), st.dictionaries(st.sampled_from(list(Colour)), st.text(max_size=12), max_size=4))
def test_any_names_make_a_readable_record(game: Game, names: dict[Colour, str]) -> None:
    """Names with commas, colons, quotes, backslashes or line breaks (the page lets people type
    anything) still give a record that reads back; names are only trimmed and lines joined."""
    game.names = {c: n for c, n in names.items() if c in game.order}
    again = read_record(write_record(game))
    assert again.moves == game.moves and again.order == game.order
    assert again.names == {c: " ".join(n.splitlines()).strip() for c, n in game.names.items()
                           if " ".join(n.splitlines()).strip()}
    assert load_record(json.dumps(record_to_json(game))).names == again.names


# --- The new-game settings (rolit.webui.settings) ---------------------------------------------

colour_names = st.sampled_from(["red", "yellow", "green", "blue", "grey", "R", "Gray", "purple", "", " red "])
settings_values = st.one_of(
    json_values, colour_names, st.sampled_from([*HINT_POLICIES, *COMPUTER_LEVELS, "human", "ball"]),
    st.integers(-5, 5), st.lists(colour_names, max_size=5),
    st.dictionaries(colour_names, st.one_of(st.text(max_size=45), st.sampled_from([*COMPUTER_LEVELS, "human", " human "]),
                                          json_scalars),
                    max_size=4),
)
settings_keys = st.sampled_from(["variant", "players", "colours", "order", "first", "names", "hints", "hint_limit",
                                 "computer", "timer", "match", "solo", "x"])
settings_data = st.one_of(
    json_values,
    st.dictionaries(settings_keys, settings_values, max_size=7),
    st.builds(lambda v, p, extra: {"variant": v, "players": p, **extra},
              st.sampled_from(["classic", "junior", "quick6", "quick4", " Quick6 "]), st.integers(1, 5),
              st.dictionaries(settings_keys, settings_values, max_size=3)),
)


@FUZZ
@given(settings_data)
def test_game_settings_parse_or_raise_settings_error(data: Any) -> None:
    parsed = outcome(GameSettings.from_json, data, SettingsError)
    if parsed is not None:
        assert GameSettings.from_json(parsed.to_json()) == parsed
        assert GameSettings.from_json(json.loads(json.dumps(parsed.to_json()))) == parsed
        Position.start(parsed.variant, order=parsed.order, first=parsed.first)  # it can be played


def test_settings_errors_are_value_errors_not_rolit_errors() -> None:
    # The module documents SettingsError as a ValueError for a 400 answer.
    assert issubclass(SettingsError, ValueError)


# --- Calibration profiles (rolit.calibration.profile) ------------------------------------------

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
profile_keys = st.sampled_from(["version", "variant", "rotation", "corners", "class_means", "created", "x"])
profile_values = st.one_of(
    json_values, st.just(1), st.integers(-2, 5), st.sampled_from(["junior", "chess", "quick4"]),
    st.lists(st.lists(st.one_of(finite, json_scalars), max_size=3), max_size=5),
    st.dictionaries(st.text(max_size=6), st.one_of(st.lists(st.one_of(finite, json_scalars), max_size=4),
                                                   json_scalars), max_size=3),
)
profile_data = st.one_of(
    json_values,
    st.dictionaries(profile_keys, profile_values, max_size=6),
    st.dictionaries(profile_keys, profile_values, max_size=5).map(lambda d: {**d, "version": 1}),
)


@FUZZ
@given(profile_data)
def test_profiles_parse_or_raise_calibration_error(data: Any) -> None:
    profile = outcome(Profile.from_json, data, CalibrationError)
    if profile is not None:
        assert Profile.from_json(profile.to_json()) == profile


@st.composite
def profiles(draw: st.DrawFn) -> Profile:
    corners = draw(st.none() | st.lists(st.lists(finite, min_size=2, max_size=2), min_size=4, max_size=4))
    means = draw(st.dictionaries(st.sampled_from(["empty", "red", "green", "grey", "hand"]),
                                 st.lists(finite, min_size=3, max_size=3), max_size=5))
    return Profile(draw(st.sampled_from(["classic", "junior", "quick6", "quick4"])), draw(st.integers(0, 3)),
                   corners, means, draw(st.text(max_size=20)))


@FUZZ
@given(profiles())
def test_profiles_round_trip(profile: Profile) -> None:
    assert Profile.from_json(json.loads(json.dumps(profile.to_json()))) == profile


@settings(max_examples=round(40 * SCALE), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(
    json_values.map(json.dumps),
    profiles().map(lambda p: json.dumps(p.to_json())).flatmap(lambda t: mutated(st.just(t))),
    st.integers(1, 3000).map(lambda n: '{"version": 1, "corners": ' + "[" * n + "]" * n + "}"),
    st.integers(4400, 5000).map(lambda n: '{"version": 1, "rotation": ' + "1" * n + "}"),
    st.sampled_from(['{"version": 1, "rotation": Infinity}', '{"version": 1, "rotation": 1e309}',
                     '{"version": 1, "rotation": NaN}', '{"version": 1, "class_means": {"red": [1e400, 0, 0]}}']),
    st.binary(max_size=50).map(lambda b: b.decode("latin-1")),
))
def test_profile_files_load_or_raise_calibration_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "profile.json"
    path.write_text(text, encoding="utf-8")
    profile = outcome(Profile.load, path, CalibrationError)
    if profile is not None:
        assert Profile.from_json(profile.to_json()) == profile


def test_documented_error_classes() -> None:
    for error in (BoardTextError, SquareError, IllegalMoveError, SetupError, RecordError, CalibrationError):
        assert issubclass(error, RolitError) and issubclass(error, ValueError)
