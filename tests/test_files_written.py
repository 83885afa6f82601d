"""Every file the programs write is written whole or not at all, by one writer
(common/atomic_write.py), and gets the mode a plain open() gives: 0o666 less the umask, or
the mode of the regular file it replaces. Anything else at the path (a pipe, a link, a
folder, a device) is refused before anything is written."""

import os
import stat

import pytest
from click.testing import CliRunner

from common.atomic_write import TargetError, write_text_atomic
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


# A rename replaces whatever stands at the path: only a regular file (or nothing) is written
# over; anything else is refused before anything is written (common/atomic_write.py).

def random_game_into(target):
    return CliRunner().invoke(rules_cli, ["random-game", "--seed", "2", "--record", str(target)])


def one_error_line(result, *words):
    assert result.exit_code == 1, result.output
    last = result.output.splitlines()[-1]
    assert last.startswith("Error: ") and all(w in last for w in words), last
    assert "Traceback" not in result.output
    assert "record written" not in result.output


def test_a_record_is_not_written_over_a_named_pipe(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    one_error_line(random_game_into(fifo), str(fifo), "is a named pipe (FIFO)", "nothing written")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]       # no temporary file left


def test_a_record_is_not_written_over_a_symbolic_link_even_to_a_regular_file(tmp_path):
    target = tmp_path / "real.rec"
    target.write_text("my record\n")
    link = tmp_path / "link.rec"
    link.symlink_to(target)
    one_error_line(random_game_into(link), str(link), "is a symbolic link")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "my record\n"
    dangling = tmp_path / "dangling.rec"
    dangling.symlink_to(tmp_path / "nowhere")
    one_error_line(random_game_into(dangling), str(dangling), "is a symbolic link")
    assert not (tmp_path / "nowhere").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.rec", "link.rec", "real.rec"]


def test_a_record_is_not_written_over_a_directory(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    usage = random_game_into(folder)                       # click's own check, a usage error
    assert usage.exit_code == 2 and "is a directory" in usage.output
    with pytest.raises(TargetError, match=f"{folder}: is a directory, not a regular file: nothing written"):
        PlayGame.new(2, seed=1, names=["a", "b"]).save(str(folder))   # `save FILE` has no such check
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_a_record_is_not_written_over_a_device():
    """/dev/null only, and only with the fixed code: the check comes before any write."""
    before = os.lstat("/dev/null")
    one_error_line(random_game_into("/dev/null"), "/dev/null", "is a character device")
    after = os.lstat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert after.st_ino == before.st_ino


def test_a_folder_that_is_a_link_is_fine(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "via").symlink_to(tmp_path / "real")
    result = random_game_into(tmp_path / "via" / "x.rec")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "real" / "x.rec").read_text().startswith('[Game "Palais Royal"]')


@pytest.mark.parametrize("kept", [0o600, 0o640])
def test_a_file_written_over_keeps_its_mode(tmp_path, kept):
    target = tmp_path / "old.rec"
    target.write_text("old\n")
    target.chmod(kept)
    old_umask = os.umask(0o022)                           # a new file would be 0644
    try:
        result = random_game_into(target)
    finally:
        os.umask(old_umask)
    assert result.exit_code == 0, result.output
    assert target.read_text().startswith('[Game "Palais Royal"]')
    assert mode(target) == kept
    assert [p.name for p in tmp_path.iterdir()] == ["old.rec"]


def test_a_saved_game_and_a_tournament_summary_refuse_a_pipe_too(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(TargetError, match="is a named pipe"):
        PlayGame.new(2, seed=1, names=["a", "b"]).save(str(fifo))
    from tournament.cli import _write_summary
    (tmp_path / "run").mkdir()
    os.mkfifo(tmp_path / "run" / "summary.json")
    with pytest.raises(TargetError, match="summary.json: is a named pipe"):
        _write_summary(tmp_path / "run", {"engines": {}})
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
