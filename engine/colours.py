"""Ball colours and their letters.

A Rolit ball has four coloured segments; the colour that faces up is the ball's
colour on the board. Junior sets have grey (the elephant) where classic sets have
blue.

>>> Colour.RED.letter
'R'
>>> Colour.from_letter("e") is Colour.GREY
True
>>> Colour.parse("Green")
<Colour.GREEN: 2>
"""

from __future__ import annotations

import enum

__all__ = ["Colour", "RED", "YELLOW", "GREEN", "BLUE", "GREY", "COLOURS"]


class Colour(enum.IntEnum):
    """A ball colour. The integer values are stable and used in saved data."""

    RED = 0
    YELLOW = 1
    GREEN = 2
    BLUE = 3
    GREY = 4

    @property
    def letter(self) -> str:
        """The one-letter code used in board text and game records."""
        return _LETTERS[self]

    @property
    def label(self) -> str:
        """The lower-case English name, as used in JSON and tags (``"red"``)."""
        return self.name.lower()

    @property
    def title(self) -> str:
        """The capitalised name for sentences (``"Red"``)."""
        return self.name.capitalize()

    @classmethod
    def from_letter(cls, letter: str) -> Colour:
        """The colour for a board-text letter (case-insensitive).

        Raises ``ValueError`` for a letter that is no colour.
        """
        try:
            return _BY_LETTER[letter.upper()]
        except KeyError:
            raise ValueError(f"{letter!r} is not a colour letter (use R, Y, G, B or E)") from None

    @classmethod
    def parse(cls, text: str) -> Colour:
        """A colour from its name or letter, case-insensitive (``"red"``, ``"R"``)."""
        key = text.strip().upper()
        if key in cls.__members__:
            return cls[key]
        if key in ("GRAY",):
            return cls.GREY
        if len(key) == 1 and key in _BY_LETTER:
            return _BY_LETTER[key]
        raise ValueError(f"{text!r} is not a colour (use red, yellow, green, blue or grey)")

    def __str__(self) -> str:
        return self.label


_LETTERS = {
    Colour.RED: "R",
    Colour.YELLOW: "Y",
    Colour.GREEN: "G",
    Colour.BLUE: "B",
    Colour.GREY: "E",  # E for the elephant: G is green.
}
_BY_LETTER = {letter: colour for colour, letter in _LETTERS.items()}

RED = Colour.RED
YELLOW = Colour.YELLOW
GREEN = Colour.GREEN
BLUE = Colour.BLUE
GREY = Colour.GREY
COLOURS = tuple(Colour)
