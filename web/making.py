"""A game's session from its settings: a new game from the page's form, a rematch, a record
loaded, or a game brought back from the database after a restart all go through here.

The settings are plain JSON (what the database keeps): the players (a person, or an engine
by name: the engine's command always comes from the server's configuration), the names,
the deal number, the search budget, the rule options, and whether every person plays at
one device (`shared`, pass-the-device) or each at their own with a link.
"""

from __future__ import annotations

from engine.errors import PalaisError
from engine.options import RuleOptions
from play.game import PlayGame
from play.seats import SeatSpec
from search.params import SearchLimits
from tournament.engines import EngineSpecError, check_name

from .config import BUILTIN_PLAYERS
from .credentials import SeatKeys
from .inputs import int_field
from .session import GameSession, Refused

MAX_NAME = 24


def seat_specs(config, players) -> tuple:
    """(SeatSpecs, kinds) of a list of players, {"kind": "human"} or {"kind": "engine", "name"}."""
    if not isinstance(players, list) or not 2 <= len(players) <= 4:
        raise Refused("players: expected a list of 2 to 4 seats")
    specs, kinds = [], []
    for q, player in enumerate(players):
        kind = player.get("kind") if isinstance(player, dict) else None
        if kind == "human":
            specs.append(SeatSpec("human"))
            kinds.append("human")
            continue
        name = player.get("name") if kind == "engine" else None
        if kind != "engine" or not isinstance(name, str):
            raise Refused(f"players[{q}]: expected {{\"kind\": \"human\"}} or "
                          f"{{\"kind\": \"engine\", \"name\": NAME}}")
        engine = config.engine(name)
        if name in BUILTIN_PLAYERS:
            specs.append(SeatSpec(name))
        elif engine is not None:
            specs.append(SeatSpec("cmd", engine.cmd, engine.options))
        else:
            raise Refused(f"players[{q}]: no player {name[:40]!r} "
                          f"(players: {', '.join(config.player_names())})")
        kinds.append(name)
    return specs, kinds


def levels_of(config, players) -> list:
    """Per seat, the strength level (web/levels.py) an engine seat was chosen by, or None:
    an engine entry may say {"kind": "engine", "name": "ismcts", "level": "club"}, and the
    level must be one of LEVELS whose player is that name (the page then names the seat by
    its level, "Club (engine)")."""
    from .levels import LEVELS
    by_id = {level.id: level for level in LEVELS}
    out = []
    for q, player in enumerate(players):
        level = player.get("level") if isinstance(player, dict) else None
        if level is not None and (player.get("kind") != "engine" or level not in by_id
                                  or by_id[level].player != player.get("name")):
            raise Refused(f"players[{q}].level: expected one of {', '.join(by_id)}, "
                          "for an engine seat of that level's player")
        out.append(level)
    return out


def players_of(kinds) -> list:
    return [{"kind": "human"} if k == "human" else {"kind": "engine", "name": k} for k in kinds]


def seat_names(names, kinds) -> list:
    if names is None:
        return [f"Player {q + 1}" if k == "human" else k for q, k in enumerate(kinds)]
    if not isinstance(names, list) or len(names) != len(kinds):
        raise Refused(f"names: expected a list of {len(kinds)} names or null")
    for q, name in enumerate(names):
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
            raise Refused(f"names[{q}]: expected a name of 1..{MAX_NAME} characters")
        try:
            check_name(name)
        except EngineSpecError as exc:
            raise Refused(f"names[{q}]: {exc}") from None
    return list(names)


def settings_of(config, data: dict) -> dict:
    """The settings a new game's request asks for, each field checked (Refused naming it)."""
    _, kinds = seat_specs(config, data.get("players"))
    levels = levels_of(config, data.get("players"))
    first_game = data.get("first_game", False)
    if not isinstance(first_game, bool):
        raise Refused("first_game: expected true or false")
    shared = data.get("shared", False)
    if not isinstance(shared, bool):
        raise Refused("shared: expected true (every person at this device) or false (a link each)")
    seed = int_field(data, "seed", 0, 2 ** 63 - 1)
    if seed is None:
        seed = config.seeds.randrange(2 ** 31)
    budget = int_field(data, "budget_ms", config.budget_ms_min, config.budget_ms_max,
                       config.budget_ms_default)
    options = data.get("options") or {}
    try:
        options = RuleOptions.from_dict(options).to_dict()
    except (PalaisError, TypeError) as exc:
        raise Refused(f"options: {exc}") from None
    return {"players": players_of(kinds), "names": seat_names(data.get("names"), kinds),
            "seed": seed, "budget_ms": budget, "options": options, "first_game": first_game,
            "shared": shared, "from_record": False, "levels": levels}


def new_play_game(settings: dict) -> PlayGame:
    """A fresh game (a fresh draw secret) of `settings`."""
    return PlayGame.new(len(settings["players"]), settings["seed"], settings["names"],
                        options=RuleOptions.from_dict(settings["options"]),
                        first_game=settings["first_game"])


def make_session(server, game_id: str, settings: dict, game: PlayGame, keys: SeatKeys) -> GameSession:
    """The session of `game` under `settings`, its engine seats started (EngineFailed if one
    will not start)."""
    config = server.config
    specs, kinds = seat_specs(config, settings["players"])
    return GameSession(game_id, game, kinds, specs, SearchLimits(time_ms=settings["budget_ms"]),
                       game.seed, from_record=settings.get("from_record", False),
                       clock=config.clock, engine_restarts=config.engine_restarts,
                       open_seat=server.open_seat, keys=keys, shared=settings["shared"],
                       settings=settings, on_change=server.store.saved,
                       on_conflict=getattr(server.store, "refresh", None))


def create(server, settings: dict, game: PlayGame | None = None, keys: SeatKeys | None = None):
    """A new game in the store: (session, keys per seat (None for engines), owner key). With
    `keys` given (a rematch), the people keep their keys and no new ones are made."""
    fresh, owner = [], None
    if keys is None:
        keys, fresh, owner = SeatKeys.new([p["kind"] == "human" for p in settings["players"]])
    game = game or new_play_game(settings)
    session = server.store.create(lambda game_id: make_session(server, game_id, settings, game, keys))
    return session, fresh, owner
