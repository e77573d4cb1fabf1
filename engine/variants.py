"""Editions of the game and who plays which colour.

>>> CLASSIC.size, [c.label for c in CLASSIC.colours]
(8, ['red', 'yellow', 'green', 'blue'])
>>> [c.label for c in standard_order(CLASSIC, 3)]
['red', 'yellow', 'green']
>>> [c.label for c in standard_order(JUNIOR, 4, first=GREEN)]
['green', 'grey', 'red', 'yellow']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .colours import BLUE, GREEN, GREY, RED, YELLOW, Colour
from .errors import SetupError

__all__ = [
    "Variant",
    "CLASSIC",
    "JUNIOR",
    "QUICK6",
    "QUICK4",
    "VARIANTS",
    "get_variant",
    "standard_order",
    "make_order",
    "solo_order",
]


@dataclass(frozen=True)
class Variant:
    """An edition: board size, the four ball colours and the seatings it allows.

    ``colours`` lists the colours clockwise from the top-left ball of the start
    position; it is also the default turn order.
    """

    name: str
    title: str
    size: int
    colours: tuple[Colour, ...]
    player_counts: tuple[int, ...]
    solo: tuple[Colour, Colour]

    @property
    def squares(self) -> int:
        """Number of squares on the board."""
        return self.size * self.size

    @property
    def moves_per_game(self) -> int:
        """Every game is exactly this many placements (no passes)."""
        return self.size * self.size - 4

    def slot(self, colour: Colour) -> int:
        """Index of ``colour`` in :attr:`colours`; ``SetupError`` if the edition lacks it."""
        try:
            return self.colours.index(colour)
        except ValueError:
            names = ", ".join(c.label for c in self.colours)
            raise SetupError(f"{self.name} has no {colour.label} balls (it has {names})") from None

    def __str__(self) -> str:
        return self.name


CLASSIC = Variant("classic", "Rolit (8x8)", 8, (RED, YELLOW, GREEN, BLUE), (2, 3, 4), (RED, GREEN))
# The Junior book has solo players alternate red and grey.
JUNIOR = Variant("junior", "Rolit Junior (6x6)", 6, (RED, YELLOW, GREEN, GREY), (2, 3, 4), (RED, GREY))
QUICK6 = Variant("quick6", "Quick game on 6x6", 6, (RED, YELLOW, GREEN, BLUE), (2, 3, 4), (RED, GREEN))
QUICK4 = Variant("quick4", "Quick game on 4x4", 4, (RED, YELLOW, GREEN, BLUE), (2,), (RED, GREEN))

VARIANTS: dict[str, Variant] = {v.name: v for v in (CLASSIC, JUNIOR, QUICK6, QUICK4)}


def get_variant(variant: str | Variant) -> Variant:
    """The :class:`Variant` named ``variant`` (or ``variant`` itself)."""
    if isinstance(variant, Variant):
        return variant
    try:
        return VARIANTS[variant.strip().lower()]
    except KeyError:
        raise SetupError(f"unknown variant {variant!r}: use {', '.join(VARIANTS)}") from None


def _rotate(order: tuple[Colour, ...], first: Colour | None) -> tuple[Colour, ...]:
    if first is None:
        return order
    if first not in order:
        names = ", ".join(c.label for c in order)
        raise SetupError(f"{first.label} is not in play (the colours in play are {names})")
    i = order.index(first)
    return order[i:] + order[:i]


def standard_order(variant: Variant, players: int, first: Colour | None = None) -> tuple[Colour, ...]:
    """The colours in play for ``players`` people, in turn order, starting with ``first``.

    Two players take the opposite colours red and green, three take red, yellow and
    green, four take all. The colours left over stay on the board as neutral balls.
    """
    if players not in variant.player_counts:
        *rest, last = [str(p) for p in variant.player_counts]
        counts = f"{', '.join(rest)} or {last}" if rest else last
        raise SetupError(f"{variant.name} is played by {counts} players, not {players}")
    colours = variant.colours
    chosen = {2: (colours[0], colours[2]), 3: colours[:3], 4: colours}[players]
    return _rotate(tuple(chosen), first)


def solo_order(variant: Variant, first: Colour | None = None) -> tuple[Colour, ...]:
    """Solo practice: one person plays two colours in turn (the book's pair)."""
    return _rotate(variant.solo, first)


def make_order(
    variant: Variant, colours: Iterable[Colour], first: Colour | None = None
) -> tuple[Colour, ...]:
    """A custom turn order of the given colours (each once, all of this edition).

    The Spanish book, for example, plays red, blue, green, yellow.
    """
    order = tuple(colours)
    if len(order) < 2:
        raise SetupError("a game needs at least two colours in play")
    if len(set(order)) != len(order):
        raise SetupError("each colour may appear in the turn order only once")
    for colour in order:
        variant.slot(colour)
    if variant is QUICK4 and len(order) != 2:
        raise SetupError("quick4 is played by 2 colours")
    return _rotate(order, first)
