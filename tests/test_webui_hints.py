"""Hints and computer moves on the page use the engine's suggestions and players."""

from __future__ import annotations

import random

import pytest

from rolit.engine import Position, parse_square
from rolit.webui.hints import choose_move, hint_source, rank_moves


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_computer_moves_are_legal_at_every_level(level: str) -> None:
    position = Position.start("quick6")
    move = choose_move(position, level, random.Random(1))
    legal = {m.square for m in position.legal_moves()}
    assert parse_square(move.square) in legal
    assert position.has_capture() and move.flips  # capturing is compulsory for the computer too


def test_hints_come_ranked_with_reasons() -> None:
    hints = rank_moves(Position.start("classic"), time_limit=0.2)
    assert hint_source() == "engine"
    assert len(hints) == 3 and all(h.reason for h in hints)
    assert {h.square for h in hints} == {"f4", "d6", "f6"}
