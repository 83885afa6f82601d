"""Every file the programs write is written whole or not at all, by one writer
(engine/atomic_write.py), and gets the mode a plain open() gives: 0o666 less the umask."""

import os

import pytest
from click.testing import CliRunner

from engine.atomic_write import write_text_atomic
from engine.cli import main as rules_cli
from play.game import PlayGame
from tournament.arbiter import GameResult
from tournament.store import RunStore


@pytest.fixture
def umask_027():
    """A umask that neither mkstemp's 0600 nor the usual 0644 matches (restored after)."""
    old = os.umask(0o027)
    try:
        yield 0o666 & ~0o027
    finally:
        os.umask(old)


def mode(path) -> int:
    return path.stat().st_mode & 0o777


def test_the_writer_replaces_a_file_whole_and_leaves_no_temporary(tmp_path, umask_027):
    target = tmp_path / "out.txt"
    target.write_text("old")
    write_text_atomic(target, "new text\r\nkept as given\n")
    assert target.read_bytes() == b"new text\r\nkept as given\n"
    assert mode(target) == umask_027
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(TypeError):
        write_text_atomic(target, 42)                     # the write itself fails
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    with pytest.raises(OSError):
        write_text_atomic(tmp_path / "missing" / "out.txt", "x")
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_records_saves_and_runs_get_the_usual_mode(tmp_path, umask_027):
    runner = CliRunner()
    record = tmp_path / "random.rec"
    result = runner.invoke(rules_cli, ["random-game", "--players", "2", "--seed", "3",
                                       "--record", str(record)])
    assert result.exit_code == 0, result.output
    assert mode(record) == umask_027                      # not mkstemp's 0600

    saved = tmp_path / "saved.rec"
    PlayGame.new(2, seed=1, names=["a", "b"]).save(str(saved))
    assert mode(saved) == umask_027

    store = RunStore(tmp_path / "run")
    store.create({"players": 2}, resume=False)
    store.save(GameResult(0, 1, ["a", "b"], [0, 0], [0.5, 0.5], [1, 1], {}, "[Game \"x\"]\n", 0))
    written = [tmp_path / "run" / "run.json", tmp_path / "run" / "games.jsonl",
               tmp_path / "run" / "records" / "game-00000.txt"]
    assert [mode(p) for p in written] == [umask_027] * 3
    assert sorted(p.name for p in (tmp_path / "run").rglob("*")) == [
        "game-00000.txt", "games.jsonl", "records", "run.json"]


def test_random_game_into_a_missing_folder_says_so_in_one_line(tmp_path):
    result = CliRunner().invoke(rules_cli, ["random-game", "--record",
                                            str(tmp_path / "no-such-folder" / "x.rec")])
    assert result.exit_code == 1
    last = result.output.splitlines()[-1]
    assert last.startswith("Error: ") and last.endswith("cannot write: No such file or directory")
    assert list(tmp_path.iterdir()) == []
