"""The Ray backend plays the same tournament as the local one: the same games, records and
table, on a local Ray instance; and a run cut short on one backend resumes on the other.
Skipped without Ray (the optional extra: pip install 'palais-engine[ray]')."""

import json
import sys

import pytest
from click.testing import CliRunner

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.slow          # a local Ray instance and engine processes

from tournament.arbiter import TimeControl  # noqa: E402
from tournament.cli import main as cli_main  # noqa: E402
from tournament.engines import parse_engine  # noqa: E402
from tournament.runner import Settings, run  # noqa: E402

PY = sys.executable
ENGINES = [f'name=ismcts cmd="{PY} -m protocol.cli" option.Seed=2',
           f'name=pimc cmd="{PY} -m protocol.cli" option.Algorithm=pimc option.Seed=3',
           f'name=random cmd="{PY} -m tournament.testing_engines --mode random --seed 4"']
FAST = TimeControl(movetime_ms=None, iterations=30, margin_ms=20_000)


def settings():
    return Settings([parse_engine(e) for e in ENGINES], players=2, deals=1, tc=FAST)


def saved(folder):
    """Everything a run leaves that depends on how the games went, in plan order."""
    games = sorted((json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()),
                   key=lambda g: g["index"])
    records = {p.name: p.read_text() for p in sorted((folder / "records").glob("game-*.txt"))}
    return games, records


@pytest.fixture
def local_ray():
    """A Ray instance of its own for the test (never a cluster this machine may know of)."""
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def _run_folder(path):
    """A run folder holding one fixed draw secret, so runs in different folders draw alike."""
    path.mkdir()
    (path / "draw-secret").write_text("5e" * 32 + "\n")
    return path


def test_ray_and_local_backends_give_the_same_results(tmp_path, local_ray):
    for name in ("local", "ray", "cut"):
        _run_folder(tmp_path / name)
    local = run(settings(), tmp_path / "local", concurrency=2)
    on_ray = run(settings(), tmp_path / "ray", concurrency=2, backend="ray")
    assert local["complete"] and local["games"] == 4 and not local["forfeits"]
    assert on_ray == local
    assert saved(tmp_path / "ray") == saved(tmp_path / "local")
    # Cut short on the local backend, finished on Ray: the same run again.
    cut = run(settings(), tmp_path / "cut", stop_after=1)
    assert cut["games"] == 1 and not cut["complete"]
    resumed = run(settings(), tmp_path / "cut", concurrency=2, resume=True, backend="ray")
    assert resumed == local
    assert saved(tmp_path / "cut") == saved(tmp_path / "local")
    assert ray.is_initialized()                     # an instance it did not start is left running


def test_the_command_line_starts_ray_for_the_run_and_stops_it(tmp_path):
    assert not ray.is_initialized()
    base = [arg for e in ENGINES[::2] for arg in ("--engine", e)] + [
        "--deals", "1", "--tc", "iterations=30", "--margin-ms", "20000", "--json", "--quiet"]
    runner = CliRunner()
    for name in ("local", "ray"):
        _run_folder(tmp_path / name)
    local = runner.invoke(cli_main, base + ["--out", str(tmp_path / "local")])
    on_ray = runner.invoke(cli_main, base + ["--out", str(tmp_path / "ray"), "--backend", "ray",
                                             "--ray-address", "local", "--concurrency", "2"])
    assert local.exit_code == 0, local.output
    assert on_ray.exit_code == 0, on_ray.output
    summary = json.loads(on_ray.stdout)
    assert summary["games"] == 2 and summary == json.loads(local.stdout)
    assert not ray.is_initialized()


def test_palais_train_plays_the_same_games_as_ray_tasks(tmp_path, local_ray):
    """`palais train --backend ray`: the self-play games and the match are those played here."""
    from play.cli import main as palais
    args = ["--games", "3", "--iterations", "10", "--positions", "2", "--epochs", "1",
            "--hidden", "6,4", "--eval-deals", "1", "--eval-iterations", "10", "--current", "heuristic"]
    here = CliRunner().invoke(palais, ["train", str(tmp_path / "here")] + args)
    on_ray = CliRunner().invoke(palais, ["train", str(tmp_path / "ray")] + args
                                + ["--backend", "ray", "--concurrency", "2"])
    assert here.exit_code == 0, here.output
    assert on_ray.exit_code == 0, on_ray.output
    for name in ("games.jsonl", "samples.f32", "candidate.npz"):
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "here" / name).read_bytes()
    score = [line for line in here.output.splitlines() if "new weights score" in line]
    assert score and score[0] in on_ray.output
