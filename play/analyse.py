"""Analysis of a finished game: for every turn, what the engine preferred and what the played
turn cost, each seat's accuracy, and each seat's win probability over the game.

Each turn is judged from what its player knew: the analysis core (search/analysis.py) is
given that seat's view at the turn's start, as a hint is, and ranks its candidates by fair
values (each end position searched alike: same estimator, budget and seeds). The played line
(the turn's decisions up to its own card draw) is valued by the very same valuer, so the best
candidate's own loss is exactly 0 and a loss comes from the moves, not from noise. The loss is
search/measure.py's: win probability while the game is open, expected score once it is decided.
A loss of at least `mistake` (default 0.10) is a mistake, of at least `blunder` (0.20) a blunder.

The chart is one observer's: every seat's win probability after each turn, searched from the
full state (every hand open: perfect-information search) when the record holds every hand,
else from the record's seat's view. Turns are spread over processes (jobs/backends.py's
local backend); a turn's result depends only on the turn, never on how many processes ran.
"""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass

from common.plots import pyplot, save_figure
from common.seat_numbers import seat_number
from common.words import plural
from engine.errors import PalaisError
from engine.notation import turn_to_text
from engine.views import view_for
from jobs.backends import open_backend
from search.analysis import (analyse_turn, engine_params, finish_setup, review_params, share_valuer,
                             turn_end_key)
from search.mcts import MCTSSearch
from search.measure import (BLUNDER, MISTAKE, game_accuracy, openness, turn_accuracy, turn_loss, verdict,
                            volatility_weights, vp_share)
from search.params import SearchLimits, SearchParams

from .explain import explain
from .i18n import check_language

CHART_SEED = 0x2545F491     # the chart's searches: one seed for every turn (common random numbers)


@dataclass
class TurnAnalysis:
    number: int                 # 1, 2, ... over the game (setup placements included)
    round: int                  # 0 = setup
    seat: int
    played: list                # the turn's decisions up to its own draw
    played_win: float           # the mover's fair win probability after the played line
    best: list                  # the engine's preferred line (the hint's first)
    best_win: float
    loss: float                 # search/measure.py's loss, in [0, 1]
    verdict: str                # "", "mistake" or "blunder"
    win_after: list             # the chart: every seat's win probability after the whole turn
    explanation: str            # the played line in words
    ply: int = 0                # the turn's first action's index in the game's actions
    played_score: float = 0.0   # the mover's fair expected score after the played line
    best_score: float = 0.0
    played_share: float = 0.0   # ... and its share of every seat's expected VP (search/measure.py)
    best_share: float = 0.0

    @property
    def accuracy(self) -> float:
        return turn_accuracy(self.loss)

    def to_dict(self) -> dict:
        return {"turn": self.number, "round": self.round, "seat": seat_number(self.seat),
                "played": turn_to_text(self.played), "played_win": round(self.played_win, 4),
                "played_score": round(self.played_score, 2),
                "best": turn_to_text(self.best), "best_win": round(self.best_win, 4),
                "best_score": round(self.best_score, 2),
                "played_share": round(self.played_share, 4), "best_share": round(self.best_share, 4),
                "loss": round(self.loss, 4), "accuracy": round(self.accuracy, 1), "verdict": self.verdict,
                "win_after": [round(w, 4) for w in self.win_after], "explanation": self.explanation}


def split_turns(state, actions, with_ply: bool = False) -> list:
    """[(start state, seat, decisions before the turn's first draw, all of the turn's actions)],
    each with the index of the turn's first action appended when `with_ply`."""
    turns = []
    state = state.copy()
    i = 0
    while i < len(actions) and not state.is_terminal():
        if state.is_chance():
            state.apply(actions[i])
            i += 1
            continue
        seat, start, first = state.to_move, state.copy(), i
        line, whole, drawn = [], [], False
        # A turn ends when the seat changes, or the round (the others may have had nothing to do).
        while i < len(actions) and not state.is_terminal() and state.to_move == seat \
                and state.round == start.round:
            if state.is_chance():
                drawn = True
            elif not drawn:
                line.append(actions[i])
            whole.append(actions[i])
            state.apply(actions[i])
            i += 1
        turns.append((start, seat, line, whole, first) if with_ply else (start, seat, line, whole))
    return turns


