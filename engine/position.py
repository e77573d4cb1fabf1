"""Positions, moves and outcomes.

A :class:`Position` is immutable and hashable: the balls on the board, the colours
in play in turn order, and the colour to move. Playing a move returns a new
position.

>>> pos = Position.start("classic", players=2)
>>> [str(m) for m in pos.legal_moves()]
['R:f4', 'R:d6', 'R:f6']
>>> [square_name(sq) for sq in pos.flips("f4")]
['e4']
>>> after = pos.play("f4")
>>> after.turn, after.count(RED)
(<Colour.GREEN: 2>, 3)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .bitboard import Geometry, geometry
from .board import UNKNOWN, Board
from .colours import RED, Colour  # noqa: F401  (RED is used in the examples)
from .errors import GameOverError, IllegalMoveError, SetupError, SquareError
from .squares import Square, parse_square, square, square_name, square_names
from .variants import Variant, get_variant, make_order, solo_order, standard_order

__all__ = ["Move", "Position", "Outcome", "MoveLike"]


@dataclass(frozen=True, order=True)
class Move:
    """A ball of ``colour`` placed on ``square``.

    >>> str(Move(RED, parse_square("f4")))
    'R:f4'
    """

    colour: Colour
    square: Square

    @classmethod
    def parse(cls, text: str, size: int = 8) -> Move:
        """A move from its record form ``"R:f4"``."""
        letter, sep, name = text.strip().partition(":")
        if not sep or len(letter) != 1:
            raise IllegalMoveError(f"{text!r} is not a move (write the colour letter and the square, like R:f4)")
        try:
            colour = Colour.from_letter(letter)
        except ValueError as exc:
            raise IllegalMoveError(f"{text!r}: {exc}") from None
        return cls(colour, parse_square(name, size))

    @property
    def name(self) -> str:
        """The square's name, such as ``"f4"``."""
        return square_name(self.square)

    def __str__(self) -> str:
        return f"{self.colour.letter}:{square_name(self.square)}"


MoveLike = Move | Square | str


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game.

    ``scores`` counts the balls of every colour on the board (neutral colours
    too); ``winners`` are the colours in play with the most balls (several on a
    tie, which shares the win).
    """

    scores: Mapping[Colour, int]
    winners: tuple[Colour, ...]
    in_play: tuple[Colour, ...] = field(default=())

    @property
    def shared(self) -> bool:
        """True when the win is shared."""
        return len(self.winners) > 1

    @property
    def winning_count(self) -> int:
        """The winners' number of balls."""
        return self.scores[self.winners[0]]

    def result(self) -> str:
        """The record's result text: the winners' names, ``"red, green"`` on a tie."""
        return ", ".join(c.label for c in self.winners)

    def to_json(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "scores": {c.label: n for c, n in self.scores.items()},
            "winners": [c.label for c in self.winners],
        }


