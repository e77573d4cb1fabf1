"""Games (a position with its history) and matches over several rounds.

>>> game = Game("classic", players=2, names={RED: "Ana", GREEN: "Tom"})
>>> str(game.push("f4")), str(game.push("e3"))
('R:f4', 'G:e3')
>>> game.history[-1].flipped == (parse_square("e4"),)
True
>>> str(game.pop()), game.turn.label
('G:e3', 'green')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .colours import GREEN, RED, Colour  # noqa: F401  (used in the examples)
from .errors import IllegalMoveError, SetupError
from .position import Move, MoveLike, Outcome, Position
from .squares import Square, parse_square  # noqa: F401
from .variants import Variant, get_variant

__all__ = ["Game", "PlayedMove", "Match", "Standing", "RoundResult", "player_totals"]


@dataclass(frozen=True)
class PlayedMove:
    """A move in a game's history with the balls it rolled."""

    number: int
    move: Move
    flipped: tuple[Square, ...]
    before: Position


class Game:
    """A mutable game: a start position, the moves played, and who plays what.

    ``names`` maps colours to player names; a name given for two colours means
    one person plays both (solo practice, or two colours per player), and their
    balls count together in :meth:`player_scores`.
    """

    def __init__(
        self,
        variant: str | Variant = "classic",
        *,
        players: int | None = None,
        order: Iterable[Colour] | None = None,
        first: Colour | None = None,
        solo: bool = False,
        names: Mapping[Colour, str] | None = None,
        start: Position | None = None,
    ) -> None:
        if start is None:
            start = Position.start(variant, players=players, order=order, first=first, solo=solo)
        self.start = start
        self.names: dict[Colour, str] = dict(names or {})
        for colour in self.names:
            if colour not in start.order:
                raise SetupError(f"{colour.label} has a player's name but is not in play")
        self._positions: list[Position] = [start]
        self._history: list[PlayedMove] = []
        # Free-form record tags other than the ones the game itself defines
        # (Date, Event, Site, ...), kept so records round-trip.
        self.tags: dict[str, str] = {}

    @property
    def variant(self) -> Variant:
        """The edition being played."""
        return self.start.variant

    @property
    def position(self) -> Position:
        """The current position."""
        return self._positions[-1]

    @property
    def turn(self) -> Colour:
        """The colour to move."""
        return self.position.turn

    @property
    def order(self) -> tuple[Colour, ...]:
        """The colours in play, in turn order from the colour that started."""
        return self.start.turn_order()

    @property
    def moves(self) -> list[Move]:
        """The moves played, in order."""
        return [p.move for p in self._history]

    @property
    def history(self) -> list[PlayedMove]:
        """The moves played with what each rolled."""
        return list(self._history)

    @property
    def ply(self) -> int:
        """Number of moves played."""
        return len(self._history)

    def positions(self) -> list[Position]:
        """Every position from the start to now."""
        return list(self._positions)

    def push(self, move: MoveLike) -> Move:
        """Play ``move``; :class:`IllegalMoveError` (and no change) if it is not legal."""
        pos = self.position
        m = pos.check_move(move)
        flipped = tuple(pos.flips(m))
        self._history.append(PlayedMove(len(self._history) + 1, m, flipped, pos))
        self._positions.append(pos._play_unchecked(m))
        return m

    def pop(self) -> Move:
        """Take back the last move and return it."""
        if not self._history:
            raise IllegalMoveError("no move to take back")
        self._positions.pop()
        return self._history.pop().move

    def peek(self) -> Move | None:
        """The last move, or ``None`` at the start."""
        return self._history[-1].move if self._history else None

    def legal_moves(self) -> list[Move]:
        """Legal moves of the colour to move."""
        return self.position.legal_moves()

    def capturing_moves(self) -> list[Move]:
        """Capturing moves of the colour to move (empty when none captures)."""
        return self.position.capturing_moves()

    def flips(self, move: MoveLike) -> list[Square]:
        """The balls ``move`` would roll now."""
        return self.position.flips(move)

    def is_over(self) -> bool:
        """True when the board is full."""
        return self.position.is_full()

    def outcome(self) -> Outcome | None:
        """Scores and winners once the board is full, else ``None``."""
        return self.position.outcome()

    def player_name(self, colour: Colour) -> str:
        """The name of who plays ``colour`` (the colour's name if none was given)."""
        return self.names.get(colour) or colour.title

    def player_scores(self) -> dict[str, int]:
        """Balls per player now: a player's colours count together."""
        return player_totals(self.position.counts(), self.order, self.names)

    def copy(self) -> Game:
        """An independent copy."""
        other = Game(start=self.start, names=self.names)
        other._positions = list(self._positions)
        other._history = list(self._history)
        other.tags = dict(self.tags)
        return other

    def __repr__(self) -> str:
        return f"<Game {self.variant.name} ply {self.ply}, {self.turn.label} to move>"


