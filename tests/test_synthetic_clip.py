"""Game clips: the script plays the game, mistakes happen and are put right, output files."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from rolit.engine import Board, Game
from rolit.vision.errors import RenderError
from rolit.vision.synthetic import RenderParams
from rolit.vision.synthetic.clip import MISTAKES, GameClip, Mistake, parse_mistakes, write_clip
from rolit.vision.synthetic.demo import demo_clip, demo_game

SMALL = RenderParams(size=(160, 120), noise=0.0, jpeg_quality=None)


def _settled(clip: GameClip, seconds: float = 1.0) -> list[Board]:
    """Boards seen with no hand over them for at least ``seconds``, each once in a row."""
    out: list[Board] = []
    run: list[Board] = []
    for frame in [*clip.frames, None]:
        if frame is not None and frame.hand is None and (not run or run[-1] == frame.board):
            run.append(frame.board)
            continue
        if len(run) >= seconds * clip.fps and (not out or out[-1] != run[0]):
            out.append(run[0])
        run = [frame.board] if frame is not None and frame.hand is None else []
    return out


def test_a_clip_without_mistakes_shows_every_position_in_turn() -> None:
    game = demo_game()
    clip = GameClip(game, SMALL, fps=5, max_moves=6)
    positions = [p.board() for p in game.positions()[:7]]
    assert _settled(clip) == positions
    assert clip.frames[-1].board == positions[-1]


@pytest.mark.parametrize("kind", MISTAKES)
def test_each_mistake_is_made_then_put_right(kind: str) -> None:
    game = demo_game()
    clip = GameClip(game, SMALL, fps=5, max_moves=12, mistakes=[Mistake(kind)])
    assert [k for _, k in clip.mistakes_made] == [kind]
    settled = _settled(clip)
    positions = [p.board() for p in game.positions()[:13]]
    extra = [b for b in settled if b not in positions]
    if kind == "takeback":
        # The board goes back to the position before the move, then the move is made again.
        assert settled.count(positions[clip.mistakes_made[0][0]]) >= 2
    else:
        assert extra, "the wrong board is never shown settled"
    assert settled[-1] == positions[-1]
    # Every real position appears, in order.
    it = iter(settled)
    assert all(any(b == p for b in it) for p in positions)


def test_mistake_at_a_move_that_cannot_have_it_is_an_error() -> None:
    with pytest.raises(RenderError):
        GameClip(demo_game(), SMALL, fps=5, max_moves=2, mistakes=[Mistake("missed_capture", 40)])


def test_parse_mistakes() -> None:
    assert parse_mistakes("missing_roll@4, takeback") == [Mistake("missing_roll", 4), Mistake("takeback")]
    with pytest.raises(RenderError):
        parse_mistakes("cheating")
    with pytest.raises(RenderError):
        parse_mistakes("takeback@x")


def test_hand_frames_hide_the_cells_being_played() -> None:
    game = Game("quick6", players=4)
    game.push("e3")
    clip = GameClip(game, RenderParams(size=(320, 240), elevation=70.0), fps=5)
    hand_frames = [f for f in clip.frames if f.hand is not None and f.hand.height < 30]
    assert hand_frames
    for frame in hand_frames[:3]:
        _, truth = clip.render(frame)
        assert 3 * 8 + 4 in truth.hidden  # e3 is under the fingers
    still = next(f for f in clip.frames if f.hand is None)
    _, truth = clip.render(still)
    assert not truth.hidden


def test_frames_change_a_little_over_time_but_repeat_with_the_seed() -> None:
    game = Game("quick4")
    clip = GameClip(game, SMALL, fps=5, seed=3)
    again = GameClip(game, SMALL, fps=5, seed=3)
    a, _ = clip.render(clip.frames[0])
    b, _ = again.render(again.frames[0])
    c, _ = clip.render(clip.frames[-1])
    assert (a == b).all()
    assert not (a == c).all()  # shake, flicker, noise


@pytest.mark.parametrize("name", ["clip.avi", "clip.mp4", "frames"])
def test_write_clip(tmp_path: Path, name: str) -> None:
    game = Game("quick4")
    game.push("d2")
    clip = GameClip(game, SMALL, fps=4, settle=0.5)
    truth_path = write_clip(clip, tmp_path / name)
    lines = truth_path.read_text().splitlines()
    assert len(lines) == len(clip)
    assert json.loads(lines[-1])["rows"] == game.position.board().text().splitlines()
    if name == "frames":
        assert len(list((tmp_path / name).glob("frame_*.png"))) == len(clip)
    else:
        cap = cv2.VideoCapture(str(tmp_path / name))
        count = 0
        while cap.read()[0]:
            count += 1
        assert count == len(clip)


def test_write_clip_refuses_bad_outputs(tmp_path: Path) -> None:
    clip = GameClip(Game("quick4"), SMALL, fps=4, settle=0.2)
    with pytest.raises(RenderError):
        write_clip(clip, tmp_path / "clip.gif")
    with pytest.raises(RenderError):
        write_clip(clip, tmp_path / "missing" / "clip.avi")


def test_demo_has_every_mistake_early() -> None:
    clip = demo_clip(size=(160, 120))
    kinds = [k for _, k in clip.mistakes_made]
    assert sorted(kinds) == sorted(MISTAKES)
    last = max(n for n, _ in clip.mistakes_made)
    first_frame_after = next(f.time for f in clip.frames if f.event.startswith(f"{last + 1}."))
    assert first_frame_after < 120.0  # every kind of flag within two minutes
    assert clip.frames[-1].board == demo_game().position.board()
