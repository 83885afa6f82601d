"""The strength levels the new-game dialog offers (Beginner, Club, Strong, Maximum): each a
built-in player and a time per turn, chosen by measurement (docs/web.md, "Strength levels":
each level met the one below it over rotated deals). The page shows the level's label; the
game is made with its player and budget like any other engine seat. The default is the
second level, "club"."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    id: str
    player: str              # a built-in player (web/config.py BUILTIN_PLAYERS)
    budget_ms: int           # the engine's time per turn at this level
    default: bool = False

    @property
    def label(self) -> str:
        """The msgid of its name (the page's catalog, context "level")."""
        return f"level:{self.id}"

    @property
    def help(self) -> str:
        return f"level-help:{self.id}"


# Measured on the 2-core development machine after issue 36's speed fix (docs/web.md,
# "Strength levels", gives the figures and the commands): each level against the one below
# it, 100 games of 2 players over rotated deals (bench/tune.py). Beginner must be a level a
# newcomer can beat: it loses at least a fifth of its games to greedy, and only greedy (or
# random) does among the built-in players at the server's least budget (ismcts at 50 ms won
# all 100 games against it). Above Club, time buys little today (issue 36, item 4): Strong and
# Maximum think longer without a measured gap yet.
#   beginner  greedy         against greedy: 0.500 (the same player, seats swapped)
#   club      ismcts 50 ms   against greedy: 1.000 [0.963, 1.000], VP 157.3 to 42.4
#   strong    ismcts 250 ms  against ismcts 50 ms: 0.530 [0.433, 0.625], VP 113.5 to 109.0
#   maximum   ismcts 1 s     against ismcts 250 ms: 0.530 [0.433, 0.625], VP 111.8 to 110.0
LEVELS = (
    Level("beginner", "greedy", 50),
    Level("club", "ismcts", 50, default=True),
    Level("strong", "ismcts", 250),
    Level("maximum", "ismcts", 1000),
)


def levels_json(budget_min: int, budget_max: int) -> list:
    """The levels for /api/meta, each budget kept within the server's limits."""
    return [{"id": level.id, "label": level.label, "help": level.help, "player": level.player,
             "budget_ms": max(budget_min, min(budget_max, level.budget_ms)), "default": level.default}
            for level in LEVELS]
