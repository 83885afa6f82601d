"""Game records (like chess PGN): a game's setup and every action, as text (docs/notation.md).

    [Game "Palais Royal"]
    [Players "3"]
    ...
    [Winners "1"]

    0.1: MINT MINT KING GATE OFFICE
    ...
    1.1: continue gate2 MINT-KING end ?GOLD

Header lines `[Key "value"]` come first, then a blank line, then the actions, one turn per
line, each line prefixed by `<round>.<seat>:` (setup placements are round 0). A turn runs
from a seat's TURN_START to the next seat's, chance outcomes included (`?GOLD`; `?` for
another seat's draw in a record seen from one seat, header `View`).

`GameRecord` holds a record; `write_record` / `read_record` convert it to and from text,
`record_from_actions` makes one from a game's actions, and `replay` plays one back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from common.numbers import natural, shown

from .components import ComponentSet, default_components
from .constants import (FIRST_GAME_LAYOUT, MAX_PLAYERS, MIN_PLAYERS, N_ROOMS, N_SQUARES, ROOM_INDEX,
                        ROOMS, layout_text)
from .deal import make_deal
from .errors import NotationError, PalaisError
from .notation import action_to_token, legal_text, parse_turn
from .options import RuleOptions

GAME_NAME = "Palais Royal"
# The headers this module reads and writes, in the order it writes them. Any other header
# is kept as it is in GameRecord.headers and written after these.
STANDARD_HEADERS = ("Game", "Players", "Names", "Seed", "Set", "Options", "Layout", "Deal",
                    "FirstGame", "View", "Scores", "Winners")
REQUIRED_HEADERS = ("Game", "Players", "Set")

# Possessive quantifiers (`*+`, `++`): the matcher keeps no backtracking point per character,
# so a header costs time and memory linear in its length (the plain `(?:[^"\\]|\\.)*` kept
# one per character: about 170 bytes each, 2.6 GB for a 15 MB header).
_HEADER_LINE = re.compile(r'\[([A-Za-z][A-Za-z0-9_]*)\s++"((?:[^"\\]++|\\.)*+)"\]')
MAX_HEADER_CHARS = 65_536    # one header line; far above any real one (a Deal is ~100)
_TURN_LINE = re.compile(r"([0-9]+)\.([0-9]+):(.*)")
MAX_ROUND_LABEL = 10_000     # far above any game's rounds (at most 200)
MAX_SEED = 2 ** 64 - 1       # deal seeds are 64-bit (engine/rng.py)
MAX_SCORE = 100_000          # far above any game's score


@dataclass
class GameRecord:
    """One game: its setup, its actions and any extra headers.

    Seats and tiles are 0-based here (as in the rules core) and 1-based / printed in the text.
    `options` holds only the rule options that differ from the defaults. `scores` and
    `winners` are set when the actions end the game (record_from_actions fills them in).
    """

    n_players: int
    layout: list                        # 9 room indices, grid order (row 1 next to the park)
    deal: list                          # 36 tile indices (0-based) on squares a1..f6
    actions: list = field(default_factory=list)
    seed: int | None = None
    set_name: str = field(default_factory=lambda: default_components().name)
    options: dict = field(default_factory=dict)
    names: list = field(default_factory=list)
    first_game: bool = False
    observer: int = -1                  # >= 0: the record as this seat saw it (header View)
    game: str = GAME_NAME
    scores: list | None = None
    winners: list | None = None         # seats (0-based) sharing the win
    headers: dict = field(default_factory=dict)   # extra headers, kept in order
    # Where each action and header came from in the text read (for replay's messages).
    source: "_Source | None" = field(default=None, compare=False, repr=False)

    def rule_options(self) -> RuleOptions:
        return RuleOptions.from_dict(self.options)


@dataclass
class _Source:
    actions: list        # per action: (line number, token number, round, seat)
    headers: dict        # header name -> line number


def _non_default(options) -> dict:
    """The options that differ from the defaults, by name, in RuleOptions field order."""
    return {} if options is None else RuleOptions.from_dict(options).changed()


def _components_for(rec: GameRecord, components: ComponentSet | None) -> ComponentSet:
    comps = components or default_components()
    if comps.name != rec.set_name:
        raise NotationError(f"the record is for component set {rec.set_name!r}, but the "
                            f"components given are {comps.name!r} (pass that set as components)")
    return comps


# ======================================================================================
# Making and replaying records

def record_from_actions(n_players: int, actions, seed: int | None = 0,
                        components: ComponentSet | None = None, options=None,
                        first_game: bool = False, deal=None, layout=None, names=None,
                        headers=None, observer: int = -1, impl=None) -> GameRecord:
    """A record of the game started like `new_game(n_players, seed, ..., deal, layout)`.

    The actions are replayed (so an illegal one raises NotationError) and, when they end the
    game, the scores and winners are filled in.
    """
    comps = components or default_components()
    deal, layout = make_deal(len(comps.tiles), seed or 0, first_game, deal, layout)
    rec = GameRecord(n_players=n_players, layout=list(layout), deal=list(deal),
                     actions=[int(a) for a in actions], seed=seed, set_name=comps.name,
                     options=_non_default(options), names=list(names or []),
                     first_game=bool(first_game), observer=observer,
                     headers=dict(headers or {}))
    final = replay(rec, impl, comps)
    if final.is_terminal():
        rec.scores, rec.winners = _result(final)
    return rec


def _result(state) -> tuple[list, list]:
    returns = state.returns()
    return list(state.scores()), [q for q in range(state.n_players) if returns[q] > 0]


def _start_state(rec: GameRecord, impl, comps: ComponentSet):
    if impl is None:
        from .state import State as impl
    try:
        options = rec.rule_options()
        state = impl.new_game(rec.n_players, rec.seed or 0, comps, options,
                              rec.first_game, deal=rec.deal, layout=rec.layout)
        if rec.observer >= 0:
            state = state.view(rec.observer)
    except PalaisError as exc:
        raise NotationError(f"the record's setup cannot start a game: {exc}") from None
    return state


def _play(rec: GameRecord, impl, comps: ComponentSet, before=None):
    """Replay the record, calling before(state, action) ahead of each action; return the end.

    Each action must be legal, and (for a record read from text) the turn its line is
    labelled with must be the turn the game is in.
    """
    state = _start_state(rec, impl, comps)
    where = rec.source.actions if rec.source else []
    if len(where) != len(rec.actions):
        where = None            # not read from text, or changed since
    for i, a in enumerate(rec.actions):
        token = action_to_token(a)
        if where:
            line, tok_no, round_, seat = where[i]
            place = f"line {line}, token {tok_no} {token!r}"
            now = (state.snapshot().round, state.to_move)
            if (round_, seat) != now and not state.is_terminal():
                raise NotationError(f"{place}: the line is labelled {round_}.{seat + 1}, but the "
                                    f"game is at {now[0]}.{now[1] + 1} (round.seat) here")
        else:
            place = f"action {i + 1} {token!r}"
        if a not in state.legal_actions():
            raise NotationError(f"{place}: not legal here; legal: {legal_text(state)}")
        if before:
            before(state, a)
        state.apply(a)
    return state


def replay(rec: GameRecord, impl=None, components: ComponentSet | None = None):
    """Play every action of a record from its setup; returns the final state.

    `impl` is the state class (default: the Cython engine.state.State). Raises NotationError
    naming the line and token (or the action number) of the first illegal action, and when
    the record's Scores / Winners do not match the game's end.
    """
    final = _play(rec, impl, _components_for(rec, components))
    if rec.scores is not None or rec.winners is not None:
        at = rec.source.headers if rec.source else {}
        line = at.get("Scores", at.get("Winners"))
        place = f"line {line}: " if line else ""
        if not final.is_terminal():
            raise NotationError(f"{place}the record gives a result, but its actions do not "
                                f"end the game")
        scores, winners = _result(final)
        if rec.scores is not None and list(rec.scores) != scores:
            raise NotationError(f"{place}the record says the scores are {_join(rec.scores)}, "
                                f"but the game ends {_join(scores)}")
        if rec.winners is not None and list(rec.winners) != winners:
            raise NotationError(f"{place}the record says the winners are "
                                f"{_join(q + 1 for q in rec.winners)}, but the game's are "
                                f"{_join(q + 1 for q in winners)}")
    return final


# ======================================================================================
# Writing

def _join(values) -> str:
    return ",".join(str(v) for v in values)


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_record(rec: GameRecord, impl=None, components: ComponentSet | None = None) -> str:
    """The record as text. The game is replayed to cut the actions into turns (and to
    write the result when it is over), so an illegal action raises NotationError."""
    comps = _components_for(rec, components)
    for name in rec.names:
        if "," in name or "\n" in name or name != name.strip():
            raise NotationError(f"player name {name!r}: a name cannot hold ',' or a line break, "
                                f"nor start or end with a space")
    for key in rec.headers:
        if key in STANDARD_HEADERS or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", key):
            raise NotationError(f"extra header {key!r}: not a free header name (letters, digits "
                                f"and '_', none of {', '.join(STANDARD_HEADERS)})")
    lines: list[tuple[tuple[int, int], list[str]]] = []     # ((round, seat), tokens)

    def add(state, action):
        label = (state.snapshot().round, state.to_move)
        if not lines or lines[-1][0] != label:
            lines.append((label, []))
        lines[-1][1].append(action_to_token(action))

    final = _play(rec, impl, comps, before=add)

    values = {"Game": rec.game, "Players": str(rec.n_players)}
    if rec.names:
        values["Names"] = ",".join(rec.names)
    if rec.seed is not None:
        values["Seed"] = str(rec.seed)
    values["Set"] = rec.set_name
    values["Options"] = ",".join(f"{k}={v}" for k, v in RuleOptions.from_dict(rec.options or {}).changed_pairs())
    values["Layout"] = layout_text(ROOMS[r] for r in rec.layout)
    values["Deal"] = _join(t + 1 for t in rec.deal)
    values["FirstGame"] = "true" if rec.first_game else "false"
    if rec.observer >= 0:
        values["View"] = str(rec.observer + 1)
    if final.is_terminal():
        scores, winners = _result(final)
        values["Scores"] = _join(scores)
        values["Winners"] = _join(q + 1 for q in winners)
    values.update(rec.headers)
    for key, value in values.items():
        if "\n" in str(value) or "\r" in str(value):
            raise NotationError(f"header {key!r}: a header value cannot hold a line break")
    out = [f"[{key} {_quote(str(value))}]" for key, value in values.items()]
    out.append("")
    out += [f"{round_}.{seat + 1}: {' '.join(tokens)}" for (round_, seat), tokens in lines]
    return "\n".join(out) + "\n"


# ======================================================================================
# Reading

def read_record(text: str, components: ComponentSet | None = None) -> GameRecord:
    """A record from its text, with every line checked for syntax; NotationError names the
    line and why. Legality is checked by replay(). Missing Layout / Deal headers are dealt
    from Seed (and FirstGame) as new_game would."""
    if not isinstance(text, str):
        raise NotationError(f"a game record is text, got {type(text).__name__}")
    comps = components or default_components()
    lines = text.splitlines()
    headers: dict[str, str] = {}
    header_line: dict[str, int] = {}
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    while i < len(lines) and lines[i].strip():
        stripped = lines[i].strip()
        if not stripped.startswith("#"):
            if len(stripped) > MAX_HEADER_CHARS:
                raise NotationError(f"line {i + 1}: a header line of {len(stripped)} characters, "
                                    f"more than the {MAX_HEADER_CHARS} a header may have")
            m = _HEADER_LINE.fullmatch(stripped)
            if not m:
                why = ("a turn line must follow a blank line after the headers"
                       if _TURN_LINE.fullmatch(stripped) else 'expected a header [Key "value"]')
                raise NotationError(f"line {i + 1}: {why}")
            key, value = m.group(1), re.sub(r"\\(.)", r"\1", m.group(2))
            if key in headers:
                raise NotationError(f"line {i + 1}: header {key!r} appears twice "
                                    f"(also line {header_line[key]})")
            headers[key], header_line[key] = value, i + 1
        i += 1
    end_of_headers = i + 1
    for key in REQUIRED_HEADERS:
        if key not in headers:
            raise NotationError(f"line {end_of_headers}: the headers end without {key!r}")
    rec = _record_from_headers(headers, header_line, comps, end_of_headers)
    where: list = []
    last_label = None
    for i in range(i, len(lines)):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            continue
        m = _TURN_LINE.fullmatch(stripped)
        if not m:
            raise NotationError(f"line {i + 1}: expected '<round>.<seat>: <tokens>', got {shown(stripped)}")
        round_, seat = natural(m.group(1)), natural(m.group(2)) - 1
        if round_ > MAX_ROUND_LABEL:
            raise NotationError(f"line {i + 1}: round {shown(m.group(1))} is out of range "
                                f"(0..{MAX_ROUND_LABEL})")
        if not 0 <= seat < rec.n_players:
            raise NotationError(f"line {i + 1}: no seat {seat + 1 if len(m.group(2)) <= 20 else shown(m.group(2))} in a "
                                f"{rec.n_players}-player game")
        label = (round_, seat)
        if last_label is not None and label <= last_label:
            raise NotationError(f"line {i + 1}: turn {round_}.{seat + 1} comes after "
                                f"{last_label[0]}.{last_label[1] + 1}; turns go in order, "
                                f"one line each")
        last_label = label
        try:
            actions = parse_turn(m.group(3))
        except NotationError as exc:
            raise NotationError(f"line {i + 1}, {exc}") from None
        if not actions:
            raise NotationError(f"line {i + 1}: no actions after '{round_}.{seat + 1}:'")
        rec.actions += actions
        where += [(i + 1, k, round_, seat) for k in range(1, len(actions) + 1)]
    rec.source = _Source(actions=where, headers=header_line)
    return rec


def _record_from_headers(h: dict, at: dict, comps: ComponentSet, end: int) -> GameRecord:
    def fail(key: str, why: str):
        raise NotationError(f"line {at[key]}: header {key!r}: {why}")

    def integer(key: str, low: int, high: int) -> int:
        value = natural(h[key])
        if value is None:
            fail(key, f"expected a non-negative integer, got {shown(h[key])}")
        if not low <= value <= high:
            fail(key, f"expected {low}..{high}, got {value if len(h[key]) <= 20 else shown(h[key])}")
        return value

    def integer_text(key: str, text: str, low: int, high: int) -> int:
        text = text.strip()
        value = natural(text)
        if value is None:
            fail(key, f"expected comma-separated non-negative integers, got {shown(text)}")
        if not low <= value <= high:
            fail(key, f"{value if len(text) <= 20 else shown(text)} is out of range ({low}..{high})")
        return value

    n = integer("Players", MIN_PLAYERS, MAX_PLAYERS)
    if h["Set"] != comps.name:
        fail("Set", f"the record is for component set {h['Set']!r}, but the components given "
                    f"are {comps.name!r} (pass that set as components)")
    names = [s.strip() for s in h["Names"].split(",")] if "Names" in h else []
    if "Names" in h and len(names) != n:
        fail("Names", f"expected {n} names separated by ',', got {len(names)}")
    seed = integer("Seed", 0, MAX_SEED) if "Seed" in h else None
    first_game = False
    if "FirstGame" in h:
        if h["FirstGame"].lower() not in ("true", "false"):
            fail("FirstGame", f"expected true or false, got {h['FirstGame']!r}")
        first_game = h["FirstGame"].lower() == "true"
    options = {}
    if h.get("Options", "").strip():
        for item in h["Options"].split(","):
            if "=" not in item:
                fail("Options", f"expected name=value items separated by ',', got {item.strip()!r}")
        try:
            options = RuleOptions.from_items(h["Options"].split(",")).changed()
        except PalaisError as exc:
            fail("Options", str(exc))
    layout = deal = None
    if "Layout" in h:
        rows = h["Layout"].split("/")
        codes = [c.strip().upper() for row in rows for c in row.split(",")]
        if len(rows) != 3 or any(len(row.split(",")) != 3 for row in rows):
            fail("Layout", "expected 3 rows of 3 room codes, rows separated by '/', codes by ','")
        for code in codes:
            if code not in ROOM_INDEX:
                fail("Layout", f"{code!r} is not a room (rooms: {', '.join(ROOMS)})")
        layout = [ROOM_INDEX[c] for c in codes]
        if sorted(layout) != list(range(N_ROOMS)):
            fail("Layout", "each of the 9 rooms must appear exactly once")
        if first_game and layout != list(FIRST_GAME_LAYOUT):
            fail("Layout", "FirstGame is true but this is not the first-game layout")
    if "Deal" in h:
        numbers = h["Deal"].split(",")
        if len(numbers) != N_SQUARES:
            fail("Deal", f"expected {N_SQUARES} tile numbers (squares a1..f6), got {len(numbers)}")
        deal = [integer_text("Deal", t, 1, len(comps.tiles)) - 1 for t in numbers]
        for t in deal:
            if deal.count(t) > 1:
                fail("Deal", f"tile {t + 1} is dealt twice")
    if layout is None or deal is None:
        if seed is None:
            missing = "Layout" if layout is None else "Deal"
            raise NotationError(f"line {end}: no {missing!r} header and no 'Seed' to deal it from")
        try:   # as new_game(n, seed, first_game=..., deal=..., layout=...) would
            deal, layout = make_deal(len(comps.tiles), seed, first_game, deal, layout)
        except PalaisError as exc:
            raise NotationError(f"line {end}: cannot deal from the headers: {exc}") from None
    observer = integer("View", 1, n) - 1 if "View" in h else -1
    scores = [integer_text("Scores", s, 0, MAX_SCORE) for s in h["Scores"].split(",")] if "Scores" in h else None
    if scores is not None and len(scores) != n:
        fail("Scores", f"expected {n} scores separated by ',', got {len(scores)}")
    winners = None
    if "Winners" in h:
        winners = [integer_text("Winners", s, 1, n) - 1 for s in h["Winners"].split(",")]
        if winners != sorted(set(winners)):
            fail("Winners", "expected seats in increasing order, each once")
    extra = {k: v for k, v in h.items() if k not in STANDARD_HEADERS}
    return GameRecord(n_players=n, layout=list(layout), deal=list(deal), actions=[],
                      seed=seed, set_name=h["Set"], options=options, names=names,
                      first_game=first_game, observer=observer, game=h["Game"],
                      scores=scores, winners=winners, headers=extra)


__all__ = ["GameRecord", "write_record", "read_record", "record_from_actions", "replay",
           "STANDARD_HEADERS"]