class Analyser:
    """Reviews turns: `limits` is each turn's tree search (the fair valuations and the chart
    take FAIR_SHARE of its iterations each: search/analysis.py)."""

    def __init__(self, limits, seed: int = 0, mistake: float = MISTAKE, blunder: float = BLUNDER,
                 lang: str = "en", params: SearchParams | None = None):
        if not 0 < mistake <= blunder <= 1:
            raise PalaisError("thresholds: need 0 < mistake <= blunder <= 1")
        self.lang = check_language(lang)        # of the explanations (play/i18n.py)
        self.limits = limits
        self.params = (params or SearchParams()).with_(algorithm="ismcts", seed=seed)
        self.judge_named = params is not None   # else the review's weights (search/analysis.py)
        self.seed = seed
        self.mistake = mistake
        self.blunder = blunder

    def judge(self, n_players: int) -> SearchParams:
        """The params this review judges an `n_players` game with."""
        return self.params if self.judge_named else review_params(self.params, n_players)

    def chart_point(self, after, observer: int, iterations: int) -> list:
        """Every seat's win probability at `after` (a full state, or `observer`'s view), as
        the chart's one observer sees it."""
        # The rest of the setup is placed as the engine would place it (search/analysis.py's
        # finish_setup, as a setup turn's fair values are), so a placement is charted against
        # the placements it will meet.
        judge = self.judge(after.n_players)
        after = finish_setup(after, engine_params(judge, CHART_SEED, after.n_players), iterations)
        if after.is_terminal():
            return list(after.returns())
        if observer < 0:
            params = engine_params(judge, CHART_SEED, after.n_players).with_(algorithm="mcts")
            seat = after.to_move
        else:
            params = engine_params(judge, CHART_SEED, after.n_players)
            seat = observer
        result = MCTSSearch(params).search(after, seat, SearchLimits(iterations=iterations), top_k=1)
        return list(result.stats["root_win"])

    def turn(self, number: int, start, seat: int, line: list, whole: list | None = None,
             observer: int = -1) -> TurnAnalysis:
        view = view_for(start, seat)
        analysis = analyse_turn(view, self.limits, top=3, seed=self.seed, params=self.judge(start.n_players))
        valuer = analysis.valuer
        best = analysis.candidates[0] if analysis.candidates else None
        played_win, played_score = valuer.values(line)
        played_share = vp_share(played_score, seat)
        if best is None or turn_end_key(view, best.turn, seat) == turn_end_key(view, line, seat):
            best_win, best_score, best_share, loss = played_win[seat], played_score[seat], played_share, 0.0
        else:
            best_win, best_score = best.win_prob[seat], best.expected_score[seat]
            best_share = vp_share(best.expected_score, seat)
            if openness(best_win, played_win[seat]) < 1.0:
                # Decided for the mover, at least in part: the shares come from rollouts to the
                # game's end (search/analysis.py, share_valuer).
                shares = share_valuer(valuer)
                best_share = vp_share(shares.values(best.turn)[1], seat)
                played_share = vp_share(shares.values(line)[1], seat)
            loss = turn_loss(start.n_players, best_win, played_win[seat], best_share, played_share)
        after = start.copy()
        for action in (line if whole is None else whole):
            after.apply(action)
        win_after = self.chart_point(after, observer, valuer.iterations)
        return TurnAnalysis(number, start.round, seat, list(line), played_win[seat],
                            list(best.turn) if best else [], best_win, loss,
                            verdict(loss, self.mistake, self.blunder), win_after,
                            explain(view, line, seat, self.lang),
                            played_score=played_score[seat], best_score=best_score,
                            played_share=played_share, best_share=best_share)


# The games being analysed, by job number: forked workers inherit them (engine States do not
# pickle), so a task is only (job, turn index).
_JOBS: dict = {}
_job_numbers = itertools.count()


def _turn_job(task):
    job, index = task
    analyser, turns, observer = _JOBS[job]
    number, (state, seat, line, whole, ply) = index + 1, turns[index]
    out = analyser.turn(number, state, seat, line, whole, observer)
    out.ply = ply
    return out


def default_processes() -> int:
    return max(1, os.cpu_count() or 1)


def analyse_game(rec, start, analyser: Analyser, on_turn=None, processes: int = 1) -> list:
    """TurnAnalysis for every turn (only the observer's turns for a seat's-view record),
    over `processes` processes; on_turn(done, total) after each analysed turn."""
    turns = split_turns(start, rec.actions, with_ply=True)
    wanted = [i for i, (_s, seat, *_rest) in enumerate(turns) if rec.observer < 0 or seat == rec.observer]
    job = next(_job_numbers)
    _JOBS[job] = (analyser, turns, rec.observer)
    out = []
    try:
        concurrency = max(1, min(processes, len(wanted)))
        with open_backend("local", _turn_job, concurrency=concurrency) as backend:
            for result in backend.run([(job, i) for i in wanted]):
                out.append(result)
                if on_turn:
                    on_turn(len(out), len(wanted))
    finally:
        del _JOBS[job]
    return out


def accuracy_weights(analyses, seat: int) -> list:
    """The weight of each of `seat`'s turns in its game accuracy: how much the chart's line
    of that seat moved around the turn (search/measure.py volatility_weights), from an even
    share before the first turn."""
    series = [1.0 / len(analyses[0].win_after)] + [t.win_after[seat] for t in analyses]
    return [w for t, w in zip(analyses, volatility_weights(series)) if t.seat == seat]


