"""Analysis of a finished game: for every turn, what the engine preferred and what the played
turn cost in win probability, plus each seat's win probability over the game.

Each turn is judged from what its player knew: the analysis core (search/analysis.py) is
given that seat's view at the turn's start, as a hint is. The played line (the turn's
decisions up to its own card draw) is valued from the same search when it reaches the same
position as one of the candidates, otherwise by a second
search from the position it reached, still from the mover's view; the loss is the best
candidate's win probability minus the played one's, never below 0. A loss of at least
`mistake` (default 0.10) is a mistake, of at least `blunder` (default 0.20) a blunder.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from common.plots import pyplot, save_figure
from common.words import plural
from engine.errors import PalaisError
from engine.notation import turn_to_text
from engine.views import view_for
from search.analysis import analyse_turn, turn_end_key
from search.mcts import MCTSSearch
from search.params import SearchParams

from .explain import explain
from .i18n import check_language

MISTAKE = 0.10
BLUNDER = 0.20


@dataclass
class TurnAnalysis:
    number: int                 # 1, 2, ... over the game (setup placements included)
    round: int                  # 0 = setup
    seat: int
    played: list                # the turn's decisions up to its own draw
    played_win: float           # the mover's win probability after the played line
    best: list                  # the engine's preferred line
    best_win: float
    loss: float
    verdict: str                # "", "mistake" or "blunder"
    win_after: list             # every seat's win probability after the played line
    explanation: str            # the played line in words
    ply: int = 0                # the turn's first action's index in the game's actions

    def to_dict(self) -> dict:
        return {"turn": self.number, "round": self.round, "seat": self.seat + 1,
                "played": turn_to_text(self.played), "played_win": round(self.played_win, 4),
                "best": turn_to_text(self.best), "best_win": round(self.best_win, 4),
                "loss": round(self.loss, 4), "verdict": self.verdict,
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
    def __init__(self, limits, seed: int = 0, mistake: float = MISTAKE, blunder: float = BLUNDER,
                 lang: str = "en"):
        if not 0 < mistake <= blunder <= 1:
            raise PalaisError("thresholds: need 0 < mistake <= blunder <= 1")
        self.lang = check_language(lang)        # of the explanations (play/i18n.py)
        self.limits = limits
        self.params = SearchParams(algorithm="ismcts", seed=seed)
        self.seed = seed
        self.mistake = mistake
        self.blunder = blunder

    def _value_after(self, view, line, seat) -> list:
        after = view.copy()
        for a in line:
            after.apply(a)
        if after.is_terminal():
            return list(after.returns())
        result = MCTSSearch(self.params).search(after, seat, self.limits, top_k=1)
        return list(result.stats["root_win"])

    def turn(self, number: int, start, seat: int, line: list) -> TurnAnalysis:
        view = view_for(start, seat)
        analysis = analyse_turn(view, self.limits, top=8, seed=self.seed, params=self.params)
        best = analysis.candidates[0] if analysis.candidates else None
        played = turn_end_key(view, line, seat)
        match = next((c for c in analysis.candidates if turn_end_key(view, c.turn, seat) == played), None)
        win_after = list(match.win_prob) if match else self._value_after(view, line, seat)
        best_win = best.win_prob[seat] if best else win_after[seat]
        loss = max(0.0, best_win - win_after[seat]) if match is not best else 0.0
        verdict = "blunder" if loss >= self.blunder else "mistake" if loss >= self.mistake else ""
        return TurnAnalysis(number, start.round, seat, list(line), win_after[seat],
                            list(best.turn) if best else [], best_win, loss, verdict, win_after,
                            explain(view, line, seat, self.lang))


def analyse_game(rec, start, analyser: Analyser, on_turn=None) -> list:
    """TurnAnalysis for every turn (only the observer's turns for a seat's-view record)."""
    turns = split_turns(start, rec.actions, with_ply=True)
    out = []
    for number, (state, seat, line, _whole, ply) in enumerate(turns, 1):
        if rec.observer < 0 or seat == rec.observer:
            out.append(analyser.turn(number, state, seat, line))
            out[-1].ply = ply
        if on_turn:
            on_turn(number, len(turns))
    return out


def report_lines(rec, analyses, mistake: float = MISTAKE, blunder: float = BLUNDER) -> list:
    """The text report: one block per turn, then a summary per seat."""
    names = rec.names or []
    who = [f"seat {q + 1}" + (f" ({names[q]})" if q < len(names) else "") for q in range(rec.n_players)]
    lines = [f"Analysis: {rec.n_players} players, seed {rec.seed}, {plural(len(analyses), 'turn')}; "
             f"mistake = loses >= {100 * mistake:.0f}% win probability, blunder >= {100 * blunder:.0f}%"]
    for t in analyses:
        when = "setup" if t.round == 0 else f"round {t.round}"
        lost = f"-{math.floor(1000 * t.loss) / 10:.1f}%"       # rounded down, as the thresholds cut
        mark = f"  ** {t.verdict.upper()} ({lost})" if t.verdict else f"  ({lost})" if t.loss >= 0.02 else ""
        lines.append(f"{t.number:>3}. {when}, {who[t.seat]}: {turn_to_text(t.played)}  "
                     f"win {100 * t.played_win:.0f}%{mark}")
        if t.verdict:
            lines.append(f"       engine: {turn_to_text(t.best)}  win {100 * t.best_win:.0f}%")
            lines.append(f"       played: {t.explanation}")
    lines.append("")
    lines.append("Summary:")
    for q in range(rec.n_players):
        mine = [t for t in analyses if t.seat == q]
        if not mine:
            continue
        mistakes = sum(t.verdict == "mistake" for t in mine)
        blunders = sum(t.verdict == "blunder" for t in mine)
        avg = sum(t.loss for t in mine) / len(mine)
        lines.append(f"  {who[q]}: {plural(len(mine), 'turn')}, {plural(mistakes, 'mistake')}, "
                     f"{plural(blunders, 'blunder')}, "
                     f"average loss {100 * avg:.1f}%")
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
        for verdict, marker, size, mark in (("mistake", "o", 40, "?"), ("blunder", "X", 70, "??")):
            bad = [t for t in analyses if t.seat == q and t.verdict == verdict]
            if not bad:
                continue
            ax.scatter([t.number for t in bad], [t.win_after[q] for t in bad], marker=marker,
                       s=size, color=line.get_color(), edgecolors="black", linewidths=0.6,
                       zorder=3, gid=f"{verdict}-seat{q + 1}")
            for t in bad:
                ax.annotate(mark, (t.number, t.win_after[q]), textcoords="offset points",
                            xytext=(0, 7), ha="center", fontsize=8, fontweight="bold")
    ticks, labels = round_ticks(analyses)
    ax.set_xticks(ticks, labels)
    ax.set_xlabel("round (? mistake, ?? blunder, on the line of the seat that made it)")
    ax.set_ylabel("win probability (engine estimate)")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"Palais Royal, {rec.n_players} players, seed {rec.seed}")
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def plot_win_probability(rec, analyses, path: str) -> None:
    """A PNG of each seat's win probability after every turn (needs matplotlib)."""
    save_figure(win_probability_figure(rec, analyses), path, dpi=110)
