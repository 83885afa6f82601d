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

from helpers import run_folder  # noqa: E402

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


@pytest.fixture(autouse=True, scope="module")
def ray_home(tmp_path_factory):
    """A HOME of the module's own, so that the token file Ray makes (~/.ray/auth_token) is
    not left in the real one; one for the whole module, as Ray keeps the token it read."""
    import os
    old = os.environ.get("HOME")
    os.environ["HOME"] = str(tmp_path_factory.mktemp("home"))
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = old


@pytest.fixture
def local_ray():
    """A Ray instance of its own for the test (never a cluster this machine may know of)."""
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_ray_and_local_backends_give_the_same_results(tmp_path, local_ray):
    for name in ("local", "ray", "cut"):
        run_folder(tmp_path / name)
    local = run(settings(), tmp_path / "local", concurrency=1)  # in this process: a pool forked beside Ray's threads can hang (a child left on a lock)
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
        run_folder(tmp_path / name)
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
    for name in ("games.jsonl", "samples.f32", "candidate.npz", "policy.f32", "policy-candidate.npz"):
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "here" / name).read_bytes()
    for match in ("new weights score", "policy: PUCT on the candidate score"):
        score = [line for line in here.output.splitlines() if line.startswith(match)]
        assert score and score[0] in on_ray.output


def tiny_generations(**changes):
    """Options of two tiny generations (seconds each), as `palais train --generations` takes them."""
    from search.generations import GenerationOptions
    return GenerationOptions(**{**dict(seed=4, players=2, games=2, iterations=6, positions=2, hidden=(4, 4),
                                       epochs=1, policy_hidden=4, gate_iterations=6, max_gate_games=4,
                                       min_gate_games=0, current="heuristic"), **changes})


GENERATION_FILES = ("games.jsonl", "samples.f32", "policy.f32", "candidate.npz", "policy-candidate.npz",
                    "gate.jsonl")


def decided(rows):
    """generations.jsonl's rows without the one column that differs between two runs (CPU seconds)."""
    return [{k: v for k, v in row.items() if k != "cpu_seconds"} for row in rows]


def assert_same_generations(rows, folder, expected_rows, expected_folder):
    """Two runs of the same generations made the same games, candidates, gate games and decisions."""
    assert decided(rows) == decided(expected_rows)
    assert decided(json.loads(line) for line in (folder / "generations.jsonl").read_text().splitlines()) \
        == decided(expected_rows)
    for row in expected_rows:
        generation = f"gen-{row['generation']:03d}"
        for name in GENERATION_FILES:
            assert (folder / generation / name).read_bytes() == (expected_folder / generation / name).read_bytes()


def test_training_in_generations_gives_the_same_generations_on_ray(tmp_path, local_ray):
    """`palais train --generations --backend ray`: the same self-play, candidates, gate games
    and decisions as local processes (search/generations.py)."""
    from search.generations import run_generations
    options = tiny_generations()
    here = run_generations(tmp_path / "here", options, 2, concurrency=1)  # in this process: a pool forked beside Ray's threads can hang (a child left on a lock)
    on_ray = run_generations(tmp_path / "ray", options, 2, backend="ray", concurrency=2)
    assert len(here) == 2
    assert_same_generations(on_ray, tmp_path / "ray", here, tmp_path / "here")


def processes_holding(folder: str) -> dict:
    """The processes (pid: command) with a file open under `folder`, this one aside (Linux'
    /proc; none where there is none): a Ray node's processes keep their logs open."""
    import os
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc") if os.path.isdir("/proc") else ()):
        try:
            if int(pid) != os.getpid() and any(os.readlink(f"/proc/{pid}/fd/{fd}").startswith(folder + os.sep)
                                               for fd in os.listdir(f"/proc/{pid}/fd")):
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    found[int(pid)] = f.read().replace(b"\0", b" ").decode(errors="replace")[:80]
        except OSError:
            pass                          # ended meanwhile, or not ours to read
    return found


def gone(folder: str, timeout: float = 60.0) -> dict:
    """Wait until no process holds a file under `folder` (the processes a node's raylet
    started end after it), then remove it; the processes still there at the timeout."""
    import shutil
    import time
    deadline = time.monotonic() + timeout
    while (left := processes_holding(folder)) and time.monotonic() < deadline:
        time.sleep(0.05)
    shutil.rmtree(folder, ignore_errors=True)
    return left


