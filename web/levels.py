"""The strength levels the new-game dialog offers (Beginner, Club, Strong, Maximum): each a
built-in player and a time per turn, chosen by measurement (docs/web.md, "Strength levels":
the candidate players met each other at each level's budget, and the one that scored best
plays that level; on a tie, the engine palais-engine plays). The page shows the level's label; the game is made with its player and
budget like any other engine seat. The default is the medium level, "club"."""

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


# Measured on the 2-core development machine (docs/web.md, "Strength levels", gives the
# figures and the commands): at each budget the built-in players met over rotated deals, 2
# players; a level takes the one with the higher win share; on equal shares, the engine
# palais-engine plays (ismcts), so the browser's levels are the engine at different budgets
# (the mean VP of 8 games is no tie-break: 102 against 108 is well inside its noise).
#   50 ms:   ismcts 4-0 greedy (VP 158.0 to 49.8); ismcts 2-2 pimc (VP 115.8 to 101.2)
#   250 ms:  ismcts 4-4 pimc (VP 102.1 to 108.0)
#   1000 ms: ismcts 3-1 pimc (VP 128.5 to 93.0)
#   3000 ms: not measured (2 games would take about 17 CPU minutes): the winner at 1000 ms
LEVELS = (
    Level("beginner", "ismcts", 50),
    Level("club", "ismcts", 250, default=True),
    Level("strong", "ismcts", 1000),
    Level("maximum", "ismcts", 3000),
)


def levels_json(budget_min: int, budget_max: int) -> list:
    """The levels for /api/meta, each budget kept within the server's limits."""
    return [{"id": level.id, "label": level.label, "help": level.help, "player": level.player,
             "budget_ms": max(budget_min, min(budget_max, level.budget_ms)), "default": level.default}
            for level in LEVELS]
