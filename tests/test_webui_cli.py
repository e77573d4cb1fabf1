"""The assembled ``rolit`` command: every subcommand is there and its help prints."""

from __future__ import annotations

import pytest

from rolit.webui.cli import build_parser, main

COMMANDS = ["perft", "replay", "referee", "demo", "suggest", "tournament", "render", "render-game", "recognize",
            "calibrate", "watch", "markers", "serve", "bench"]


def test_top_level_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert all(f"    {name}" in out for name in COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_each_subcommand_prints_its_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args([name, "--help"])
    assert info.value.code == 0 and "usage: rolit " + name in capsys.readouterr().out


def test_bench_targets() -> None:
    parser = build_parser()
    assert parser.parse_args(["bench", "vision", "--scenes", "5"]).scenes == 5
    with pytest.raises(SystemExit):
        parser.parse_args(["bench", "nonsense"])
