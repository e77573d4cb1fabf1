"""The page's own words, through the same translation layer as the referee's sentences.

Templates call ``_()`` (the Jinja global set by the app factory); the page's
JavaScript gets :func:`page_strings` as one JSON object, so every word a family
reads goes through :mod:`rolit.engine.messages`.
"""

from __future__ import annotations

from rolit.engine.messages import _

__all__ = ["page_strings"]


def page_strings() -> dict[str, str]:
    """Every sentence the page's scripts show, translated."""
    return {
        "profile_damaged": _("The saved calibration cannot be used ({reason}): calibrate again; the damaged file "
                             "will be kept aside."),
        "turn_first_ball": _("Anyone may start: the first ball decides."),
        "player_n": _("Player {n}"),
        "connecting": _("Connecting to the table…"),
        "connection_lost": _("Connection to the table lost: retrying…"),
        "no_moves": _("No moves yet."),
        "hint_for": _("Hint for {who}"),
        "hint_greedy": _("simple hint: the move that rolls the most balls"),
        "hint_engine": _("from the suggestion engine"),
        "still_to_roll": _("Still to roll: {squares}"),
        "confirm_undo": _("Take back the last move? The board on the table must be put back too."),
        "fix_title": _("What is really on {square}?"),
        "empty": _("empty"),
        "balls": _("balls"),
        "round": _("Round {n}"),
        "points": _("points"),
        "time_up": _("Time is up!"),
        "seconds_left": _("{n} s left"),
        "game_over": _("Game over"),
        "rematch": _("Play again"),
        "fix_mode_on": _("Click the square that was read wrong."),
        "play_it": _("Done: the computer's ball is placed"),
        "error": _("Something went wrong: {message}"),
        "latency": _("settled → page: {ms} ms"),
        "manual_help": _("Click an empty square to put the ball of the player to move there."),
        "camera_sending": _("Sending this camera to the table ({fps} frames per second)."),
        "camera_denied": _("This browser did not allow the camera: {message}"),
        "saved": _("Saved."),
        "corners_saved": _("Corners saved."),
        "no_board_drag": _("No board found: drag the four corners onto the outer corners of the grid, then save "
                           "them."),
        "colours_saved": _("Colours calibrated and saved."),
        "red": _("red"), "yellow": _("yellow"), "green": _("green"), "blue": _("blue"), "grey": _("grey"),
    }
