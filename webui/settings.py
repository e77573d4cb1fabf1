"""What a new game is set up with: edition, seats, who starts, hints, computer seats, timer.

:class:`GameSettings` is built from the page's JSON (:meth:`GameSettings.from_json`),
which is checked field by field: anything wrong raises :class:`SettingsError`
with one plain sentence for a 400 answer.

>>> s = GameSettings.from_json({"variant": "quick6", "players": 2, "names": {"red": "Ana"}})
>>> [c.label for c in s.order], s.names_map()[Colour.RED]
(['red', 'green'], 'Ana')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rolit.engine import Colour, Position, RolitError, get_variant
from rolit.engine.messages import _

__all__ = ["GameSettings", "SettingsError", "HINT_POLICIES", "COMPUTER_LEVELS"]

HINT_POLICIES = ("off", "request", "coach")
COMPUTER_LEVELS = ("easy", "medium", "hard")


class SettingsError(ValueError):
    """A new-game request that cannot be played; the message is one sentence for the page."""


@dataclass(frozen=True)
class GameSettings:
    """A game's set-up.

    ``order`` lists the colours in play in turn order from the default start;
    ``first`` is the colour that starts (``None``: the first ball decides).
    ``names`` maps colours to players (the same name on two colours: one person
    plays both). ``hints`` is ``off`` (refereeing only), ``request`` (a button per
    player, at most ``hint_limit`` per game when set) or ``coach`` (always shown).
    ``computer`` maps colours the computer plays to a level. ``timer`` is seconds
    per move (0: none). ``match`` keeps score across rounds.
    """

    variant: str = "classic"
    order: tuple[Colour, ...] = ()
    first: Colour | None = None
    names: tuple[tuple[Colour, str], ...] = ()
    hints: str = "request"
    hint_limit: int = 0
    computer: tuple[tuple[Colour, str], ...] = ()
    timer: int = 0
    match: bool = True
    solo: bool = False

    def __post_init__(self) -> None:
        if not self.order:
            v = get_variant(self.variant)
            object.__setattr__(self, "order", Position.start(v, players=len(v.colours)).order)

    def names_map(self) -> dict[Colour, str]:
        """Player names by colour."""
        return dict(self.names)

    def computer_map(self) -> dict[Colour, str]:
        """Computer levels by colour."""
        return dict(self.computer)

    def with_first(self, first: Colour | None) -> GameSettings:
        """The same settings with another starting colour."""
        return replace(self, first=first)

    # JSON ----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (also what is saved with the game)."""
        return {
            "variant": self.variant,
            "order": [c.label for c in self.order],
            "first": self.first.label if self.first is not None else None,
            "names": {c.label: n for c, n in self.names},
            "hints": self.hints,
            "hint_limit": self.hint_limit,
            "computer": {c.label: level for c, level in self.computer},
            "timer": self.timer,
            "match": self.match,
            "solo": self.solo,
        }

    @classmethod
    def from_json(cls, data: Any) -> GameSettings:
        """Settings from the page's JSON; :class:`SettingsError` names the first problem."""
        if not isinstance(data, Mapping):
            raise SettingsError(_("The new game must be described by a JSON object."))
        try:
            variant = get_variant(_text(data, "variant", "classic"))
        except RolitError as exc:
            raise SettingsError(_("Unknown edition: use classic, junior, quick6 or quick4.")) from exc
        solo = bool(data.get("solo", False))
        order = _order(data, variant.name, solo)
        first_text = data.get("first")
        first: Colour | None = None
        if first_text not in (None, "", "ball"):
            first = _colour(first_text, "first")
            if first not in order:
                raise SettingsError(_("The colour that starts must be one of the colours in play."))
        names = _colour_map(data.get("names", {}), "names", order, skip=(None, ""))
        for name in names.values():
            if not isinstance(name, str) or len(name) > 40:
                raise SettingsError(_("Player names must be text of at most 40 letters."))
        hints = _text(data, "hints", "request")
        if hints not in HINT_POLICIES:
            raise SettingsError(_("Hints must be off, request or coach."))
        hint_limit = _int(data, "hint_limit", 0, 0, 99)
        computer = _colour_map(data.get("computer", {}), "computer", order)
        for level in computer.values():
            if level not in COMPUTER_LEVELS:
                raise SettingsError(_("A computer player is easy, medium or hard."))
        timer = _int(data, "timer", 0, 0, 3600)
        return cls(
            variant=variant.name,
            order=order,
            first=first,
            names=tuple((c, str(n).strip()) for c, n in names.items() if str(n).strip()),
            hints=hints,
            hint_limit=hint_limit,
            computer=tuple((c, str(level)) for c, level in computer.items()),
            timer=timer,
            match=bool(data.get("match", True)),
            solo=solo,
        )


def _text(data: Mapping[str, Any], key: str, default: str) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise SettingsError(_("The field {key} must be text.").format(key=key))
    return value.strip().lower()


def _int(data: Mapping[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise SettingsError(_("The field {key} must be a whole number.").format(key=key))
    try:
        number = int(value)
    except ValueError:
        raise SettingsError(_("The field {key} must be a whole number.").format(key=key)) from None
    if not lo <= number <= hi:
        raise SettingsError(_("The field {key} must be between {lo} and {hi}.").format(key=key, lo=lo, hi=hi))
    return number


def _colour(value: Any, what: str) -> Colour:
    if not isinstance(value, str):
        raise SettingsError(_("The field {what} must give colours as text, like red.").format(what=what))
    try:
        return Colour.parse(value)
    except ValueError:
        # Quoted, on one line and short: the sentence must not start with (or be broken by) what was typed.
        shown = " ".join(value.split())[:20]
        raise SettingsError(_('"{value}" is not a colour.').format(value=shown)) from None


def _order(data: Mapping[str, Any], variant: str, solo: bool) -> tuple[Colour, ...]:
    v = get_variant(variant)
    colours = data.get("colours", data.get("order"))
    players = data.get("players")
    try:
        if solo:
            return Position.start(v, solo=True).order
        if colours is not None:
            if not isinstance(colours, list) or not all(isinstance(c, str) for c in colours):
                raise SettingsError(_("The colours in play must be a list of colour names."))
            order = [_colour(c, "colours") for c in colours]
            return Position.start(v, order=order).order
        if players is None:
            players = len(v.colours) if 4 in v.player_counts else v.player_counts[-1]
        if isinstance(players, bool) or not isinstance(players, int):
            raise SettingsError(_("The number of players must be 2, 3 or 4."))
        return Position.start(v, players=players).order
    except RolitError as exc:
        raise SettingsError(str(exc)[:1].upper() + str(exc)[1:].rstrip(".") + ".") from None


def _colour_map(
    value: Any, what: str, order: tuple[Colour, ...], skip: tuple[Any, ...] = (None, "", "human")
) -> dict[Colour, Any]:
    """Colour -> value; values in ``skip`` mean "nothing set" ("human": no computer on that seat;
    names skip only None and "", so a player may be called human)."""
    if not isinstance(value, Mapping):
        raise SettingsError(_("The field {what} must map colours to values.").format(what=what))
    out: dict[Colour, Any] = {}
    for key, item in value.items():
        colour = _colour(key, what)
        if colour not in order:
            raise SettingsError(_("{colour} is not in play in this game.").format(colour=colour.title))
        if item in skip:
            continue
        out[colour] = item
    return out

