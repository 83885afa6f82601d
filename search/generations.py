"""Training in generations (`palais train RUN --generations N`, docs/train.md): generation
after generation, self-play with the current best, a fit of the value model and the policy
head on the new games, a gate of the candidate against the best over seat-rotated deals with
the SPRT, and keep or discard. Everything is search/train.py's (the self-play loop, the fits,
the match's games) and search/stats.py's (the SPRT, the Elo interval); this module only
chains them, and keeps each step's result on disk so that a run stopped anywhere continues
to the same result.

The run's folder:
  generations-run.json   the options that fix the generations (a restart with others is refused)
  gen-001/ ...           one folder per generation:
      run.json, samples.f32, policy.f32, games.jsonl   its self-play (a search/train.py run
                         whose `search` holds the best's parameters)
      candidate.npz, curve.json, policy-candidate.npz, policy-curve.json   its fits
      fit.json           the candidate's digests, written once both files are
      gate.jsonl         one line per gate game, in game order (torn last line mended)
      cpu.json           CPU seconds of each finished step
      decision.json      the generation's row (below), written last
  generations.jsonl      every decided generation's row, rewritten whole after each

Every file is written in one step (common/atomic_write.py) or appended line by line and
synced (games, gate games), so a kill loses at most the game in hand. A game depends only on
its options and index, so every backend (local processes, Ray) gives the same files.
"""

from __future__ import annotations

import json
import resource
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from common.atomic_write import write_text_atomic
from common.json_lines import mend, read_json_lines
from common.plots import pyplot, save_figure
from engine.errors import PalaisError
from jobs.backends import open_backend

from .policy_fit import PolicyFitOptions, fit_policy, unpack
from .stats import SPRT, elo_interval, elo_of
from .train import (SCALAR, FitOptions, GameOptions, Head, RunFolder, append_json_line, fit, generate, keep_options,
                    match_game, policy_opponent, policy_training_rows, training_rows, value_params,
                    vector_training_rows, write_fit, write_policy_fit)
from .weights_file import digest_of

MAX_GENERATIONS = 999
OPTIONS_FILE = "generations-run.json"
TABLE_FILE = "generations.jsonl"


@dataclass(frozen=True)
class GenerationOptions:
    """What fixes a run's generations (generations-run.json); the number of generations is
    not among them: a finished run may be given more."""
    seed: int = 1
    players: int = 2
    games: int = 200                # self-play games per generation
    iterations: int = 200           # per search in self-play
    positions: int = 8
    fast_share: float = 0.0         # playout-cap randomisation (GameOptions)
    fast_iterations: int = 0
    window: int = 1                 # the fit reads this generation's games and the window-1 before
    hidden: tuple = (64, 32)
    epochs: int = 20
    learning_rate: float = 3e-4
    weight_decay: float = 1e-2
    head: str = "scalar"
    policy_hidden: int = 32
    policy_learning_rate: float = 1e-3
    policy_target: str = "visits"
    policy_q_scale: float = 20.0
    gate_iterations: int = 400      # per search in the gate
    sprt_elo0: float = 0.0
    sprt_elo1: float = 30.0
    max_gate_games: int = 400
    min_gate_games: int = 20        # no SPRT decision before (its variance comes from the deals)
    stop_after: int = 3             # discards in a row that end the run
    current: str = ""               # generation 0's value: "" shipped, a file, or heuristic
    policy_current: str = ""        # generation 0's policy: "" shipped, a file, uniform or uct

    def check(self) -> "GenerationOptions":
        self.game_options(1, ()).check()
        self.fit_options(1).check()
        if not 1 <= self.games <= 1_000_000:
            raise PalaisError(f"games: {self.games} is outside 1..1000000 (self-play games per generation)")
        if not 1 <= self.window <= MAX_GENERATIONS:
            raise PalaisError(f"window: {self.window} is outside 1..{MAX_GENERATIONS}")
        if not 1 <= self.stop_after <= MAX_GENERATIONS:
            raise PalaisError(f"stop after: {self.stop_after} is outside 1..{MAX_GENERATIONS}")
        if not self.sprt_elo0 < self.sprt_elo1:
            raise PalaisError(f"SPRT: elo0 ({self.sprt_elo0:g}) must be below elo1 ({self.sprt_elo1:g})")
        if self.max_gate_games < self.players:
            raise PalaisError(f"max gate games: {self.max_gate_games} is fewer than one deal "
                              f"played once per seat ({self.players} games)")
        if not 0 <= self.min_gate_games <= self.max_gate_games:
            raise PalaisError(f"min gate games: {self.min_gate_games} is outside 0..{self.max_gate_games} "
                              f"(the max gate games)")
        if self.head not in ("scalar", "vector"):
            raise PalaisError(f"head: {self.head!r} is not scalar or vector")
        return self

    def game_options(self, generation: int, search: tuple) -> GameOptions:
        return GameOptions(seed=generation_seed(self.seed, generation), players=self.players,
                           iterations=self.iterations, positions=self.positions, search=search,
                           fast_share=self.fast_share, fast_iterations=self.fast_iterations)

    def fit_options(self, generation: int) -> FitOptions:
        return FitOptions(hidden=tuple(self.hidden), epochs=self.epochs, learning_rate=self.learning_rate,
                          weight_decay=self.weight_decay, seed=generation_seed(self.seed, generation))

    def to_json(self) -> dict:
        return {**asdict(self), "hidden": list(self.hidden)}


