"""Fuzzing palais's untrusted inputs: position strings and game records.

Valid material (positions of seeded random games, full and seen from a seat, and records of
their openings) is mutated: truncated, numbers replaced by huge, negative and boundary
values, stages and fields changed, fields swapped or dropped, bytes that are not UTF-8,
very long runs. Each case is read as a user's input is read (strict UTF-8 decoding, then
parse_position or read_record + replay). The only outcomes allowed:

- a clean PalaisError (NotationError, ...): counted as an error of its kind;
- an accepted position, which must then take a short ISMCTS search (when a seat is to move
  and may be searched for) and be played to its end by a random playout.

Anything else (another exception, a playout that does not end, a crash of the process) is a
bug. tests/test_fuzz.py runs a fixed number of cases; this script runs as many as asked:

    python bench/fuzz.py --cases 100000 --seed 7

It prints the counts, the errors by kind, and last the line
`cases=<N> accepted=<A> played=<P> errors=<E>`.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass, field

# bench/search.py would shadow the search package when this runs as a script
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from common.files import decode_text
from engine.constants import STAGES
from engine.errors import PalaisError
from engine.position import FIELDS, position_to_string, state_from_position
from engine.random_play import random_action
from engine.record import STANDARD_HEADERS, read_record, record_from_actions, replay, write_record
from engine.rng import Rng
from engine.state import State

BOUNDARY = ("0", "1", "2", "3", "4", "5", "7", "8", "9", "12", "13", "24", "25", "26", "35",
            "36", "42", "48", "60", "72", "100", "126", "127", "128", "200", "201", "255",
            "256", "1000000", "1000001", "2147483647", "2147483648", "4294967296",
            "9223372036854775808", "18446744073709551616", "-0", "-1", "-128", "-2147483649")
HUGE = "9" * 5000
LONG_RUN_CHARS = ("9", "/", ".", ",", "a", "?", " ", "=", ":", "s1", "\n", "0.")
BAD_BYTES = (b"\xff", b"\xfe\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80", b"\xf4\x90\x80\x80")
_NUMBER = re.compile(r"-?[0-9]+")


@dataclass
class Material:
    """Valid inputs to mutate: position strings and record texts."""

    positions: list = field(default_factory=list)
    records: list = field(default_factory=list)


def build_material(seed: int, games: int = 8) -> Material:
    """Positions along seeded random games (full state and each seat's view, at several
    points of each game, the setup and the end included) and records of their openings."""
    out = Material()
    for g in range(games):
        n = 2 + g % 3
        rng = Rng(seed * 1_000 + g)
        state = State.new_game(n, seed=seed * 1_000 + g, first_game=g % 2 == 0)
        actions = []
        stops = sorted({rng.below(400) for _ in range(6)} | {0})
        while not state.is_terminal() and len(actions) <= stops[-1]:
            if len(actions) in stops:
                out.positions.append(position_to_string(state))
                for seat in range(n):
                    out.positions.append(position_to_string(state.view(seat)))
            action = random_action(state, rng)
            actions.append(action)
            state.apply(action)
        out.records.append(write_record(record_from_actions(n, actions, seed=seed * 1_000 + g,
                                                            first_game=g % 2 == 0)))
        final = state.copy()
        final.playout(rng)
        out.positions.append(position_to_string(final))
    return out


# ---------------------------------------------------------------------- mutations
# Each takes (text, rng) and returns text, or bytes for the ones that break the encoding.

def _pick(rng: Rng, seq):
    return seq[rng.below(len(seq))]


def _numbers(text: str) -> list:
    """The numbers of `text` short enough to do arithmetic on."""
    return [m for m in _NUMBER.finditer(text) if len(m.group()) <= 20]


def truncate(text: str, rng: Rng) -> str:
    return text[:rng.below(len(text) + 1)]


def replace_number(text: str, rng: Rng) -> str:
    spots = _numbers(text)
    if not spots:
        return text
    m = _pick(rng, spots)
    choice = rng.below(4)
    if choice == 0:
        new = HUGE
    elif choice == 1:
        new = _pick(rng, BOUNDARY)
    else:                              # a near miss: one more or one less
        new = str(int(m.group()) + (1 if choice == 2 else -1))
    return text[:m.start()] + new + text[m.end():]


def nudge_numbers(text: str, rng: Rng) -> str:
    """Several numbers off by one: small, plausible damage that often passes the syntax."""
    for _ in range(1 + rng.below(3)):
        spots = _numbers(text)
        if not spots:
            break
        m = _pick(rng, spots)
        text = text[:m.start()] + str(max(0, int(m.group()) + _pick(rng, (-1, 1)))) + text[m.end():]
    return text


def change_stage(text: str, rng: Rng) -> str:
    return re.sub(r"stage=\w+", f"stage={_pick(rng, STAGES)}", text, count=1)


def change_seat_or_round(text: str, rng: Rng) -> str:
    key = _pick(rng, ("seat", "round", "setup", "last", "view", "players"))
    return re.sub(rf"\b{key}=[^ ]+", f"{key}={_pick(rng, BOUNDARY[:12] + ('-',))}", text, count=1)


def set_counter(text: str, rng: Rng) -> str:
    """A value that keeps the accounting intact: a turn counter, gold, round, seat or stage
    set to a boundary value, so the case often passes the syntax and reaches the core."""
    if not text.startswith("pr1"):
        return replace_number(text, rng)
    spots = list(re.finditer(r"(?<=[:=/])[0-9]+(?=[, /]|$)", text.split(" park=")[0])) + [
        m for m in re.finditer(r"(?<=:)[0-9]+", text) if text.rfind(" turn=", 0, m.start()) > 0]
    if not spots or rng.below(4) == 0:
        return change_stage(text, rng)
    m = _pick(rng, spots)
    return text[:m.start()] + _pick(rng, BOUNDARY[:20]) + text[m.end():]


def _fields(text: str) -> list:
    return text.split(" ")


def swap_fields(text: str, rng: Rng) -> str:
    """Two key=value fields exchange their values (or, for a record, two lines swap)."""
    if not text.startswith("pr1"):
        lines = text.split("\n")
        i, j = rng.below(len(lines)), rng.below(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines)
    items = _fields(text)
    if len(items) < 3:
        return text
    i, j = 1 + rng.below(len(items) - 1), 1 + rng.below(len(items) - 1)
    ki, _, vi = items[i].partition("=")
    kj, _, vj = items[j].partition("=")
    items[i], items[j] = f"{ki}={vj}", f"{kj}={vi}"
    return " ".join(items)


def drop_or_repeat_field(text: str, rng: Rng) -> str:
    parts = text.split("\n") if not text.startswith("pr1") else _fields(text)
    sep = "\n" if not text.startswith("pr1") else " "
    i = rng.below(len(parts))
    if rng.below(2):
        del parts[i]
    else:
        parts.insert(rng.below(len(parts) + 1), parts[i])
    return sep.join(parts)


def change_field_entry(text: str, rng: Rng) -> str:
    """One separator-delimited entry of a field emptied, doubled or replaced by junk."""
    spots = list(re.finditer(r"[^ /,.:=\n\"]+", text))
    if not spots:
        return text
    m = _pick(rng, spots)
    new = _pick(rng, ("", m.group() * 2, "?", "s9", "s0", "-", "x", "?99", "park", "GATE",
                      "f7", "a0", ".", "0:?", "%FF", "%"))
    return text[:m.start()] + new + text[m.end():]


def long_run(text: str, rng: Rng) -> str:
    at = rng.below(len(text) + 1)
    return text[:at] + _pick(rng, LONG_RUN_CHARS) * (2_000 + rng.below(20_000)) + text[at:]


def bad_bytes(text: str, rng: Rng) -> bytes:
    raw = text.encode("utf-8")
    at = rng.below(len(raw) + 1)
    return raw[:at] + _pick(rng, BAD_BYTES) + raw[at:]


MUTATIONS = (truncate, replace_number, replace_number, nudge_numbers, nudge_numbers,
             change_stage, change_seat_or_round, swap_fields, drop_or_repeat_field,
             change_field_entry, change_field_entry, long_run, bad_bytes)
PLAUSIBLE = (set_counter, set_counter, change_stage, nudge_numbers)


def mutate(text: str, rng: Rng):
    """One to three mutations in a row, a third of the time only plausible ones (values
    that keep the syntax and the accounting); the result is text, or bytes once broken."""
    kinds = PLAUSIBLE if rng.below(3) == 0 else MUTATIONS
    for _ in range(1 + rng.below(3)):
        if isinstance(text, bytes):
            break
        text = _pick(rng, kinds)(text, rng)
    return text


# ---------------------------------------------------------------------- running a case

@dataclass
class Tally:
    cases: int = 0
    accepted: int = 0
    searched: int = 0
    played: int = 0
    errors: Counter = field(default_factory=Counter)

    @property
    def n_errors(self) -> int:
        return sum(self.errors.values())


def error_kind(exc: PalaisError) -> str:
    """The exception class and, when the message names one, the field or header at fault."""
    m = re.search(r"field '(\w+)'|header '(\w+)'|(not UTF-8)|(token)", str(exc))
    detail = next((g for g in m.groups() if g), "") if m else ""
    if detail and detail not in FIELDS + STANDARD_HEADERS + ("not UTF-8", "token"):
        detail = "unknown field or header"
    return f"{type(exc).__name__} {detail}".strip()


def read_case(data, is_record: bool):
    """The state a case leads to, as a user's input is read; PalaisError if refused."""
    text = decode_text(data, "<case>") if isinstance(data, bytes) else data
    if is_record:
        return replay(read_record(text))
    return state_from_position(text)


