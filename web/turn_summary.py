"""What a turn changed, in one line's worth of facts: the turn log's summary.

The page's log shows each turn as one line of what changed (servants placed in the setup,
cards played, servants moved,
nobles recruited and their VP, bonuses taken, gold, cards drawn) with its steps one click
away. The facts are counted here from the turn's steps and the public state before and
after it, language-free (codes and numbers); web/static/words.js says them in the page's
language. Only what every seat sees is used: a hidden draw counts as a card drawn.

    turn_summary(before, after, seat, steps, honour_vp)
      -> {"placed": [], "recruited": [{"number": 25, "vp": 3}], "played": ["HONOUR"], "moves": 3,
          "gate": 0, "bonuses": ["KING"], "gold": -4, "drawn": 1, "honour_vp": 3}
"""

from __future__ import annotations


def turn_summary(before, after, seat: int, steps: list, honour_vp: int) -> dict:
    """The facts of one turn of `seat` (0-based): `before` and `after` are the state's
    snapshots around it, `steps` its steps (web.views.step_json). Lists keep the order
    played; "gold" is the net change (income and spending together)."""
    kinds = [step["kind"] for step in steps]
    placed = {}                                   # setup placements by room, in order
    for step in steps:
        if step["kind"] == "room" and step.get("stage") == "SETUP":
            placed[step["room"]] = placed.get(step["room"], 0) + 1
    return {
        "placed": [{"room": room, "n": n} for room, n in placed.items()],
        "recruited": [{"number": step["tile"]["number"], "vp": step["tile"]["vp"]}
                      for step in steps if step["kind"] == "recruit" and step.get("tile")],
        "played": [step["card"] for step in steps if step["kind"] == "play"],
        "moves": kinds.count("move"),
        "gate": sum(step["count"] for step in steps if step["kind"] == "gate"),
        "bonuses": [step["bonus"] for step in steps if step["kind"] == "take" and step.get("bonus")],
        "gold": after.gold[seat] - before.gold[seat],
        "drawn": kinds.count("draw"),
        "honour_vp": honour_vp,
    }