def generation_seed(seed: int, generation: int) -> int:
    """The seed of a generation's games, fits and gate deals (no two generations share one)."""
    return seed * (MAX_GENERATIONS + 1) + generation


def folder_of(run, generation: int) -> Path:
    return Path(run) / f"gen-{generation:03d}"


@dataclass(frozen=True)
class Best:
    """The best so far: its value and policy (files, or generation 0's names) and where it came from."""
    value: str
    policy: str
    generation: int = 0

    def params(self) -> dict:
        return {**value_params(self.value), **policy_opponent(self.policy)}


def check_options_file(run: Path, options: GenerationOptions) -> None:
    keep_options(run / OPTIONS_FILE, options.to_json(), "these generations were")


def read_row(folder: Path) -> dict | None:
    path = folder / "decision.json"
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise PalaisError(f"{path}: unreadable ({exc})") from None


def cpu_now() -> float:
    """CPU seconds of this process and its finished children (a local pool's workers)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def add_cpu(folder: Path, step: str, seconds: float) -> None:
    path = folder / "cpu.json"
    spent = json.loads(path.read_text()) if path.exists() else {}
    spent[step] = round(spent.get(step, 0.0) + seconds, 3)
    write_text_atomic(path, json.dumps(spent, sort_keys=True) + "\n")


def trailing_discards(rows: list) -> int:
    count = 0
    for row in reversed(rows):
        if row["kept"]:
            break
        count += 1
    return count


def run_generations(run, options: GenerationOptions, generations: int, say=print,
                    backend: str = "local", concurrency: int = 1, ray_address: str | None = None,
                    on_game=None) -> list:
    """Generations 1..`generations` of the run in folder `run` (those decided already are
    read, a generation cut short goes on where it stopped); stops after options.stop_after
    discards in a row. `say(line)` tells what happens, `on_game()` after each game played.
    Returns the rows of every decided generation (generations.jsonl)."""
    options = options.check()
    if not 1 <= generations <= MAX_GENERATIONS:
        raise PalaisError(f"generations: {generations} is outside 1..{MAX_GENERATIONS}")
    run = Path(run)
    if run.exists() and not run.is_dir():
        raise PalaisError(f"{run}: not a folder")
    run.mkdir(parents=True, exist_ok=True)
    check_options_file(run, options)
    where = {"backend": backend, "concurrency": concurrency, "ray_address": ray_address}
    best = Best(options.current, options.policy_current)
    rows = []
    for generation in range(1, generations + 1):
        if trailing_discards(rows) >= options.stop_after:
            say(f"stopped: {options.stop_after} generations in a row without a kept candidate "
                f"(the last kept: {best.generation or 'none'})")
            break
        folder = folder_of(run, generation)
        row = read_row(folder)
        if row is None:
            row = play_generation(run, folder, generation, best, options, say, where, on_game)
        rows.append(row)
        write_table(run, rows)
        if row["kept"]:
            best = Best(str(folder / "candidate.npz"), str(folder / "policy-candidate.npz"), generation)
    return rows


def play_generation(run: Path, folder: Path, generation: int, best: Best, options: GenerationOptions,
                    say, where: dict, on_game) -> dict:
    """One generation, each step skipped when its result is on disk: self-play, fit, gate,
    decision (written last)."""
    folder = folder.resolve()
    games = RunFolder(folder, options.game_options(generation, tuple(sorted(best.params().items()))))
    if len(games.games) < options.games:
        start = cpu_now()
        generate(games, options.games, progress=on_game and (lambda _: on_game()), **where)
        add_cpu(folder, "selfplay", cpu_now() - start)
    say(f"generation {generation}: {len(games.games)} self-play games with the best "
        f"(generation {best.generation})")
    fitted = read_fit(folder)
    if fitted is None:
        start = cpu_now()
        fitted = fit_candidate(run, folder, generation, options)
        add_cpu(folder, "fit", cpu_now() - start)
    say(f"generation {generation}: candidate value {fitted['value']}, policy {fitted['policy']}")
    candidate = {**value_params(str(folder / "candidate.npz")),
                 "selection": "puct", "policy_weights": str(folder / "policy-candidate.npz")}
    start = cpu_now()
    result = gate(folder, candidate, best.params(), options, generation, where, on_game)
    add_cpu(folder, "gate", cpu_now() - start)
    spent = json.loads((folder / "cpu.json").read_text()) if (folder / "cpu.json").exists() else {}
    row = {"generation": generation, "games": len(games.games), "rows": fitted["rows"],
           "value": fitted["value"], "policy": fitted["policy"], "best": best.generation,
           **result, "kept": result["sprt"] == "H1", "cpu_seconds": round(sum(spent.values()), 1)}
    write_text_atomic(folder / "decision.json", json.dumps(row) + "\n")
    say(row_line(row))
    return row


def read_fit(folder: Path) -> dict | None:
    path = folder / "fit.json"
    if not path.exists():
        return None
    try:
        fitted = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise PalaisError(f"{path}: unreadable ({exc})") from None
    for name, key in (("candidate.npz", "value"), ("policy-candidate.npz", "policy")):
        if digest_of((folder / name).read_bytes()) != fitted.get(key):
            return None                 # a file changed since: fit again (the same weights)
    return fitted


def fit_candidate(run: Path, folder: Path, generation: int, options: GenerationOptions) -> dict:
    """The value model and the policy head fitted on this generation's games and the
    window's before it, written to the generation's folder; fit.json last."""
    first = max(1, generation - options.window + 1)
    runs = [RunFolder.existing(folder_of(run, g).resolve()) for g in range(first, generation + 1)]
    head = Head(options.players) if options.head == "vector" else SCALAR
    x, y, game_of_row = (vector_training_rows if head.players else training_rows)(runs)
    arrays, curve = fit(x, y, game_of_row, options.fit_options(generation), head=head)
    value_path = write_fit(folder, arrays, curve)
    rows, games = policy_training_rows(runs)
    if len(rows) == 0:
        raise PalaisError(f"{folder}: no policy rows to fit the policy head on")
    policy_options = PolicyFitOptions(hidden=options.policy_hidden, epochs=options.epochs,
                                      learning_rate=options.policy_learning_rate,
                                      seed=generation_seed(options.seed, generation),
                                      target=options.policy_target, q_scale=options.policy_q_scale)
    policy_arrays, policy_curve = fit_policy(unpack(rows), games, policy_options)
    _, policy_digest = write_policy_fit(folder, policy_arrays, policy_curve)
    fitted = {"value": digest_of(value_path.read_bytes()), "policy": policy_digest,
              "rows": int(len(x)), "policy_rows": int(len(rows)), "generations_read": [first, generation]}
    write_text_atomic(folder / "fit.json", json.dumps(fitted) + "\n")
    return fitted


def gate_job(task: tuple) -> dict:
    """A backend's job: one gate game (train.match_game's task); its line of gate.jsonl."""
    outcome = match_game(task)
    index, _, _, deal, a_seat, _, _ = task
    return {"index": index, "deal": deal, "a_seat": a_seat, "returns": outcome.returns,
            "scores": outcome.scores}


def pairwise_score(game: dict) -> float:
    """A's score against the other seats of one game, each 1 if A finished above it (its
    return, then its VP), 1/2 level, 0 below: 0.5 between equals at any player count, A's
    return at two players."""
    a = game["a_seat"]
    key = [(r, s) for r, s in zip(game["returns"], game["scores"])]
    others = [q for q in range(len(key)) if q != a]
    return sum(1.0 if key[a] > key[q] else 0.5 if key[a] == key[q] else 0.0 for q in others) / len(others)


def deal_scores(games: list, players: int) -> list:
    """The SPRT's observations: per deal played once per seat, A's pairwise scores summed and
    scaled to 0..2 (at two players, the pentanomial pair score)."""
    whole = len(games) // players
    return [2.0 * np.mean([pairwise_score(g) for g in games[d * players:(d + 1) * players]])
            for d in range(whole)]


def gate_result(games: list, options: GenerationOptions) -> dict:
    """The gate's figures and SPRT decision from its games so far ("H1", "H0", "cap" when the
    games reached max_gate_games undecided, None while it goes on); no decision before
    min_gate_games, as the SPRT's variance is estimated from the deals played."""
    sprt = SPRT(options.sprt_elo0, options.sprt_elo1)
    pairs = deal_scores(games, options.players)
    decision, llr = sprt.decision(pairs)
    if len(games) < options.min_gate_games:
        decision = None                 # too few deals to trust the variance the test estimates
    if decision is None and len(games) >= options.max_gate_games - options.max_gate_games % options.players:
        decision = "cap"
    per_game = [pairwise_score(g) for g in games]
    score = float(np.mean(per_game)) if per_game else 0.5
    low, high, _ = elo_interval(np.array(pairs) / 2.0, score)
    share = float(np.mean([g["returns"][g["a_seat"]] for g in games])) if games else 0.0
    return {"gate_games": len(games), "score": round(score, 4), "share": round(share, 4),
            "elo": round(elo_of(score), 1), "elo_low": None if low is None else round(low, 1),
            "elo_high": None if high is None else round(high, 1), "sprt": decision, "llr": round(float(llr), 4)}


