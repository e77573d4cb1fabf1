"""Square names, colours and variants."""

from __future__ import annotations

import pytest

from rolit.engine import (
    CLASSIC,
    GREY,
    JUNIOR,
    QUICK4,
    RED,
    Colour,
    SetupError,
    SquareError,
    get_variant,
    parse_square,
    square,
    square_name,
)
from rolit.engine.squares import squares_of


def test_square_numbering_is_the_same_on_every_board() -> None:
    assert parse_square("a1") == 0 and parse_square("h8") == 63 and parse_square("B3") == square(1, 2)
    assert [square_name(sq) for sq in squares_of(4)][:5] == ["a1", "b1", "c1", "d1", "a2"]
    assert all(parse_square(square_name(sq)) == sq for sq in squares_of(8))


@pytest.mark.parametrize(("name", "message"), [("i1", "not a square name"), ("a0", "not a square name"), ("", "not a square name"), ("e5", "not on a 4x4 board")])
def test_bad_square_names(name: str, message: str) -> None:
    with pytest.raises(SquareError, match=message):
        parse_square(name, size=4)


def test_colours() -> None:
    assert [c.letter for c in Colour] == ["R", "Y", "G", "B", "E"]
    assert Colour.parse(" Grey ") is GREY and Colour.parse("gray") is GREY and Colour.parse("r") is RED
    assert str(RED) == "red" and RED.title == "Red"
    with pytest.raises(ValueError, match="not a colour"):
        Colour.parse("purple")
    with pytest.raises(ValueError, match="not a colour letter"):
        Colour.from_letter("Q")


def test_variants() -> None:
    assert get_variant("Classic") is CLASSIC and get_variant(JUNIOR) is JUNIOR
    assert (CLASSIC.size, JUNIOR.size, QUICK4.size) == (8, 6, 4)
    assert JUNIOR.colours[3] is GREY and CLASSIC.moves_per_game == 60 and QUICK4.player_counts == (2,)
    with pytest.raises(SetupError, match="has no grey"):
        CLASSIC.slot(GREY)
