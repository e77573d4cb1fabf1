"""The table page's routes through the Flask test client: every action and its errors."""

from __future__ import annotations

import json
import time
from typing import Any

from rolit.engine import Position, read_record

from helpers import make_client


def wait_for(client: Any, ok: Any, timeout: float = 10.0) -> dict[str, Any]:
    """Poll the state until ``ok(state)`` (hints and computer moves are worked out in the background)."""
    end = time.monotonic() + timeout
    while True:
        state: dict[str, Any] = client.get("/api/state").get_json()
        if ok(state) or time.monotonic() > end:
            return state
        time.sleep(0.05)


def test_pages_render(client) -> None:
    for url in ("/", "/camera", "/calibrate"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert b"<!doctype html>" in response.data
    page = client.get("/").data.decode()
    assert 'data-testid="board"' in page and 'id="page-strings"' in page


def test_static_files_are_served(client) -> None:
    for name in ("style.css", "strings.js", "table.js", "board.js", "camera.js", "calibrate.js"):
        with client.get(f"/static/{name}") as response:
            assert response.status_code == 200


def test_state_describes_the_start(client) -> None:
    state = client.get("/api/state").get_json()
    assert state["mode"] == "manual" and state["variant"]["size"] == 6
    assert state["board"] == Position.start("quick6").board().text().splitlines()
    assert state["turn"]["colour"] == "red" and state["flag"] is None
    assert [p["colour"] for p in state["players"]] == ["red", "yellow", "green", "blue"]


def test_manual_moves_are_refereed(client) -> None:
    state = client.post("/api/click", json={"square": "e2"}).get_json()  # captures nothing: flagged
    assert state["flag"]["type"] == "missed_capture"
    assert "take the ball on e2 back" in state["flag"]["message"]
    assert "e2" in state["to_fix"]
    state = client.post("/api/click", json={"square": "e2"}).get_json()  # take it back
    assert state["flag"] is None
    state = client.post("/api/click", json={"square": "e3"}).get_json()
    assert state["moves"][0]["square"] == "e3" and state["moves"][0]["flipped"] == ["d3"]
    assert state["turn"]["colour"] == "yellow"


def test_click_errors(client) -> None:
    r = client.post("/api/click", json={"square": "z9"})
    assert r.status_code == 400 and "not a square" in r.get_json()["error"]
    r = client.post("/api/click", json={"square": "c3"})  # occupied by a start ball
    assert r.status_code == 409 and r.get_json()["error"].endswith(".")
    r = client.post("/api/click", data="not json", content_type="application/json")
    assert r.status_code == 400 and "JSON" in r.get_json()["error"]
    r = client.post("/api/click", json={"square": 5})
    assert r.status_code == 400


def test_undo_needs_confirmation(client) -> None:
    client.post("/api/click", json={"square": "e3"})
    assert client.post("/api/undo", json={}).status_code == 400
    r = client.post("/api/undo", json={"confirm": True})
    assert r.status_code == 200 and r.get_json()["state"]["moves"] == []
    assert client.post("/api/undo", json={"confirm": True}).status_code == 409


def test_correct_a_square(client) -> None:
    state = client.post("/api/correct", json={"square": "a1", "cell": "red"}).get_json()
    assert state["board"][0][0] == "R" and state["flag"]["type"] == "not_adjacent"
    state = client.post("/api/correct", json={"square": "a1", "cell": "empty"}).get_json()
    assert state["flag"] is None
    r = client.post("/api/correct", json={"square": "a1", "cell": "purple"})
    assert r.status_code == 400 and "colour or to empty" in r.get_json()["error"]
    r = client.post("/api/correct", json={"square": "a1", "cell": "grey"})
    assert r.status_code == 400 and "no grey balls" in r.get_json()["error"]
    assert client.post("/api/correct", json={"square": "a1"}).status_code == 400


def test_hints(client) -> None:
    hint = client.post("/api/hint", json={"colour": "red"}).get_json()
    assert len(hint["moves"]) == 3 and hint["moves"][0]["reason"]
    state = client.get("/api/state").get_json()
    assert state["hint"]["moves"][0]["square"] == hint["moves"][0]["square"]
    r = client.post("/api/hint", json={"colour": "green"})
    assert r.status_code == 409 and "Red's turn" in r.get_json()["error"]
    assert client.post("/api/hint", json={"colour": 3}).status_code == 400


def test_hint_limit_and_policy(client) -> None:
    client.post("/api/new-game", json={"variant": "quick6", "players": 2, "hints": "request", "hint_limit": 1})
    assert client.post("/api/hint", json={}).status_code == 200
    r = client.post("/api/hint", json={})
    assert r.status_code == 409 and "all 1 hints" in r.get_json()["error"]
    client.post("/api/new-game", json={"variant": "quick6", "players": 2, "hints": "off"})
    assert client.post("/api/hint", json={}).status_code == 409
    client.post("/api/new-game", json={"variant": "quick6", "players": 2, "hints": "coach"})
    assert wait_for(client, lambda s: s["hint"] is not None)["hint"]["moves"]


def test_new_game_settings(client) -> None:
    body = {"variant": "junior", "players": 3, "names": {"red": "Ana", "green": "Tom"}, "first": "green", "timer": 60}
    state = client.post("/api/new-game", json=body).get_json()
    assert state["variant"]["name"] == "junior" and state["turn"]["name"] == "Tom"
    assert [p["name"] for p in state["players"]] == ["Ana", "Yellow", "Tom"]
    assert state["timer"]["seconds"] == 60
    state = client.post("/api/new-game", json={"variant": "classic", "solo": True}).get_json()
    assert [p["colour"] for p in state["players"]] == ["red", "green"]
    state = client.post("/api/new-game", json={"variant": "quick6", "players": 4}).get_json()
    assert state["first_ball_decides"] is False and state["turn"]["colour"] == "red"  # manual: someone must move


def test_new_game_errors(client) -> None:
    cases = [
        ({"variant": "chess"}, "Unknown edition"),
        ({"variant": "quick4", "players": 4}, "2"),
        ({"players": "two"}, "players"),
        ({"first": "blue", "players": 2}, "starts"),
        ({"hints": "always"}, "Hints"),
        ({"timer": -5}, "timer"),
        ({"computer": {"red": "genius"}}, "easy, medium or hard"),
        ({"names": {"purple": "X"}}, "not a colour"),
    ]
    for body, words in cases:
        r = client.post("/api/new-game", json=body)
        assert r.status_code == 400, body
        assert words in r.get_json()["error"], (body, r.get_json())
    assert client.post("/api/new-game", json=[1, 2]).status_code == 400


def test_computer_player_instruction(client) -> None:
    client.post("/api/new-game", json={"variant": "quick6", "players": 2, "computer": {"red": "medium"}})
    comp = wait_for(client, lambda s: s["computer"] and s["computer"]["square"])["computer"]
    assert comp["colour"] == "red" and comp["square"] in comp["message"]
    state = client.post("/api/click", json={"square": comp["square"]}).get_json()
    assert state["moves"][0]["square"] == comp["square"] and state["computer"] is None


def test_records_download(client) -> None:
    client.post("/api/click", json={"square": "e3"})
    r = client.get("/api/record.txt")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    assert read_record(r.data.decode()).moves[0].square == Position.start("quick6").to_move("e3").square
    data = json.loads(client.get("/api/record.json").data)
    assert data["variant"] == "quick6" and data["moves"]


def test_game_is_saved_and_resumed(make_app, tmp_path) -> None:
    state_file = tmp_path / "game.json"
    first = make_app(VARIANT="quick6", STATE_FILE=str(state_file))
    c = make_client(first)
    c.post("/api/new-game", json={"variant": "quick6", "players": 2, "names": {"red": "Ana"}})
    c.post("/api/click", json={"square": "e3"})
    assert state_file.exists()
    again = make_app(VARIANT="quick6", STATE_FILE=str(state_file))
    state = make_client(again).get("/api/state").get_json()
    assert [m["square"] for m in state["moves"]] == ["e3"] and state["players"][0]["name"] == "Ana"
    state_file.write_text("{broken")
    assert make_client(make_app(STATE_FILE=str(state_file))).get("/api/state").status_code == 200


def test_match_and_rematch(client) -> None:
    client.post("/api/new-game", json={"variant": "quick4", "players": 2})
    for _ in range(12):
        state = client.get("/api/state").get_json()
        if state["game_over"]:
            break
        square = client.post("/api/hint", json={}).get_json()["moves"][0]["square"]
        client.post("/api/click", json={"square": square})
    state = client.get("/api/state").get_json()
    assert state["game_over"] and state["match"]["standings"][0]["points"] == 1
    state = client.post("/api/rematch").get_json()
    assert state["turn"]["colour"] == "green" and state["match"]["round"] == 2


def test_api_errors_are_json_sentences(client) -> None:
    r = client.get("/api/nothing")
    assert r.status_code == 404 and r.get_json()["error"].endswith(".")
    r = client.get("/api/new-game")
    assert r.status_code == 405
    assert client.post("/api/frame", data=b"").status_code == 400
    r = client.post("/api/frame", data=b"\xff\xd8 not really")
    assert r.status_code == 409  # manual mode has no camera
    assert client.post("/api/calibration/corners", json={"corners": [[0, 0]]}).status_code == 400
    assert client.post("/api/calibration/corners", json={"corners": None}).status_code == 409
    assert client.post("/api/calibration/colours", json={}).status_code == 409
    assert client.get("/api/calibration").get_json()["corners"] is None


def test_state_stream_sends_state_events(client) -> None:
    response = client.get("/stream/state", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = iter(response.response)
    text = b""
    for _ in range(20):  # the first event comes at once; a bound keeps a broken stream from hanging
        chunk = next(chunks)
        text += chunk if isinstance(chunk, bytes) else chunk.encode()
        if b"event: state" in text and b"\n\n" in text.split(b"event: state", 1)[1]:
            break
    assert b"event: state" in text
    payload = text.split(b"data: ", 1)[1].split(b"\n\n", 1)[0]
    assert json.loads(payload)["variant"]["name"] == "quick6"
    response.close()


def test_video_stream_in_manual_mode(client) -> None:
    response = client.get("/stream/video.mjpg")
    assert response.mimetype == "multipart/x-mixed-replace"
    assert b"Content-Type: image/jpeg" in response.data
    assert client.get("/stream/frame.jpg").data[:2] == b"\xff\xd8"


def test_browser_camera_uploads_are_checked(make_app) -> None:
    import cv2
    import numpy as np

    from rolit.vision.sources import encoded_image_size

    client = make_client(make_app(SOURCE="browser", START_WORKER=False, VARIANT="quick6"))
    good = bytes(cv2.imencode(".jpg", np.full((360, 640, 3), 90, np.uint8))[1])
    assert client.post("/api/frame", data=good, content_type="image/jpeg").get_json()["index"] >= 0
    cases = {
        b"GIF89a not a jpeg": "not a JPEG or PNG",
        b"\xff\xd8 a broken jpeg": "not a JPEG or PNG",
        bytes(cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))[1]): "at least 16 pixels",
    }
    # A small file that says it holds a 30000 x 30000 picture is refused before it is decoded.
    sof = good.index(b"\xff\xc0")
    bomb = good[: sof + 5] + (30000).to_bytes(2, "big") * 2 + good[sof + 9:]
    assert encoded_image_size(bomb) == (30000, 30000)
    cases[bomb] = "at most 4096 pixels"
    for data, words in cases.items():
        response = client.post("/api/frame", data=data, content_type="image/jpeg")
        assert response.status_code == 400 and words in response.get_json()["error"], response.get_json()
    too_large = client.post("/api/frame", data=b"\xff\xd8" + bytes(5 * 1024 * 1024), content_type="image/jpeg")
    assert too_large.status_code == 413 and "too large" in too_large.get_json()["error"]