def read_gate(path: Path) -> list:
    def check(game, number):
        if game["index"] != number - 1 or not isinstance(game["returns"], list):
            raise ValueError("not the next gate game")
        return game
    lines = read_json_lines(path, "a gate game line", check)
    if lines is None:
        return []
    mend(path, lines)
    return lines.values


def gate(folder: Path, candidate: dict, best: dict, options: GenerationOptions, generation: int,
         where: dict, on_game=None) -> dict:
    """The candidate in one seat against the best in the others, each deal once per seat, the
    SPRT checked after each deal in deal order until it decides or max_gate_games is reached;
    the games go to gate.jsonl in game order (those after the decision are not counted, so
    the result does not depend on how many ran at once)."""
    path = folder / "gate.jsonl"
    games = read_gate(path)
    n = options.players
    result = gate_result(games, options)
    if result["sprt"] is not None:
        return result
    deal_seed = generation_seed(options.seed, generation) * 7919
    cap = options.max_gate_games - options.max_gate_games % n
    tasks = [(i, candidate, best, deal_seed + i // n, i % n, n, options.gate_iterations)
             for i in range(len(games), cap)]
    waiting = {}
    with open_backend(where["backend"], gate_job, where["concurrency"], where["ray_address"]) as at:
        for game in at.run(tasks):
            waiting[game["index"]] = game
            if on_game is not None:
                on_game()
            while len(games) in waiting:
                line = waiting.pop(len(games))
                append_json_line(path, line)
                games.append(line)
                if len(games) % n == 0:
                    result = gate_result(games, options)
                    if result["sprt"] is not None:
                        return result
    return gate_result(games, options)


def write_table(run: Path, rows: list) -> None:
    write_text_atomic(Path(run) / TABLE_FILE, "".join(json.dumps(row) + "\n" for row in rows))


def read_table(run) -> list:
    path = Path(run) / TABLE_FILE
    if not path.exists():
        raise PalaisError(f"{run}: no {TABLE_FILE} (no generation decided yet)")
    def check(row, number):
        if row["generation"] != number:
            raise ValueError("not the next generation")
        return row
    return read_json_lines(path, "a generation's row", check).values


def _signed(x: float) -> str:
    return f"{round(x) + 0:+d}"          # (no "-0")


def _elo(row: dict) -> str:
    interval = (f" [{_signed(row['elo_low'])}, {_signed(row['elo_high'])}]"
                if row.get("elo_low") is not None else " [n/a]")
    return _signed(row["elo"]) + interval


def row_line(row: dict) -> str:
    return (f"generation {row['generation']}: {row['gate_games']} gate games, score {row['score']:.3f}, "
            f"Elo {_elo(row)}, SPRT {row['sprt']} (LLR {row['llr']:+.2f}): "
            + ("kept" if row["kept"] else "discarded"))


TABLE_HEADER = ("gen", "games", "value", "policy", "best", "gate", "score", "Elo [95%]", "SPRT", "LLR",
                "kept", "chained Elo", "CPU s")


def table_lines(rows: list) -> list:
    """The generations as a text table, one line each."""
    cells = [TABLE_HEADER] + [
        (str(r["generation"]), str(r["games"]), r["value"], r["policy"], str(r["best"]), str(r["gate_games"]),
         f"{r['score']:.3f}", _elo(r), str(r["sprt"]), f"{r['llr']:+.2f}", "yes" if r["kept"] else "no",
         _signed(chain), f"{r['cpu_seconds']:.1f}") for r, chain in zip(rows, chained_elo(rows))]
    widths = [max(len(line[i]) for line in cells) for i in range(len(TABLE_HEADER))]
    return ["  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in cells]


def chained_elo(rows: list) -> list:
    """The best's Elo over generation 0 after each generation: the kept gates' Elo added up
    (each gate measures the candidate against the best it replaces, so the sum chains them;
    a chain of gates at one budget, not a rating measured against generation 0 itself)."""
    total, chain = 0.0, []
    for row in rows:
        total += row["elo"] if row["kept"] else 0.0
        chain.append(round(total, 1))
    return chain


def plot_generations(rows: list, path: str) -> None:
    """A PNG of each generation's gate Elo with its 95% interval, kept ones filled, and the
    best's chained Elo over generation 0 (needs matplotlib)."""
    plt = pyplot()
    from matplotlib.ticker import MaxNLocator
    fig, ax = plt.subplots(figsize=(7, 4))
    for kept, marker in ((True, "o"), (False, "x")):
        chosen = [r for r in rows if r["kept"] == kept]
        if not chosen:
            continue
        low = [r["elo"] - (r["elo_low"] if r["elo_low"] is not None else r["elo"]) for r in chosen]
        high = [(r["elo_high"] if r["elo_high"] is not None else r["elo"]) - r["elo"] for r in chosen]
        ax.errorbar([r["generation"] for r in chosen], [r["elo"] for r in chosen], yerr=[low, high],
                    fmt=marker, capsize=3, label="gate: kept" if kept else "gate: discarded")
    ax.plot([0] + [r["generation"] for r in rows], [0.0] + chained_elo(rows), "-s", color="grey",
            markersize=4, label="the best over generation 0 (kept gates added up)")
    ax.axhline(0, color="grey", linestyle=":")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("generation")
    ax.set_ylabel("Elo (95% interval)")
    ax.set_title("training in generations: each candidate's gate against the best")
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
