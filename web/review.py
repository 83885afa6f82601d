"""Hints and review analysis for `palais serve`, as the page reads them (docs/web.md).

The cores are play/'s, reused: play/hints.py's find_hints (from the asking seat's view only)
and play/analyse.py's Analyser / analyse_game. This module only turns their results into
the API's JSON.
"""

from __future__ import annotations

from common.seat_numbers import seat_number
from engine.notation import action_to_token, turn_to_text
from play.analyse import seat_summary

from .views import turn_steps


def hints_json(report, state, languages=()) -> dict:
    """The hints of `report`, searched from `state` (the asking seat's view): each with its
    actions in notation and as steps (views.step_json), for the page's words and badges, and
    its explanation in the language asked for ("explanation") and in each of `languages`
    ("explanations", by code), so a page that changes language redraws a hint shown in the
    new one without searching again."""
    from engine.views import view_for
    from play.explain import explain
    view = view_for(state, report.seat)           # the words use what the seat may know only
    return {"hints": [{"rank": h.rank, "turn": h.tokens, "actions": [action_to_token(a) for a in h.turn],
                       "steps": turn_steps(state, h.turn),
                       "win": round(h.win, 4), "score": round(h.score, 2),
                       "explanation": h.explanation,
                       "explanations": {lang: explain(view, h.turn, report.seat, lang)
                                        for lang in languages}} for h in report.hints],
            "iterations": report.iterations}


def best_steps(start, actions, analyses) -> list:
    """Each analysed turn's preferred line as steps (views.step_json), played from the
    position where that turn starts (the game from `start` through `actions`), for the page
    to say in words."""
    state, done, out = start.copy(), 0, []
    for t in sorted(analyses, key=lambda t: t.ply):
        for action in actions[done:t.ply]:
            state.apply(action)
        done = max(done, t.ply)
        out.append((t.ply, turn_steps(state, t.best)))
    by_ply = dict(out)
    return [by_ply[t.ply] for t in analyses]


def analysis_json(n_players: int, analyses, observer: int = -1, best_steps_of=None) -> dict:
    """Each analysed turn with every seat's win probability before and after it: "before" is
    the previous analysed turn's "after" (an even share for the first); all from one
    observer ("observer": "full", every hand open, or the seat number of a seat's view); each
    seat's mistakes, blunders and accuracy. With `best_steps_of` (best_steps), each turn has
    its preferred line as steps too ("best_steps"), for the chart's words."""
    turns = []
    before = [round(1 / n_players, 4)] * n_players
    for t in analyses:
        after = [round(w, 4) for w in t.win_after]
        turns.append({"ply": t.ply, "seat": seat_number(t.seat), "round": t.round,
                      "tokens": turn_to_text(t.played), "win_before": before, "win_after": after,
                      "loss": round(t.loss, 4), "accuracy": round(t.accuracy, 1), "mark": t.verdict or None,
                      "best": turn_to_text(t.best), "explanation": t.explanation})
        if best_steps_of is not None:
            turns[-1]["best_steps"] = best_steps_of[len(turns) - 1]
        before = after
    seats = [seat_summary(analyses, q) for q in range(n_players)]
    return {"turns": turns, "observer": "full" if observer < 0 else seat_number(observer),
            "seats": [s for s in seats if s is not None]}