def test_json_nested_too_deep_is_refused_not_a_crash(client) -> None:
    # Found by tests/test_fuzz_routes.py: the decoder's RecursionError got past
    # get_json(silent=True), which only catches ValueError, and became a 500.
    before = client.get("/api/state").get_json()
    for body in ("[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000):
        for url in ("/api/click", "/api/new-game", "/api/undo"):
            r = client.post(url, data=body, content_type="application/json")
            assert r.status_code == 400 and r.get_json()["error"] == "Send a JSON object in the request body."
    assert client.get("/api/state").get_json()["moves"] == before["moves"]


def test_refusals_are_one_sentence_whatever_was_typed(client) -> None:
    # Found by tests/test_fuzz_routes.py: these began in lower case with the field name or with
    # the text sent, line breaks included.
    r = client.post("/api/new-game", json={"first": []})
    assert r.status_code == 400 and r.get_json()["error"] == "The field first must give colours as text, like red."
    r = client.post("/api/new-game", json={"names": {"pur\nple ": "X"}})
    assert r.status_code == 400 and r.get_json()["error"] == '"pur ple" is not a colour.'
    r = client.post("/api/click", json={"square": "\n z9\t"})
    assert r.status_code == 400 and r.get_json()["error"] == "Z9 is not a square of this board."


def test_a_player_may_be_called_human() -> None:
    # Found by tests/test_fuzz_parsers.py: " human" was kept as "human", which the settings
    # read back (the saved game, a record) as "no name"; "human" only means "not a computer".
    from rolit.engine import GREEN, RED
    from rolit.webui.settings import GameSettings

    settings = GameSettings.from_json({"variant": "quick6", "players": 2, "names": {"red": " human", "green": "human"},
                                       "computer": {"red": "human"}})
    assert settings.names_map() == {RED: "human", GREEN: "human"} and settings.computer == ()
    assert GameSettings.from_json(settings.to_json()) == settings


def test_names_with_commas_give_a_record_that_reads_back(client) -> None:
    # Found by tests/test_fuzz_parsers.py: a comma in a name split the record's Players tag.
    client.post("/api/new-game", json={"variant": "quick6", "players": 2, "names": {"red": "Ana, the 1st"}})
    client.post("/api/click", json={"square": "e3"})
    game = read_record(client.get("/api/record.txt").data.decode())
    assert game.names[game.order[0]] == "Ana, the 1st" and len(game.moves) == 1
