"""`palais train RUN --generations N` (search/generations.py): the gate's statistics and
SPRT, keep or discard and the best that follows from it, the early stop, a run stopped
anywhere continuing to what an unbroken run gives, the table, and bad options refused."""

import json

import pytest
from click.testing import CliRunner

import search.generations as generations
from engine.errors import PalaisError
from play.cli import main as palais
from search.generations import (GenerationOptions, deal_scores, gate_result, pairwise_score, read_table,
                                run_generations, table_lines)

# Tiny budgets: two games of a few iterations per generation, a one-epoch fit, a gate of two deals.
TINY = GenerationOptions(seed=4, players=2, games=2, iterations=6, positions=2, hidden=(4, 4), epochs=1,
                         policy_hidden=4, gate_iterations=6, max_gate_games=4, min_gate_games=0,
                         current="heuristic")
TINY_ARGS = ["--seed", "4", "--games", "2", "--iterations", "6", "--positions", "2", "--hidden", "4,4",
             "--epochs", "1", "--policy-hidden", "4", "--eval-iterations", "6", "--max-gate-games", "4",
             "--min-gate-games", "0",
             "--current", "heuristic"]


def game(a_seat, returns, scores):
    return {"index": 0, "deal": 1, "a_seat": a_seat, "returns": returns, "scores": scores}


def test_the_pairwise_score_is_the_return_at_two_players_and_the_places_beaten_at_more():
    assert pairwise_score(game(0, [1, 0], [90, 80])) == 1.0
    assert pairwise_score(game(1, [1, 0], [90, 80])) == 0.0
    assert pairwise_score(game(1, [0.5, 0.5], [90, 90])) == 0.5
    assert pairwise_score(game(2, [1, 0, 0], [90, 70, 60])) == 0.0          # last of three
    assert pairwise_score(game(1, [1, 0, 0], [90, 70, 60])) == 0.5          # second: beat one of two
    assert pairwise_score(game(0, [1, 0, 0, 0], [90, 70, 70, 60])) == 1.0
    games = [game(0, [1, 0], [9, 8]), game(1, [1, 0], [9, 8]),     # a deal split: pair score 1
             game(0, [1, 0], [9, 8]), game(1, [0, 1], [8, 9])]     # a deal won twice: 2
    assert deal_scores(games, 2) == [1.0, 2.0]
    assert deal_scores(games[:3], 2) == [1.0]                      # a deal half played is not counted


def outcomes(pairs, players=2):
    """Gate games whose deals give A these pair scores (0, 1 or 2 at two players)."""
    games = []
    for pair in pairs:
        for a_seat in range(players):
            won = a_seat < pair
            returns = [0.0] * players
            returns[a_seat if won else (a_seat + 1) % players] = 1.0
            games.append(game(a_seat, returns, [r * 100 for r in returns]))
    return games


def test_the_gate_decides_by_the_sprt_and_the_cap():
    options = GenerationOptions(max_gate_games=40, min_gate_games=0)
    won = gate_result(outcomes([2, 2]), options)
    assert won["sprt"] == "H1" and won["llr"] > 2.94 and won["score"] == 1.0
    lost = gate_result(outcomes([0, 0]), options)
    assert lost["sprt"] == "H0" and lost["llr"] < -2.94
    even = gate_result(outcomes([1, 2, 1, 0, 1, 1]), options)
    assert even["sprt"] is None and even["gate_games"] == 12 and even["score"] == 0.5
    assert even["elo"] == 0 and even["elo_low"] < 0 < even["elo_high"]
    capped = gate_result(outcomes([1, 2, 1, 0] * 5), options)
    assert capped["gate_games"] == 40 and capped["sprt"] == "cap"
    three = gate_result(outcomes([3, 3], players=3), GenerationOptions(players=3, max_gate_games=30,
                                                                       min_gate_games=0))
    assert three["sprt"] == "H1" and three["share"] == 1.0
    waiting = GenerationOptions(max_gate_games=40, min_gate_games=6)         # no decision before 6 games
    assert gate_result(outcomes([2, 2]), waiting)["sprt"] is None
    assert gate_result(outcomes([2, 2, 2]), waiting)["sprt"] == "H1"