def drive(state, seed: int, search_iterations: int) -> bool:
    """A short ISMCTS search (when a seat is to move and its view can be searched), then a
    random playout to the end. True when the search ran."""
    from search.mcts import MCTSSearch
    from search.params import SearchLimits, SearchParams
    searched = False
    seat = state.to_move
    if (search_iterations and not state.is_terminal() and not state.is_chance()
            and state.observer in (-1, seat)):
        result = MCTSSearch(SearchParams(seed=seed, hash_mb=1)).search(
            state, limits=SearchLimits(iterations=search_iterations))
        assert result.best_turn, "the search found no turn"
        searched = True
    game = state.copy()
    rng = Rng(seed)
    steps = 0
    while not game.is_terminal():
        game.apply(random_action(game, rng))
        steps += 1
        assert steps < 200_000, "the playout does not end"
    return searched


def run(cases: int, seed: int, search_every: int = 1, search_iterations: int = 24,
        material: Material | None = None, on_case=None) -> Tally:
    """Run `cases` mutated inputs; every `search_every`-th accepted one is also searched.
    A case whose outcome is not allowed raises (AssertionError or the exception itself),
    naming the case number and input."""
    material = material or build_material(seed)
    rng = Rng(seed)
    tally = Tally()
    for i in range(cases):
        is_record = rng.below(4) == 0
        base = _pick(rng, material.records if is_record else material.positions)
        data = mutate(base, rng)
        tally.cases += 1
        try:
            state = read_case(data, is_record)
        except PalaisError as exc:
            tally.errors[error_kind(exc)] += 1
            continue
        except Exception as exc:
            raise AssertionError(f"case {i}: {type(exc).__name__}: {exc}\ninput: {data[:2000]!r}") from exc
        tally.accepted += 1
        search = search_iterations if tally.accepted % search_every == 0 else 0
        try:
            tally.searched += drive(state, seed * 7_919 + i, search)
        except Exception as exc:
            raise AssertionError(f"case {i}: accepted, then {type(exc).__name__}: {exc}\n"
                                 f"input: {data[:2000]!r}") from exc
        tally.played += 1
        if on_case:
            on_case(i, tally)
    return tally


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--search-every", type=int, default=1,
                        help="search every N-th accepted case (1: all)")
    parser.add_argument("--iterations", type=int, default=24, help="ISMCTS iterations per search")
    args = parser.parse_args(argv)
    from engine._buildinfo import CHECKED
    tally = run(args.cases, args.seed, args.search_every, args.iterations)
    print(f"build: {'checked' if CHECKED else 'fast'}  seed: {args.seed}")
    print(f"cases: {tally.cases}")
    print(f"accepted: {tally.accepted} (searched {tally.searched}, played to the end {tally.played})")
    print(f"errors: {tally.n_errors}")
    for kind, count in tally.errors.most_common():
        print(f"  {count:7d}  {kind}")
    print(f"cases={tally.cases} accepted={tally.accepted} played={tally.played} "
          f"errors={tally.n_errors}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