class Position:
    """An immutable, hashable Rolit position.

    Create one with :meth:`start` or :meth:`from_board`. Moves may be given as a
    :class:`Move`, a square number or a square name; a bare square means a ball of
    the colour to move.
    """

    __slots__ = ("_boards", "_geom", "_hash", "_legal", "_occupied", "order", "turn", "variant")

    variant: Variant
    #: The colours in play in turn order, a cycle written from its lowest colour.
    order: tuple[Colour, ...]
    #: The colour to move.
    turn: Colour

    def __init__(self, variant: Variant, boards: tuple[int, ...], order: tuple[Colour, ...], turn: Colour) -> None:
        # Callers inside the engine pass validated data; the public constructors
        # are start() and from_board().
        self.variant = variant
        # The turn order is a cycle: write it from its lowest colour so that the
        # same cycle started anywhere gives equal positions.
        i = order.index(min(order))
        self.order = order[i:] + order[:i]
        self.turn = turn
        self._boards = boards
        self._geom: Geometry = geometry(variant.size)
        occupied = 0
        for b in boards:
            occupied |= b
        self._occupied = occupied
        self._legal: tuple[int, bool] | None = None
        self._hash = hash((variant.name, boards, order, turn))

    # Construction -----------------------------------------------------------

    @classmethod
    def start(
        cls,
        variant: str | Variant = "classic",
        *,
        players: int | None = None,
        order: Iterable[Colour] | None = None,
        first: Colour | None = None,
        solo: bool = False,
    ) -> Position:
        """The start position: the centre 2x2 clockwise from top-left red,
        yellow, green, blue (grey in Junior), whatever the number of players.

        ``players`` picks the standard colours (2: red and green; 3: red, yellow,
        green; 4: all), ``order`` gives a custom turn order, ``solo`` is one
        person playing the book's two colours; ``first`` is the colour that
        starts (default: the first of the order).
        """
        v = get_variant(variant)
        seating = _seating(v, players, order, first, solo)
        geom = geometry(v.size)
        lo = v.size // 2 - 1
        centre = (square(lo, lo), square(lo + 1, lo), square(lo + 1, lo + 1), square(lo, lo + 1))
        boards = tuple(geom.bit[sq] for sq in centre)
        return cls(v, boards, seating, seating[0])

    @classmethod
    def from_board(
        cls,
        board: Board,
        variant: str | Variant = "classic",
        *,
        turn: Colour | None = None,
        players: int | None = None,
        order: Iterable[Colour] | None = None,
        solo: bool = False,
    ) -> Position:
        """A position with the balls of ``board``, ``turn`` to move.

        The board must fit the variant and have no unknown cells; balls on a
        board always touch each other in a real game, so a position whose balls
        cannot have arisen by play is refused.
        """
        v = get_variant(variant)
        board.check_variant(v)
        if not board.is_complete:
            unknown = ", ".join(square_names(board.unknown_squares()))
            raise SetupError(f"the board has unknown squares ({unknown}); a position needs every square")
        seating = _seating(v, players, order, turn, solo)
        geom = geometry(v.size)
        boards = [0] * len(v.colours)
        for sq, cell in board.items():
            if cell is not None and cell is not UNKNOWN:
                assert isinstance(cell, Colour)
                boards[v.slot(cell)] |= geom.bit[sq]
        _check_reachable(v, geom, boards)
        return cls(v, tuple(boards), seating, seating[0])

    def turn_order(self) -> tuple[Colour, ...]:
        """The colours in play in turn order, starting with the colour to move."""
        i = self.order.index(self.turn)
        return self.order[i:] + self.order[:i]

    def with_turn(self, colour: Colour) -> Position:
        """The same balls with ``colour`` to move."""
        if colour not in self.order:
            raise SetupError(f"{colour.label} is not in play")
        return Position(self.variant, self._boards, self.order, colour)

    # Board access -------------------------------------------------------------

    @property
    def size(self) -> int:
        """The board's side length."""
        return self.variant.size

    @property
    def geometry(self) -> Geometry:
        """The bit layout (for the fast core)."""
        return self._geom

    @property
    def bitboards(self) -> tuple[int, ...]:
        """One bitboard per colour of :attr:`Variant.colours` (see :mod:`.bitboard`)."""
        return self._boards

    def colour_at(self, sq: Square | str) -> Colour | None:
        """The colour of the ball on ``sq``, or ``None`` if it is empty."""
        sq = self._square(sq)
        bit = self._geom.bit[sq]
        for slot, b in enumerate(self._boards):
            if b & bit:
                return self.variant.colours[slot]
        return None

    def squares(self, colour: Colour) -> list[Square]:
        """The squares holding ``colour``, in order."""
        return self._geom.to_squares(self._boards[self.variant.slot(colour)])

    def count(self, colour: Colour) -> int:
        """How many balls show ``colour``."""
        return self._boards[self.variant.slot(colour)].bit_count()

    def counts(self) -> dict[Colour, int]:
        """Balls per colour, for every colour of the edition."""
        return {c: b.bit_count() for c, b in zip(self.variant.colours, self._boards, strict=True)}

    @property
    def balls(self) -> int:
        """Number of balls on the board."""
        return self._occupied.bit_count()

    @property
    def ply(self) -> int:
        """Number of placements made since the start (balls minus the four)."""
        return self.balls - 4

    def empty_squares(self) -> list[Square]:
        """The empty squares."""
        return self._geom.to_squares(self._geom.full & ~self._occupied)

    def is_full(self) -> bool:
        """True when no square is empty: the game is over."""
        return self._occupied == self._geom.full

    def board(self) -> Board:
        """The balls as a :class:`Board`."""
        n = self.size
        cells: list[Colour | None] = [None] * (n * n)
        square_of = self._geom.square_of
        for colour, bits in zip(self.variant.colours, self._boards, strict=True):
            while bits:
                b = bits & -bits
                sq = square_of[b]
                cells[(sq >> 3) * n + (sq & 7)] = colour
                bits ^= b
        return Board(n, cells)

    def board_text(self) -> str:
        """Board text of the position."""
        return self.board().text()

    @property
    def neutral(self) -> tuple[Colour, ...]:
        """Colours on the board that nobody plays."""
        return tuple(c for c in self.variant.colours if c not in self.order)

    # Rules -----------------------------------------------------------------

    def _legal_bits(self) -> tuple[int, bool]:
        if self._legal is None:
            own = self._boards[self.variant.slot(self.turn)]
            if self._occupied == self._geom.full:
                self._legal = (0, False)
            else:
                self._legal = self._geom.legal_moves(own, self._occupied)
        return self._legal

    def legal_moves(self) -> list[Move]:
        """Every legal move for the colour to move, in square order.

        When a capture is possible only capturing moves are legal.
        """
        bits, _ = self._legal_bits()
        return [Move(self.turn, sq) for sq in self._geom.to_squares(bits)]

    def capturing_moves(self) -> list[Move]:
        """The moves that capture (empty when none does)."""
        _, capturing = self._legal_bits()
        return self.legal_moves() if capturing else []

    def has_capture(self) -> bool:
        """True when the colour to move can capture (and so must)."""
        return self._legal_bits()[1]

    def is_legal(self, move: MoveLike) -> bool:
        """True when ``move`` may be played now."""
        try:
            self.check_move(move)
        except (IllegalMoveError, GameOverError):
            return False
        return True

    def check_move(self, move: MoveLike) -> Move:
        """The move as a :class:`Move`, or :class:`IllegalMoveError` saying why not."""
        m = self.to_move(move)
        if self.is_full():
            raise GameOverError("the board is full: the game is over")
        name = square_name(m.square)
        if m.colour != self.turn:
            raise IllegalMoveError(f"it is {self.turn.title}'s turn, not {m.colour.title}'s")
        bit = self._geom.bit[m.square]
        if self._occupied & bit:
            raise IllegalMoveError(f"{name} is not empty")
        bits, capturing = self._legal_bits()
        if bits & bit:
            return m
        if capturing:
            squares = " ".join(square_names(self._geom.to_squares(bits)))
            raise IllegalMoveError(
                f"{self.turn.title} must capture when it can, and {name} captures nothing: play one of {squares}"
            )
        raise IllegalMoveError(f"{name} does not touch any ball")

    def to_move(self, move: MoveLike) -> Move:
        """``move`` as a :class:`Move` (a bare square is a ball of the colour to move)."""
        if isinstance(move, Move):
            self._square(move.square)
            return move
        if isinstance(move, str) and ":" in move:
            try:
                return Move.parse(move, self.size)
            except SquareError as exc:
                raise IllegalMoveError(str(exc)) from None
        return Move(self.turn, self._square(move))

    def flips(self, move: MoveLike) -> list[Square]:
        """The balls ``move`` rolls (whether or not it is legal now), in square order."""
        m = self.to_move(move)
        bit = self._geom.bit[m.square]
        if self._occupied & bit:
            raise IllegalMoveError(f"{square_name(m.square)} is not empty")
        own = self._boards[self.variant.slot(m.colour)]
        return self._geom.to_squares(self._geom.flips(bit, own, self._occupied))

    def play(self, move: MoveLike) -> Position:
        """The position after the legal ``move``; :class:`IllegalMoveError` otherwise."""
        m = self.check_move(move)
        return self._play_unchecked(m)

    def _play_unchecked(self, m: Move) -> Position:
        geom = self._geom
        bit = geom.bit[m.square]
        mover = self.variant.slot(m.colour)
        own = self._boards[mover]
        flipped = geom.flips(bit, own, self._occupied)
        keep = ~flipped
        boards = tuple(
            (b | bit | flipped) if s == mover else (b & keep) for s, b in enumerate(self._boards)
        )
        return Position(self.variant, boards, self.order, self.next_colour(m.colour))

    def next_colour(self, colour: Colour | None = None) -> Colour:
        """The colour that plays after ``colour`` (default: after the colour to move)."""
        c = self.turn if colour is None else colour
        i = self.order.index(c)
        return self.order[(i + 1) % len(self.order)]

    def is_game_over(self) -> bool:
        """True when the board is full."""
        return self.is_full()

    def outcome(self) -> Outcome | None:
        """The :class:`Outcome` on a full board, else ``None``."""
        if not self.is_full():
            return None
        scores = self.counts()
        best = max(scores[c] for c in self.order)
        winners = tuple(c for c in self.order if scores[c] == best)
        return Outcome(scores, winners, self.order)

    def _square(self, sq: Square | str) -> Square:
        if isinstance(sq, str):
            try:
                return parse_square(sq, self.size)
            except SquareError as exc:
                raise IllegalMoveError(str(exc)) from None
        if not isinstance(sq, int) or sq not in self._geom.bit:
            raise IllegalMoveError(f"square {sq!r} is not on a {self.size}x{self.size} board")
        return sq

    # Identity ---------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (
            self.variant == other.variant
            and self._boards == other._boards
            and self.order == other.order
            and self.turn == other.turn
        )

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return self.board_text()

    def __repr__(self) -> str:
        return (
            f"<Position {self.variant.name} {self.turn.label} to move, "
            f"order {'-'.join(c.letter for c in self.order)}, ply {self.ply}>"
        )


