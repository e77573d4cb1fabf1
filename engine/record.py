"""Game records: a short PGN-like text and a JSON form.

The text has tags, then numbered rounds of colour-tagged moves::

    [Variant "classic"]
    [Players "red:Ana, green:Tom"]
    [First "red"]
    [Date "2026.11.29"]
    [Result "red"]

    1. R:f4 G:f3
    2. R:f2 G:d6

``Players`` lists the colours in play (names optional: ``"red, green"``); a name
given twice means one person plays both colours, and a comma in a name is
written ``\\,``. ``Order`` may give a custom turn order. ``Result`` is the
winners' colours (``"red, green"`` for a shared win) or ``*``. Records replay
through the engine when read; an illegal move is reported with its number.

>>> game = read_record('[Variant "quick4"]\\n[Players "red, green"]\\n1. R:d2 G:c1')
>>> [str(m) for m in game.moves]
['R:d2', 'G:c1']
>>> print(write_record(game))
[Variant "quick4"]
[Players "red, green"]
[First "red"]
[Result "*"]
<BLANKLINE>
1. R:d2 G:c1
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .colours import Colour
from .errors import GameOverError, IllegalMoveError, RecordError, RolitError
from .game import Game
from .position import Move, Position
from .squares import parse_square
from .variants import Variant, get_variant

__all__ = ["read_record", "write_record", "record_to_json", "record_from_json", "load_record"]

_TAG_RE = re.compile(r'^\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\s*\]$')
_NUMBER_RE = re.compile(r"^(\d+)\.$")
_MOVE_RE = re.compile(r"^([A-Za-z]):([A-Za-z]\d+)$")
_RESULT_TOKENS = {"*"}
_OWN_TAGS = ("Variant", "Players", "Order", "First", "Result")


def _split_players(text: str) -> list[str]:
    """The Players tag's entries: split at commas, except ``\\,`` (a comma in a name; ``\\\\`` is a backslash)."""
    parts: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and text[i + 1 : i + 2] in (",", "\\"):
            current.append(text[i + 1])
            i += 2
            continue
        if ch == ",":
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return parts


def _name_text(name: str) -> str:
    """A player's name as the Players tag writes it (see :func:`_split_players`)."""
    return name.replace("\\", "\\\\").replace(",", "\\,")


def _parse_players(text: str, variant: Variant, line: int | None) -> dict[Colour, str]:
    """``"red:Ana, green:Tom"`` -> {RED: "Ana", GREEN: "Tom"} (names may be empty)."""
    players: dict[Colour, str] = {}
    for part in _split_players(text):
        part = part.strip()
        if not part:
            continue
        colour_text, _, name = part.partition(":")
        try:
            colour = Colour.parse(colour_text)
            variant.slot(colour)
        except (ValueError, RolitError) as exc:
            raise RecordError(f"Players tag: {exc}", line) from None
        if colour in players:
            raise RecordError(f"Players tag: {colour.label} is listed twice", line)
        players[colour] = name.strip()
    if len(players) < 2:
        raise RecordError("Players tag: a game needs at least two colours in play", line)
    return players


def _parse_colour_list(text: str, what: str, variant: Variant, line: int | None) -> list[Colour]:
    out = []
    for part in text.split(","):
        if part.strip():
            try:
                colour = Colour.parse(part)
                variant.slot(colour)
            except (ValueError, RolitError) as exc:
                raise RecordError(f"{what} tag: {exc}", line) from None
            out.append(colour)
    return out