# A search clearly weaker than the default at any budget: no priors, the static evaluation,
# rollouts that stall (RULES.md §7).
WEAK = {"policy_weights": "uniform", "leaf_eval": "heuristic", "rollout_policy": "uniform"}
LOCAL = {"backend": "local", "concurrency": 1, "ray_address": None}


def test_a_real_gate_keeps_the_clearly_stronger_side_and_discards_the_weaker(tmp_path):
    options = GenerationOptions(seed=4, players=2, max_gate_games=16, min_gate_games=0, gate_iterations=10)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    stronger = generations.gate(tmp_path / "a", {}, WEAK, options, 1, LOCAL)
    assert stronger["sprt"] == "H1" and stronger["score"] > 0.5
    weaker = generations.gate(tmp_path / "b", WEAK, {}, options, 1, LOCAL)
    assert weaker["sprt"] == "H0" and weaker["score"] < 0.5
    lines = (tmp_path / "a" / "gate.jsonl").read_text().splitlines()
    assert len(lines) == stronger["gate_games"] and len(lines) % 2 == 0       # whole deals
    assert [json.loads(line)["a_seat"] for line in lines[:2]] == [0, 1]       # seats rotated
    assert generations.gate(tmp_path / "a", {}, WEAK, options, 1, LOCAL) == stronger     # read, not replayed


def fake_gate(winning: set):
    """A gate game (gate_job's task) the candidate of a generation in `winning` wins, and
    any other loses, without playing: to test what follows from the decisions."""
    def job(task):
        index, candidate, best, deal, a_seat, players, _ = task
        won = any(f"gen-{g:03d}" in candidate["value_weights"] for g in winning)
        returns = [0.0] * players
        returns[a_seat if won else (a_seat + 1) % players] = 1.0
        return {"index": index, "deal": deal, "a_seat": a_seat, "returns": returns,
                "scores": [r * 100 for r in returns]}
    return job


@pytest.mark.slow
def test_kept_candidates_become_the_best_and_three_discards_stop_the_run(tmp_path, monkeypatch):
    monkeypatch.setattr(generations, "gate_job", fake_gate({1}))
    said = []
    options = GenerationOptions(**{**TINY.to_json(), "hidden": (4, 4), "max_gate_games": 20})
    rows = run_generations(tmp_path, options, 6, say=said.append)
    assert [(r["generation"], r["sprt"], r["kept"], r["best"]) for r in rows] == [
        (1, "H1", True, 0), (2, "H0", False, 1), (3, "H0", False, 1), (4, "H0", False, 1)]
    assert rows[0]["gate_games"] == 4 and rows[0]["score"] == 1.0      # two deals won: H1
    assert any(line.startswith("stopped: 3 generations in a row") for line in said)
    assert not (tmp_path / "gen-005").exists()
    # generation 1's self-play is generation 0's best; 2's on 1's candidate
    first = json.loads((tmp_path / "gen-001" / "run.json").read_text())["search"]
    second = json.loads((tmp_path / "gen-002" / "run.json").read_text())["search"]
    assert first == {"leaf_eval": "heuristic", "policy_weights": "", "selection": "puct"}
    assert second == {"value_weights": str((tmp_path / "gen-001" / "candidate.npz").resolve()),
                      "policy_weights": str((tmp_path / "gen-001" / "policy-candidate.npz").resolve()),
                      "selection": "puct"}
    assert read_table(tmp_path) == rows
    assert len(rows[0]["value"]) == 12 and len(rows[0]["policy"]) == 12
    table = table_lines(rows)
    assert table[0].split()[:3] == ["gen", "games", "value"] and len(table) == 5
    assert " H1 " in table[1] and " yes " in table[1]
    again = []                                                          # a rerun decides nothing new
    assert run_generations(tmp_path, options, 9, say=again.append) == rows
    assert any(line.startswith("stopped:") for line in again)


