"""The built-in demo game, as the synthetic camera plays it, through the live referee.

The clip's script (the physical board at every frame) goes to a referee in live
mode, as a perfect camera would report it: every scripted mistake must be
flagged and then cleared, every move recorded, and nothing else flagged.
"""

from __future__ import annotations

from collections import Counter

from rolit.engine import Referee
from rolit.vision.synthetic.demo import demo_clip


def test_demo_clip_shows_every_flag_and_the_whole_game() -> None:
    clip = demo_clip(size=(160, 120))
    game = clip.game
    referee = Referee(game.variant, order=game.order, grace=4.0)  # the table page's grace time
    seen: list[tuple[float, str]] = []
    for frame in clip.frames:
        seen += [(frame.time, e.type) for e in referee.observe(frame.board, now=frame.time)]
    kinds = Counter(t for _, t in seen)
    # The taken-back move is played twice; the move with a forgotten roll is
    # recorded by its wrong_flips event instead of a move event.
    assert kinds["move"] == game.ply + 1 - 1
    assert referee.game.moves == game.moves
    assert [t for _, t in seen if t not in ("move", "board_fixed", "game_over")] == [
        "missed_capture", "wrong_flips", "out_of_turn", "wrong_flips", "takeback",
    ]
    assert kinds["board_fixed"] == 4 and seen[-1][1] == "game_over"
    # Every kind of flag is on the page within a couple of minutes.
    assert max(t for t, kind in seen if kind == "takeback") < 120
