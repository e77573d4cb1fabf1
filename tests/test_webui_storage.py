"""rolit.webui.storage: the saved game, the match, the archive of finished games, loading records."""

from __future__ import annotations

import json

from rolit.engine import Board, Colour, Game, Position, read_record, record_to_json, write_record
from rolit.webui.storage import GameArchive, write_atomic

from helpers import make_client


def _play_to_the_end(client) -> list[str]:  # type: ignore[no-untyped-def]
    """Play a quick4 game by clicks (always the first legal square); returns the squares."""
    squares = []
    for _ in range(12):
        state = client.get("/api/state").get_json()
        if state["game_over"]:
            break
        board = Board.from_text("\n".join(state["board"]))
        position = Position.from_board(board, "quick4", turn=Colour.parse(state["turn"]["colour"]), players=2)
        square = position.legal_moves()[0].name
        squares.append(square)
        assert client.post("/api/click", json={"square": square}).status_code == 200
    return squares


def test_write_atomic_leaves_no_temporary_files(tmp_path) -> None:
    target = tmp_path / "game.json"
    write_atomic(target, "one")
    write_atomic(target, "two")
    assert target.read_text() == "two" and [p.name for p in tmp_path.iterdir()] == ["game.json"]


def test_a_finished_game_goes_to_the_archive_the_page_lists(client, tmp_path) -> None:
    client.post("/api/new-game", json={"variant": "quick4", "players": 2, "names": {"red": "Ana", "green": "Tom"}})
    assert b"No finished game yet" in client.get("/games").data
    _play_to_the_end(client)
    state = client.get("/api/state").get_json()
    assert state["game_over"]
    page = client.get("/games").get_data(as_text=True)
    assert "Ana, Tom" in page and "quick4" in page
    names = GameArchive(tmp_path / "instance" / "archive").names()
    assert len(names) == 1
    record = client.get(f"/games/{names[0]}")
    assert record.status_code == 200 and "attachment" in record.headers["Content-Disposition"]
    game = read_record(record.get_data(as_text=True))
    assert len(game.moves) == 12 and game.is_over()
    # The same game is archived once, even if the page asks for the state again or restarts.
    client.get("/api/state")
    assert len(GameArchive(tmp_path / "instance" / "archive").names()) == 1


def test_archive_names_never_become_paths(client, tmp_path) -> None:
    (tmp_path / "instance" / "secret-notes.rolit").write_text("x")
    for name in ("..%2Fgame.json", "../secret-notes.rolit", "secret-notes.rolit", "%2e%2e", "20260101-000000-000.rolit"):
        assert client.get(f"/games/{name}").status_code == 404, name


def test_the_match_survives_a_restart(make_app) -> None:
    first = make_client(make_app(VARIANT="quick4", PLAYERS=2))
    first.post("/api/new-game", json={"variant": "quick4", "players": 2})
    _play_to_the_end(first)
    before = first.get("/api/state").get_json()["match"]
    assert before["standings"][0]["points"] == 1
    again = make_client(make_app(VARIANT="quick4", PLAYERS=2)).get("/api/state").get_json()
    assert again["match"] == before and again["game_over"]


def test_load_a_record_to_continue_it(client) -> None:
    game = Game("quick6", players=2, names={})
    position = Position.start("quick6", players=2)
    for _ in range(5):
        move = position.legal_moves()[0]
        game.push(move)
        position = position.play(move)
    state = client.post("/api/record", data=write_record(game), content_type="text/plain").get_json()
    assert len(state["moves"]) == 5 and state["variant"]["name"] == "quick6" and len(state["players"]) == 2
    assert state["board"] == position.board().text().splitlines()
    # The JSON form too.
    data = json.dumps(record_to_json(game))
    assert len(client.post("/api/record", data=data, content_type="application/json").get_json()["moves"]) == 5


def test_a_bad_record_is_refused_and_changes_nothing(client) -> None:
    client.post("/api/click", json={"square": "e3"})
    before = client.get("/api/state").get_json()
    illegal = '[Variant "quick6"]\n[Players "red, green"]\n\n1. R:f6 G:a1\n'
    cases = [
        (illegal, "text/plain", 400, "move"),
        ("not a record at all", "text/plain", 400, "record"),
        ('{"variant": "quick6", "moves": [1, 2]}', "application/json", 400, "record"),
        ("", "text/plain", 400, "record"),
    ]
    for body, kind, status, word in cases:
        response = client.post("/api/record", data=body, content_type=kind)
        assert response.status_code == status, body
        assert word in response.get_json()["error"].lower(), response.get_json()
    assert client.post("/api/record", data=b"\xff\xfe\x00bad", content_type="text/plain").status_code == 400
    huge = client.post("/api/record", data=b"1. " + b"R:a1 " * 1_000_000, content_type="text/plain")
    assert huge.status_code == 413 and "too large" in huge.get_json()["error"]
    after = client.get("/api/state").get_json()
    assert after["moves"] == before["moves"] and after["board"] == before["board"]


def test_a_damaged_saved_game_starts_a_new_one(make_app, tmp_path) -> None:
    state_file = tmp_path / "game.json"
    for damaged in ("{broken", "[" * 100_000, '{"settings": {"variant": "nope"}, "moves": []}', '{"moves": 3}'):
        state_file.write_text(damaged)
        state = make_client(make_app(VARIANT="quick6", STATE_FILE=str(state_file))).get("/api/state").get_json()
        assert state["moves"] == [] and state["variant"]["name"] == "quick6"
        assert (tmp_path / "game.json.damaged").read_text() == damaged


def test_red_starting_survives_a_restart(make_app) -> None:
    # Colour.RED is 0: a truth test once turned "red starts" into "the first ball decides".
    first = make_client(make_app(VARIANT="quick6"))
    first.post("/api/new-game", json={"variant": "quick6", "players": 2, "first": "red"})
    assert first.get("/api/state").get_json()["settings"]["first"] == "red"
    again = make_client(make_app(VARIANT="quick6")).get("/api/state").get_json()
    assert again["settings"]["first"] == "red" and again["turn"]["colour"] == "red"