def without_cpu(rows):
    return [{k: v for k, v in row.items() if k != "cpu_seconds"} for row in rows]


def saved(folder, generation_count=2):
    """What a run leaves that depends on how its games and fits went."""
    files = {}
    for g in range(1, generation_count + 1):
        for name in ("games.jsonl", "samples.f32", "policy.f32", "fit.json", "candidate.npz",
                     "policy-candidate.npz", "gate.jsonl", "decision.json"):
            path = folder / f"gen-{g:03d}" / name
            data = path.read_bytes()
            files[f"{g}/{name}"] = without_cpu([json.loads(data)]) if name == "decision.json" else data
    return files


class Killed(Exception):
    """Stands for a kill: the run stops where it raises."""


@pytest.mark.slow
def test_a_run_stopped_after_self_play_or_mid_gate_continues_to_the_unbroken_runs_results(tmp_path, monkeypatch):
    unbroken = run_generations(tmp_path / "whole", TINY, 2)
    assert [r["generation"] for r in unbroken] == [1, 2]

    real_fit = generations.fit_candidate
    def killed_fit(*args):
        raise Killed()
    monkeypatch.setattr(generations, "fit_candidate", killed_fit)
    with pytest.raises(Killed):                                # after generation 1's self-play
        run_generations(tmp_path / "fit", TINY, 2)
    assert len((tmp_path / "fit" / "gen-001" / "games.jsonl").read_text().splitlines()) == 2
    assert not (tmp_path / "fit" / "gen-001" / "candidate.npz").exists()
    monkeypatch.setattr(generations, "fit_candidate", real_fit)
    assert without_cpu(run_generations(tmp_path / "fit", TINY, 2)) == without_cpu(unbroken)

    real_gate = generations.gate_job
    played = []
    def killed_gate(task):
        if len(played) == 3:                                   # generation 1's gate, its fourth game
            raise Killed()
        played.append(task[0])
        return real_gate(task)
    monkeypatch.setattr(generations, "gate_job", killed_gate)
    with pytest.raises(Killed):
        run_generations(tmp_path / "gate", TINY, 2)
    gate = tmp_path / "gate" / "gen-001" / "gate.jsonl"
    assert len(gate.read_text().splitlines()) == 3
    with open(gate, "a") as out:                               # and a line torn by the kill
        out.write('{"index": 3, "deal"')
    monkeypatch.setattr(generations, "gate_job", real_gate)
    assert without_cpu(run_generations(tmp_path / "gate", TINY, 2)) == without_cpu(unbroken)
    whole = saved(tmp_path / "whole")
    assert saved(tmp_path / "fit") == whole and saved(tmp_path / "gate") == whole
    assert without_cpu(read_table(tmp_path / "gate")) == without_cpu(unbroken)


@pytest.mark.parametrize("change, why", [
    ({"window": 0}, "window"), ({"stop_after": 0}, "stop after"),
    ({"sprt_elo0": 10.0, "sprt_elo1": 5.0}, "elo0"), ({"max_gate_games": 1}, "max gate games"),
    ({"players": 5}, "players"), ({"games": 0}, "games"), ({"hidden": (4,)}, "hidden"),
    ({"head": "wide"}, "head"), ({"min_gate_games": 5}, "min gate games: 5 is outside 0..4"), ({"fast_share": 0.5, "fast_iterations": 6}, "fast iterations: 6 is outside 1..5"),
])
def test_bad_generation_options_are_refused(tmp_path, change, why):
    with pytest.raises(PalaisError, match=why):
        run_generations(tmp_path / "run", GenerationOptions(**{**TINY.to_json(), "hidden": (4, 4), **change}), 1)
    assert not (tmp_path / "run" / "gen-001").exists()


def test_generations_beyond_the_limit_and_a_file_as_the_run_are_refused(tmp_path):
    with pytest.raises(PalaisError, match="generations: 0"):
        run_generations(tmp_path, TINY, 0)
    (tmp_path / "file").write_text("x")
    with pytest.raises(PalaisError, match="not a folder"):
        run_generations(tmp_path / "file", TINY, 1)