def player_totals(
    scores: Mapping[Colour, int], order: Iterable[Colour], names: Mapping[Colour, str]
) -> dict[str, int]:
    """Balls per player from balls per colour; unnamed colours stand for themselves."""
    totals: dict[str, int] = {}
    for colour in order:
        who = names.get(colour) or colour.title
        totals[who] = totals.get(who, 0) + scores.get(colour, 0)
    return totals


@dataclass(frozen=True)
class RoundResult:
    """One finished round of a match."""

    number: int
    first: Colour
    totals: Mapping[str, int]
    winners: tuple[str, ...]


@dataclass(frozen=True)
class Standing:
    """A player's place in a match: points (rounds won), then mini-points."""

    player: str
    points: int
    mini_points: int


class Match:
    """Rounds between the same people, scored as the books say.

    The winner of each round scores a point (a shared win gives each winner a
    point) and as many mini-points as they have balls; mini-points break ties on
    points. The starting seat moves on by one each round.

    >>> match = Match("quick4", players=2)
    >>> match.first_for_round(1).label, match.first_for_round(2).label
    ('red', 'green')
    """

    def __init__(
        self,
        variant: str | Variant = "classic",
        *,
        players: int | None = None,
        order: Iterable[Colour] | None = None,
        solo: bool = False,
        names: Mapping[Colour, str] | None = None,
    ) -> None:
        self.variant = get_variant(variant)
        self.order = Position.start(self.variant, players=players, order=order, solo=solo).order
        self.names = dict(names or {})
        self.rounds: list[RoundResult] = []

    def players(self) -> list[str]:
        """The players, in seat order."""
        return list(dict.fromkeys(self.names.get(c) or c.title for c in self.order))

    def first_for_round(self, number: int) -> Colour:
        """The colour that starts round ``number`` (1-based)."""
        return self.order[(number - 1) % len(self.order)]

    def new_game(self) -> Game:
        """A game for the next round, started by the next seat."""
        first = self.first_for_round(len(self.rounds) + 1)
        return Game(self.variant, order=self.order, first=first, names=self.names)

    def add_round(self, game: Game) -> RoundResult:
        """Score a finished game as the next round."""
        outcome = game.outcome()
        if outcome is None:
            raise IllegalMoveError("the round is not over: the board is not full yet")
        totals = player_totals(outcome.scores, self.order, self.names)
        best = max(totals.values())
        winners = tuple(p for p, n in totals.items() if n == best)
        result = RoundResult(len(self.rounds) + 1, game.order[0], totals, winners)
        self.rounds.append(result)
        return result

    def standings(self) -> list[Standing]:
        """Players by points, then mini-points (the winners' balls)."""
        points = dict.fromkeys(self.players(), 0)
        minis = dict.fromkeys(self.players(), 0)
        for r in self.rounds:
            for p in r.winners:
                points[p] += 1
                minis[p] += r.totals[p]
        table = [Standing(p, points[p], minis[p]) for p in points]
        table.sort(key=lambda s: (-s.points, -s.mini_points))
        return table

    def leaders(self) -> list[str]:
        """The players at the top of :meth:`standings` (several on a tie)."""
        table = self.standings()
        if not table:
            return []
        top = (table[0].points, table[0].mini_points)
        return [s.player for s in table if (s.points, s.mini_points) == top]
