"""Runs a tournament: plan the games, play them (N at once, on a backend: local processes or
Ray tasks; jobs/backends.py), save each as it ends, show live standings, stop early on an SPRT
decision, and summarise.

Ctrl+C stops the games in flight. Every finished game is already saved, and `--resume`
continues from there, on either backend.
"""

from __future__ import annotations

from dataclasses import dataclass

from jobs.backends import open_backend
from protocol.sandbox import SandboxPolicy, in_force

from .arbiter import TimeControl, play_game
from .engines import check_engines
from .schedule import plan
from .stats import SPRT, head_to_head, multiplayer, two_player
from .store import RunStore


@dataclass
class Settings:
    engines: list                  # EngineSpec
    players: int = 2
    deals: int = 10
    schedule: str = "gauntlet"
    first_seed: int = 1
    tc: TimeControl = TimeControl()

    def to_dict(self) -> dict:
        return {"engines": [e.to_dict() for e in self.engines], "players": self.players,
                "deals": self.deals, "schedule": self.schedule, "first_seed": self.first_seed,
                "tc": self.tc.to_dict()}


def summarise(settings: Settings, games: list) -> dict:
    """The figures over `games`, whatever order they finished in."""
    names = [e.name for e in settings.engines]
    games = sorted(games, key=lambda g: g["index"])
    out = {"games": len(games), "forfeits": [
        {"game": g["index"], "engine": g["names"][int(seat)], "reason": reason}
        for g in games for seat, reason in g["forfeits"].items()]}
    out["engines"] = multiplayer(games, names)
    if settings.players == 2:
        pairings = {}
        first = names[0]
        others = names[1:] if settings.schedule == "gauntlet" else names
        for a in ([first] if settings.schedule == "gauntlet" else names):
            for b in others:
                if a < b or (settings.schedule == "gauntlet" and a != b):
                    stats = two_player(games, a, b)
                    if stats.games:
                        pairings[f"{a} vs {b}"] = vars(stats)
        out["pairings"] = pairings
    return out


def standings_text(settings: Settings, games: list) -> str:
    totals = {e.name: 0.0 for e in settings.engines}
    for g in games:
        for name, ret in zip(g["names"], g["returns"]):
            totals[name] += ret
    return "  ".join(f"{name} {points:g}" for name, points in totals.items())


def play_task(task):
    """One game from its task; runs wherever the backend puts it (and starts the engines
    there, in the sandbox the task names: on a Ray node too)."""
    job, seats, tc, secret, sandbox = task
    return play_game(job.index, job.deal_seed, seats, tc, group=job.group, secret=secret,
                     sandbox=SandboxPolicy.from_dict(sandbox))


def run(settings: Settings, out_dir, concurrency: int = 1, resume: bool = False,
        sprt: SPRT | None = None, on_game=None, stop_after: int | None = None,
        backend: str = "local", ray_address: str | None = None,
        sandbox: SandboxPolicy = SandboxPolicy()) -> dict:
    """Play the tournament; returns the summary. on_game(games so far, planned) is called after
    each game; stop_after ends the run after that many new games (for tests). backend is
    "local" or "ray" (ray_address: see jobs.backends.RayBackend); it is not a setting of the run,
    so a run may be resumed on the other backend. Neither is `sandbox`, the policy engines are
    started under (protocol/sandbox.py): the run folder is hidden from them, and each game
    says which sandbox was in force."""
    check_engines(settings.engines)             # before anything is written to out_dir
    in_force(sandbox)                           # --sandbox required: refused before anything is written
    sandbox = sandbox.hiding(out_dir).to_dict()
    with open_backend(backend, play_task, concurrency, ray_address) as games_at:
        store = RunStore(out_dir)
        games = store.create(settings.to_dict(), resume)
        secret = store.draw_secret()
        done = {g["index"] for g in games}
        jobs = [j for j in plan(len(settings.engines), settings.players, settings.deals,
                                settings.schedule, settings.first_seed) if j.index not in done]
        planned = len(done) + len(jobs)
        tasks = [(job, [settings.engines[i] for i in job.seats], settings.tc, secret, sandbox)
                 for job in jobs]
        decision = None
        new = 0
        for result in games_at.run(tasks):
            games.append(store.save(result))
            new += 1
            if on_game is not None:
                on_game(games, planned)
            if sprt is not None and settings.players == 2:
                a, b = settings.engines[0].name, settings.engines[1].name
                decision, llr = sprt.decision(head_to_head(games, a, b)[1])
                if decision:
                    break
            if stop_after is not None and new >= stop_after:
                break
    summary = summarise(settings, games)
    summary["sandbox"] = sorted({g.get("sandbox") or "not recorded" for g in games})
    summary["planned"] = planned
    summary["complete"] = len(games) == planned
    if sprt is not None:
        summary["sprt"] = {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha,
                           "beta": sprt.beta, "decision": decision}
    return summary