def read_record(text: str) -> Game:
    """Parse and replay a text record; :class:`RecordError` names the line and move."""
    tags: dict[str, str] = {}
    tag_lines: dict[str, int] = {}
    tokens: list[tuple[str, int]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            if tokens:
                raise RecordError("tags must come before the moves", number)
            match = _TAG_RE.match(line)
            if not match:
                raise RecordError(f'{line!r} is not a tag (write [Name "value"])', number)
            name, value = match.group(1), _unescape(match.group(2))
            if name in tags:
                raise RecordError(f"the {name} tag appears twice", number)
            tags[name] = value
            tag_lines[name] = number
            continue
        line = line.split("#", 1)[0]  # A comment may follow the moves.
        for token in re.sub(r"(\d+\.)", r" \1 ", line).split():
            tokens.append((token, number))

    try:
        variant = get_variant(tags.get("Variant", "classic"))
    except RolitError as exc:
        raise RecordError(str(exc), tag_lines.get("Variant")) from None
    if "Players" in tags:
        names = _parse_players(tags["Players"], variant, tag_lines["Players"])
        in_play = list(names)
    else:
        names = {}
        in_play = list(Position.start(variant).order)
    if "Order" in tags:
        order = _parse_colour_list(tags["Order"], "Order", variant, tag_lines["Order"])
        if sorted(order) != sorted(in_play):
            raise RecordError("the Order tag must list the same colours as the Players tag", tag_lines["Order"])
    else:
        order = [c for c in variant.colours if c in in_play]
    first: Colour | None = None
    if "First" in tags:
        try:
            first = Colour.parse(tags["First"])
        except ValueError as exc:
            raise RecordError(f"First tag: {exc}", tag_lines["First"]) from None
    else:
        for token, _ in tokens:
            m = _MOVE_RE.match(token)
            if m:
                try:
                    first = Colour.from_letter(m.group(1))
                except ValueError:
                    first = None
                break
    if first is not None and first not in order:
        raise RecordError(f"{first.label} starts but is not in play", tag_lines.get("First"))
    try:
        game = Game(variant, order=order, first=first, names={c: n for c, n in names.items() if n})
    except RolitError as exc:
        raise RecordError(str(exc)) from None
    game.tags = {k: v for k, v in tags.items() if k not in _OWN_TAGS}

    per_round = len(order)
    for token, token_line in tokens:
        move_number = game.ply + 1
        number_match = _NUMBER_RE.match(token)
        if number_match:
            expected = game.ply // per_round + 1
            said = number_match.group(1)
            # int() refuses more than 4,300 digits: a number that long is out of place anyway.
            if game.ply % per_round or len(said) > 9 or int(said) != expected:
                raise RecordError(
                    f"round number {said[:9]}{'...' if len(said) > 9 else ''} is out of place; round {expected} "
                    f"{'is under way' if game.ply % per_round else 'comes next'}",
                    token_line,
                    move_number,
                )
            continue
        if token in _RESULT_TOKENS:
            continue
        _push_token(game, token, token_line, move_number)

    _check_result(game, tags.get("Result"), tag_lines.get("Result"))
    return game


def _push_token(game: Game, token: str, line: int | None, move_number: int) -> None:
    m = _MOVE_RE.match(token)
    if not m:
        raise RecordError(
            f"{token!r} is not a move (write the colour letter and the square, like R:f4)", line, move_number
        )
    try:
        colour = Colour.from_letter(m.group(1))
    except ValueError as exc:
        raise RecordError(f"{token}: {exc}", line, move_number) from None
    try:
        sq = parse_square(m.group(2), game.variant.size)
    except RolitError as exc:
        raise RecordError(f"{token}: {exc}", line, move_number) from None
    try:
        game.push(Move(colour, sq))
    except GameOverError:
        raise RecordError(f"{token} comes after the board is full", line, move_number) from None
    except IllegalMoveError as exc:
        raise RecordError(f"{token} is not legal: {exc}", line, move_number) from None


def _check_result(game: Game, result: str | None, line: int | None) -> None:
    if result is None or result.strip() in ("", "*"):
        return
    outcome = game.outcome()
    if outcome is None:
        raise RecordError(f"the Result tag says {result!r} but the board is not full", line)
    try:
        said = sorted(Colour.parse(p) for p in result.split(",") if p.strip())
    except ValueError as exc:
        raise RecordError(f"Result tag: {exc}", line) from None
    if said != sorted(outcome.winners):
        raise RecordError(
            f"the Result tag says {result} won, but the moves give {outcome.result()}", line
        )


def _tag(key: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    # A tag is one line: every kind of line break (\r, \u2028, ... as str.splitlines sees them) becomes a space.
    return f'[{key} "{" ".join(escaped.splitlines())}"]'


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _players_text(game: Game) -> str:
    colours = [c for c in game.variant.colours if c in game.order]
    return ", ".join(f"{c.label}:{_name_text(game.names[c])}" if game.names.get(c) else c.label for c in colours)


def _result_text(game: Game) -> str:
    outcome = game.outcome()
    return outcome.result() if outcome else "*"


def write_record(game: Game) -> str:
    """The text record of ``game`` (one round per line)."""
    lines = [_tag("Variant", game.variant.name), _tag("Players", _players_text(game))]
    clockwise = [c for c in game.variant.colours if c in game.order]
    i = clockwise.index(game.order[0])
    if list(game.order) != clockwise[i:] + clockwise[:i]:
        lines.append(f'[Order "{", ".join(c.label for c in game.order)}"]')
    lines.append(f'[First "{game.order[0].label}"]')
    for key, value in game.tags.items():
        lines.append(_tag(key, value))
    lines.append(f'[Result "{_result_text(game)}"]')
    moves = [str(m) for m in game.moves]
    per_round = len(game.order)
    if moves:
        lines.append("")
    for r in range(0, len(moves), per_round):
        lines.append(f"{r // per_round + 1}. " + " ".join(moves[r : r + per_round]))
    return "\n".join(lines)


def record_to_json(game: Game) -> dict[str, Any]:
    """The JSON form of the record (a dict ready for :func:`json.dumps`)."""
    outcome = game.outcome()
    data: dict[str, Any] = {
        "variant": game.variant.name,
        "players": {c.label: game.names.get(c, "") for c in game.variant.colours if c in game.order},
        "order": [c.label for c in game.order],
        "first": game.order[0].label,
        "tags": dict(game.tags),
        "moves": [str(m) for m in game.moves],
        "result": _result_text(game),
    }
    if outcome is not None:
        data["scores"] = {c.label: n for c, n in outcome.scores.items()}
    return data


def record_from_json(data: Mapping[str, Any]) -> Game:
    """Replay the JSON form; :class:`RecordError` says what is wrong."""
    if not isinstance(data, Mapping):
        raise RecordError("a JSON record is an object with variant, players and moves")
    moves = data.get("moves", [])
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise RecordError("moves must be a list of strings like \"R:f4\"")
    players = data.get("players", {})
    if not isinstance(players, Mapping):
        raise RecordError('players must be an object like {"red": "Ana", "green": "Tom"}')
    tags: list[str] = []
    tags.append(_tag("Variant", str(data.get("variant", "classic"))))
    if players:
        entries = (f"{c}:{_name_text(str(n))}" if n else str(c) for c, n in players.items())
        tags.append(_tag("Players", ", ".join(entries)))
    if data.get("order"):
        order = data["order"]
        if not isinstance(order, list):
            raise RecordError("order must be a list of colours")
        tags.append(_tag("Order", ", ".join(str(c) for c in order)))
    if data.get("first"):
        tags.append(_tag("First", str(data["first"])))
    extra = data.get("tags", {})
    if not isinstance(extra, Mapping):
        raise RecordError("tags must be an object")
    for key, value in extra.items():
        if not isinstance(key, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", key):
            raise RecordError(f"tag name {key!r} must be a word of letters and digits")
        tags.append(_tag(key, str(value)))
    if data.get("result"):
        tags.append(_tag("Result", str(data["result"])))
    # One move per line, so an error's line number is the move's position in
    # the list (after the tag lines).
    text = "\n".join(tags + [str(m) for m in moves])
    try:
        return read_record(text)
    except RecordError as exc:
        raise RecordError(exc.reason, None, exc.move_number) from None


def load_record(text: str) -> Game:
    """Read a record in either form (JSON when it starts with ``{``)."""
    stripped = text.lstrip()
    if stripped.startswith("[") and not stripped.startswith('["') and not re.match(r"\[\s*\]", stripped):
        return read_record(text)  # A tag line, not a JSON array.
    if stripped.startswith(("{", "[")):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise RecordError(f"the JSON is malformed ({exc.msg})", exc.lineno) from None
        except (ValueError, RecursionError):
            # A number too long for Python's int(), or arrays nested too deep to decode.
            raise RecordError("the JSON is malformed (a number is too long or it is nested too deep)") from None
        return record_from_json(data)
    return read_record(text)