def seat_summary(analyses, seat: int) -> dict | None:
    """A seat's turns, mistakes, blunders, average loss and accuracy (None: no turn)."""
    mine = [t for t in analyses if t.seat == seat]
    if not mine:
        return None
    return {"seat": seat_number(seat), "turns": len(mine),
            "mistakes": sum(t.verdict == "mistake" for t in mine),
            "blunders": sum(t.verdict == "blunder" for t in mine),
            "average_loss": round(sum(t.loss for t in mine) / len(mine), 4),
            "accuracy": round(game_accuracy([t.loss for t in mine], accuracy_weights(analyses, seat)), 1)}


def chart_observer(rec) -> str:
    """Whose view the chart is: the full record's, or a seat's."""
    return "every hand open (the full record)" if rec.observer < 0 else f"seat {rec.observer + 1}'s view"


def report_lines(rec, analyses, mistake: float = MISTAKE, blunder: float = BLUNDER) -> list:
    """The text report: one block per turn, then a summary per seat."""
    names = rec.names or []
    who = [f"seat {q + 1}" + (f" ({names[q]})" if q < len(names) else "") for q in range(rec.n_players)]
    lines = [f"Analysis: {rec.n_players} players, seed {rec.seed}, {plural(len(analyses), 'turn')}; "
             f"loss = win probability lost while the game is open, share of the VP lost once it is "
             f"decided (docs/play.md); mistake >= {100 * mistake:.0f}%, blunder >= {100 * blunder:.0f}%"]
    for t in analyses:
        when = "setup" if t.round == 0 else f"round {t.round}"
        lost = f"-{math.floor(1000 * t.loss) / 10:.1f}%"       # rounded down, as the thresholds cut
        mark = f"  ** {t.verdict.upper()} ({lost})" if t.verdict else f"  ({lost})" if t.loss >= 0.02 else ""
        lines.append(f"{t.number:>3}. {when}, {who[t.seat]}: {turn_to_text(t.played)}  "
                     f"win {100 * t.played_win:.0f}%, {t.played_score:.0f} VP{mark}")
        if t.verdict:
            lines.append(f"       engine: {turn_to_text(t.best)}  win {100 * t.best_win:.0f}%, "
                         f"{t.best_score:.0f} VP")
            lines.append(f"       played: {t.explanation}")
    lines.append("")
    lines.append("Summary:")
    for q in range(rec.n_players):
        summary = seat_summary(analyses, q)
        if summary is None:
            continue
        lines.append(f"  {who[q]}: {plural(summary['turns'], 'turn')}, "
                     f"{plural(summary['mistakes'], 'mistake')}, {plural(summary['blunders'], 'blunder')}, "
                     f"average loss {100 * summary['average_loss']:.1f}%, accuracy {summary['accuracy']:.1f}%")
    if rec.scores is not None:
        lines.append("Final scores: " + ", ".join(f"{who[q]} {rec.scores[q]} VP" for q in range(rec.n_players)))
    return lines


def round_ticks(analyses, most: int = 16) -> tuple:
    """(x positions, labels) for the x axis: the first turn of each round ("setup" for the
    placements), at most `most` of them (every k-th round when the game is longer)."""
    firsts = {}
    for t in analyses:
        firsts.setdefault(t.round, t.number)
    rounds = sorted(firsts)
    step = max(1, math.ceil(len(rounds) / most))
    shown = [r for i, r in enumerate(rounds) if i % step == 0]
    return [firsts[r] for r in shown], ["setup" if r == 0 else str(r) for r in shown]


def win_probability_figure(rec, analyses):
    """The matplotlib figure of each seat's win probability after every turn: one line per
    seat, its mistakes (?) and blunders (??) marked on its own line, rounds along the x axis."""
    fig, ax = pyplot().subplots(figsize=(9, 4.5))
    xs = [t.number for t in analyses]
    names = rec.names or []
    for q in range(rec.n_players):
        label = f"seat {q + 1}" + (f" ({names[q]})" if q < len(names) else "")
        line, = ax.plot(xs, [t.win_after[q] for t in analyses], label=label, linewidth=1.6)
        for kind, marker, size, mark in (("mistake", "o", 40, "?"), ("blunder", "X", 70, "??")):
            bad = [t for t in analyses if t.seat == q and t.verdict == kind]
            if not bad:
                continue
            ax.scatter([t.number for t in bad], [t.win_after[q] for t in bad], marker=marker,
                       s=size, color=line.get_color(), edgecolors="black", linewidths=0.6,
                       zorder=3, gid=f"{kind}-seat{q + 1}")
            for t in bad:
                ax.annotate(mark, (t.number, t.win_after[q]), textcoords="offset points",
                            xytext=(0, 7), ha="center", fontsize=8, fontweight="bold")
    ticks, labels = round_ticks(analyses)
    ax.set_xticks(ticks, labels)
    ax.set_xlabel("round (? mistake, ?? blunder, on the line of the seat that made it)")
    ax.set_ylabel(f"win probability ({chart_observer(rec)})")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"Palais Royal, {rec.n_players} players, seed {rec.seed}")
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def plot_win_probability(rec, analyses, path: str) -> None:
    """A PNG of each seat's win probability after every turn (needs matplotlib)."""
    save_figure(win_probability_figure(rec, analyses), path, dpi=110)