def _seating(
    variant: Variant,
    players: int | None,
    order: Iterable[Colour] | None,
    first: Colour | None,
    solo: bool,
) -> tuple[Colour, ...]:
    if sum(x is not None and x is not False for x in (players, order, solo or None)) > 1:
        raise SetupError("give only one of players, order and solo")
    if order is not None:
        return make_order(variant, order, first)
    if solo:
        return solo_order(variant, first)
    if players is None:
        players = max(variant.player_counts)
    return standard_order(variant, players, first)


def _check_reachable(variant: Variant, geom: Geometry, boards: list[int]) -> None:
    """Refuse ball sets that no game can produce."""
    occupied = 0
    for b in boards:
        occupied |= b
    lo = variant.size // 2 - 1
    centre = [square(lo, lo), square(lo + 1, lo), square(lo + 1, lo + 1), square(lo, lo + 1)]
    missing = [sq for sq in centre if not occupied & geom.bit[sq]]
    if missing:
        raise SetupError(
            f"the centre squares always hold balls, but {', '.join(square_names(missing))} "
            f"{'is' if len(missing) == 1 else 'are'} empty"
        )
    # Every ball is placed touching another, so the balls form one connected group.
    seen = geom.bit[centre[0]]
    frontier = seen
    while frontier:
        frontier = geom.neighbours(frontier) & occupied & ~seen
        seen |= frontier
    if seen != occupied:
        apart = square_names(geom.to_squares(occupied & ~seen))
        raise SetupError(f"balls on {', '.join(apart)} touch no other ball, which cannot happen in a game")

