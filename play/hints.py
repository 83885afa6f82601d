"""Hints: the engine's best ways to finish the current turn, in numbers and in words.

A hint is asked by the seat to move. The analysis core (search/analysis.py) searches that
seat's view only (a full state is turned into the view before anything else), so other hands
and the draw pile cannot leak into the advice: the same view and seed give the same hint
whatever the hidden cards are. Each hint is a distinct way to finish the turn; "win" and
"score" are its fair values (search/analysis.py, Step 4: a search of its own from the
position it reaches, every hint alike), the same numbers `palais analyse` judges turns by.
"""

from __future__ import annotations

from dataclasses import dataclass

from common.seat_numbers import seat_number
from common.words import plural
from engine.notation import turn_to_text
from engine.views import view_for
from search.analysis import DEFAULT_ITERATIONS, analyse_turn
from search.params import SearchLimits, SearchParams

from .explain import explain
from .i18n import check_language

__all__ = ["DEFAULT_ITERATIONS", "Hint", "HintReport", "find_hints", "hint_lines"]


@dataclass
class Hint:
    rank: int                   # 1 = the best (win probability, then expected score)
    turn: list                  # actions: the rest of the turn (up to the seat's own draw)
    tokens: str                 # the same in notation
    visits: int
    win: float                  # the asking seat's win probability estimate
    score: float                # the asking seat's expected final score (VP)
    win_by_seat: list           # every seat's win probability estimate
    explanation: str

    def to_dict(self) -> dict:
        return {"rank": self.rank, "turn": self.tokens, "visits": self.visits,
                "win": round(self.win, 4), "score": round(self.score, 2),
                "win_by_seat": [round(w, 4) for w in self.win_by_seat],
                "explanation": self.explanation}


@dataclass
class HintReport:
    seat: int
    hints: list
    iterations: int
    time_ms: float

    def to_dict(self) -> dict:
        return {"seat": seat_number(self.seat), "iterations": self.iterations,
                "time_ms": round(self.time_ms, 1), "hints": [h.to_dict() for h in self.hints]}


def find_hints(state, limits: SearchLimits | None = None, top: int = 3, seed: int = 0,
               params: SearchParams | None = None, callback=None, lang: str = "en") -> HintReport:
    """The top `top` distinct ways for the seat to move to finish its turn, searched from its
    view by the analysis core (search/analysis.py), with their explanations in words, in
    `lang` (play.i18n.LANGUAGES; ValueError for another, before any search)."""
    check_language(lang)
    analysis = analyse_turn(state, limits, top=top, seed=seed, params=params, callback=callback)
    seat = analysis.seat
    view = view_for(state, seat)
    hints = []
    for rank, cand in enumerate(analysis.candidates, 1):
        hints.append(Hint(rank=rank, turn=list(cand.turn), tokens=turn_to_text(cand.turn),
                          visits=cand.visits, win=cand.win_prob[seat], score=cand.expected_score[seat],
                          win_by_seat=list(cand.win_prob),
                          explanation=explain(view, cand.turn, seat, lang)))
    return HintReport(seat, hints, analysis.iterations, analysis.time_ms)


def hint_lines(report: HintReport, names=None) -> list:
    """The report for people: one numbered entry per hint, its numbers, then its words.
    `names` (optional, per seat) adds the asker's name after its seat number."""
    who = f"seat {report.seat + 1}"
    if names and report.seat < len(names) and names[report.seat]:
        who += f" ({names[report.seat]})"
    lines = [f"Hints for {who} ({plural(report.iterations, 'iteration')}, "
             f"{report.time_ms / 1000:.2f} s):"]
    for h in report.hints:
        lines.append(f" {h.rank}. {h.tokens}")
        lines.append(f"    win {100 * h.win:.0f}%, expected score {h.score:.1f} VP, "
                     f"{plural(h.visits, 'visit')}")
        lines.append(f"    {h.explanation}")
    if not report.hints:
        lines.append(" (the search found no candidate: give it more time)")
    return lines