@pytest.fixture
def two_node_cluster(tmp_path):
    """A Ray cluster of two nodes on this machine, made as `ray start --head` on one machine and
    `ray start --address HEAD:6379` on another make one (docs/train.md, On Ray): a head with no
    CPU, so that no task can run there, and a worker node with two, started from a working
    directory of its own (the other machine's), as the test's driver runs from another.
    Token authentication where Ray has it, every port on 127.0.0.1 (ENABLE_RAY_CLUSTER off:
    Ray keeps the loopback address instead of turning it into the machine's), the session
    files and the "latest cluster" address file in a private folder (RAY_TMPDIR). Every process
    of both nodes is stopped at the end, however the test ends, and checked gone; the driver
    is left in the driver's folder (tmp_path / "driver")."""
    import os
    from types import SimpleNamespace
    from ray.cluster_utils import Cluster
    from jobs import backends
    (tmp_path / "driver").mkdir()
    (tmp_path / "worker-machine").mkdir()
    folder = backends._private_folder()       # short: Ray's Unix socket paths must fit 107 bytes
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAY_TMPDIR", folder)
        patch.setattr(ray._private.ray_constants, "ENABLE_RAY_CLUSTER", False)
        if backends._version(ray.__version__) >= backends.TOKEN_AUTH_SINCE:
            patch.setenv("RAY_AUTH_MODE", "token")
            backends._reread_ray_config(ray)
            backends._private_token_file()    # in the module's HOME; both nodes and the driver read it
        cluster = Cluster(shutdown_at_exit=True)  # (and at exit, should the test process end first)
        try:
            head = cluster.add_node(num_cpus=0, include_dashboard=False, temp_dir=os.path.join(folder, "ray"))
            patch.chdir(tmp_path / "worker-machine")
            worker = cluster.add_node(num_cpus=2)
            patch.chdir(tmp_path / "driver")
            cluster.wait_for_nodes()
            yield SimpleNamespace(address=cluster.address, head=head.node_id, worker=worker.node_id,
                                  worker_folder=str(tmp_path / "worker-machine"))
        finally:
            if ray.is_initialized():
                ray.shutdown()
            cluster.shutdown()                # kills the processes each node started, and waits
            left = gone(folder)               # and those they started (workers, agents)
    backends._reread_ray_config(ray)          # RAY_AUTH_MODE as it was
    assert not left and not os.path.exists(folder), left


def test_training_in_generations_on_a_cluster_of_two_nodes_gives_the_same_generations(two_node_cluster):
    """`palais train --generations --backend ray --ray-address HEAD:PORT` on a head and a worker
    node: every game runs in the worker node's processes, from another working directory, and
    the files and decisions are those of local processes. The run folders and the
    `--current` weights are named by relative paths, as a user types them: a job must name
    its files so that a worker elsewhere finds them."""
    import shutil
    from pathlib import Path
    from search.generations import run_generations
    from search.params import shipped_value_path
    cluster = two_node_cluster
    shutil.copy(shipped_value_path(2), "current.npz")
    options = tiny_generations(current="current.npz")
    here = run_generations("here", options, 2, concurrency=1)  # in this process: a pool forked beside Ray's threads can hang (a child left on a lock)

    nodes_seen = []
    def look_at_the_cluster():
        nodes_seen.append(sorted((n["NodeID"], n["Resources"].get("CPU", 0.0))
                                 for n in ray.nodes() if n["Alive"]))
    on_cluster = run_generations("cluster", options, 2, backend="ray", concurrency=2,
                                 ray_address=cluster.address, on_game=look_at_the_cluster)
    assert len(here) == 2
    assert_same_generations(on_cluster, Path("cluster"), here, Path("here"))
    # Two nodes alive at every game, and CPUs only on the worker node: every game ran there.
    two_nodes = sorted([(cluster.head, 0.0), (cluster.worker, 2.0)])
    assert len(nodes_seen) == sum(row["games"] + row["gate_games"] for row in here)
    assert all(seen == two_nodes for seen in nodes_seen), nodes_seen
    assert not ray.is_initialized()           # the run joined the cluster and left it
    # A task sent there runs on the worker node, from the worker machine's folder.
    ray.init(address=cluster.address, log_to_driver=False)
    def where():
        import os
        return ray.get_runtime_context().get_node_id(), os.getcwd()
    assert ray.get(ray.remote(where).remote()) == (cluster.worker, cluster.worker_folder)


# What a local instance started for a run exposes (jobs/backends.py, docs/tournament.md).
# Run in a child process of its own: a fresh Ray, a HOME of its own for the token file.
PROBE = r'''
import json, os
from jobs.backends import open_backend


def descendants(root):
    parents = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                parents[int(pid)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            pass
    found = {root}
    while True:
        more = {p for p, q in parents.items() if q in found} - found
        if not more:
            return found
        found |= more


def sockets_of(pids):
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(int(link[8:-1]))
        except OSError:
            pass
    found = []
    for table in ("tcp", "tcp6", "udp", "udp6"):
        with open(f"/proc/net/{table}") as f:
            for line in f.read().splitlines()[1:]:
                fields = line.split()
                listening = fields[3] == "0A" or table.startswith("udp")
                if int(fields[9]) in inodes and listening:
                    found.append(fields[1].rsplit(":", 1)[0])
    return found


with open_backend("ray", json.dumps, 2, "local") as backend:
    results = sorted(backend.run([1, 2]))
    folder = backend.private_folder
    report = {"results": results, "addresses": sockets_of(descendants(os.getpid())),
              "folder_mode": os.stat(folder).st_mode & 0o777}
report["folder_left"] = os.path.exists(folder)
print(json.dumps(report))
'''

LOOPBACK = {"0100007F",                                   # 127.0.0.1
            "0000000000000000FFFF00000100007F",           # ::ffff:127.0.0.1
            "00000000000000000000000001000000"}           # ::1


def test_a_local_instance_for_a_run_listens_on_loopback_only_and_keeps_its_files_private(tmp_path):
    import os
    import subprocess
    from pathlib import Path
    if not Path("/proc/net/tcp").exists():
        pytest.skip("reads the listening sockets from /proc")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("RAY_")} | {"HOME": str(tmp_path)}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["results"] == ["1", "2"]
    assert len(report["addresses"]) >= 3                     # the GCS, the raylet, the workers
    assert set(report["addresses"]) <= LOOPBACK, report["addresses"]
    token = tmp_path / ".ray" / "auth_token"
    assert token.stat().st_mode & 0o777 == 0o600
    assert report["folder_mode"] == 0o700 and not report["folder_left"]