@pytest.mark.parametrize("extra, why", [
    (["--window", "2"], "--window needs --generations"),
    (["--stop-after", "2"], "--stop-after needs --generations"),
    (["--min-gate-games", "2"], "--min-gate-games needs --generations"),
    (["--sprt-elo1", "10"], "--sprt-elo1 needs --generations"),
    (["--generations", "2", "--eval-deals", "3"], "--eval-deals is not taken with --generations"),
    (["--generations", "2", "--out", "x.npz"], "--out is not taken with --generations"),
    (["--generations", "2", "--with", "OTHER"], "--with is not taken with --generations"),
    (["--generations", "2", "--sprt-elo0", "5", "--sprt-elo1", "5"], "elo0 (5) must be below elo1 (5)"),
    (["--generations", "2", "--max-gate-games", "3", "--players", "4"], "fewer than one deal"),
    (["--generations", "0"], "--generations"),
    (["--generations", "2", "--current", "/no/such.npz"], "no such value weights file"),
    (["--generations", "2", "--backend", "local", "--ray-address", "auto"], "--ray-address needs --backend ray"),
    (["--generations-report"], "no generations.jsonl"),
])
def test_palais_train_refuses_bad_generation_options(tmp_path, extra, why):
    extra = [str(tmp_path / "other") if e == "OTHER" else e for e in extra]
    result = CliRunner().invoke(palais, ["train", str(tmp_path / "run")] + extra)
    assert result.exit_code != 0 and why in result.output, result.output
    assert not (tmp_path / "run" / "gen-001").exists()


@pytest.mark.slow
def test_palais_train_generations_end_to_end(tmp_path):
    run = str(tmp_path / "run")
    result = CliRunner().invoke(palais, ["train", run, "--generations", "1"] + TINY_ARGS)
    assert result.exit_code == 0, result.output
    rows = read_table(run)
    assert len(rows) == 1 and rows[0]["games"] == 2 and rows[0]["gate_games"] == 4
    assert rows[0]["sprt"] in ("H0", "H1", "cap") and rows[0]["kept"] == (rows[0]["sprt"] == "H1")
    assert "\n".join(table_lines(rows)) in result.output
    report = CliRunner().invoke(palais, ["train", run, "--generations-report"])
    assert report.exit_code == 0 and report.output.strip() == "\n".join(table_lines(rows))
    changed = CliRunner().invoke(palais, ["train", run, "--generations", "2"] + TINY_ARGS[:-2])
    assert changed.exit_code != 0 and "current 'heuristic' (now '')" in changed.output


def test_the_chained_elo_adds_up_the_kept_gates_only():
    rows = [{"elo": 40.0, "kept": True}, {"elo": -10.0, "kept": False}, {"elo": 25.4, "kept": True},
            {"elo": 90.0, "kept": False}]
    assert generations.chained_elo(rows) == [40.0, 40.0, 65.4, 65.4]
    lines = table_lines([{**row, "generation": g + 1, "games": 2, "value": "a" * 12, "policy": "b" * 12,
                          "best": 0, "gate_games": 4, "score": 0.5, "elo_low": None, "elo_high": None,
                          "sprt": "cap", "llr": 0.0, "cpu_seconds": 1.0} for g, row in enumerate(rows)])
    assert "chained Elo" in lines[0]
    assert [line.split()[-2] for line in lines[1:]] == ["+40", "+40", "+65", "+65"]


def test_the_generations_chart(tmp_path):
    rows = [{"generation": 1, "elo": 40.0, "elo_low": 5.0, "elo_high": 80.0, "kept": True},
            {"generation": 2, "elo": -10.0, "elo_low": None, "elo_high": None, "kept": False}]
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        with pytest.raises(PalaisError, match="--plot needs matplotlib"):
            generations.plot_generations(rows, str(tmp_path / "g.png"))
        return
    generations.plot_generations(rows, str(tmp_path / "g.png"))
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
