"""Hidden information in plain Python: a seat's view and determinizations (RULES.md §8).

A *view* keeps the observer's own hand and merges every card he cannot see (other hands and
the draw pile) into one unknown pool, kept in the `deck` field; `deck_size` stays the true
pile size. A *determinization* deals that pool back out: a draw pile and the other hands,
with the sizes everyone knows, such that nothing contradicts the observer's knowledge:

1. the draw pile holds only cards of the current epoch's make-up (the pile at the last
   reshuffle, or the whole set) less the observer's own draws since then;
2. each other seat's draws since the epoch began can be chosen among the cards now in his
   hand or played by him since then (a small flow problem, solved exactly).

Older epochs (before the last reshuffle) are not constrained further; in practice a game has
at most one reshuffle. The Cython state implements the same algorithm, step for step and
with the same random stream, so both implementations give the same world for a seed.
"""

from .constants import N_CARDS
from .errors import PalaisError

MAX_TRIES = 16


def view_snapshot(snap, seat: int):
    if snap.observer >= 0 and snap.observer != seat:
        raise PalaisError(f"a view from seat {snap.observer + 1} cannot be seen from seat {seat + 1}")
    if not 0 <= seat < snap.n_players:
        raise PalaisError(f"no seat {seat + 1} in a {snap.n_players}-player game")
    out = snap.copy()
    for q in range(snap.n_players):
        if q != seat:
            for c in range(N_CARDS):
                out.deck[c] += out.hand[q][c]
                out.hand[q][c] = 0
                out.drawn_t[q][c] = 0
    out.observer = seat
    return out


def weighted_pick(weights, rng) -> int:
    """An index drawn with probability weights[i] / sum(weights)."""
    r = rng.below(sum(weights))
    for i, w in enumerate(weights):
        if r < w:
            return i
        r -= w
    raise AssertionError("unreachable")


def split_epoch_draws(snap, seat, deck, hands):
    """Assign the other seats' draws since the epoch to card types, or None if impossible.

    Supply: the epoch's make-up less the observer's own draws and the sampled pile. Each
    other seat q must have drawn drawn_n[q] of them, each now in his hand or played since.
    Kuhn-style augmenting paths over types and seats, in a fixed order.
    """
    others = [q for q in range(snap.n_players) if q != seat]
    flow = {q: [0] * N_CARDS for q in others}
    used = {q: 0 for q in others}
    capacity = {q: [hands[q][c] + snap.played_since[q][c] for c in range(N_CARDS)] for q in others}

    def augment(c, seen):
        for q in others:
            if q in seen or flow[q][c] >= capacity[q][c]:
                continue
            seen.add(q)
            if used[q] < snap.drawn_n[q]:
                flow[q][c] += 1
                used[q] += 1
                return True
            for c2 in range(N_CARDS):
                if c2 != c and flow[q][c2] > 0 and augment(c2, seen):
                    flow[q][c2] -= 1
                    flow[q][c] += 1
                    return True
        return False

    for c in range(N_CARDS):
        supply = snap.epoch[c] - snap.drawn_t[seat][c] - deck[c]
        for _ in range(supply):
            if not augment(c, set()):
                return None
    if any(used[q] != snap.drawn_n[q] for q in others):
        return None
    return flow


def determinize_snapshot(snap, seat: int, rng):
    if snap.observer >= 0 and snap.observer != seat:
        raise PalaisError(f"a view from seat {snap.observer + 1} cannot be determinized for seat {seat + 1}")
    others = [q for q in range(snap.n_players) if q != seat]
    pool = [snap.deck[c] + sum(snap.hand[q][c] for q in others) for c in range(N_CARDS)]
    cap = [min(pool[c], snap.epoch[c] - snap.drawn_t[seat][c]) for c in range(N_CARDS)]
    for attempt in range(MAX_TRIES):
        remaining = list(pool)
        deck_cap = list(cap)
        deck = [0] * N_CARDS
        for _ in range(snap.deck_size):
            c = weighted_pick(deck_cap, rng)
            deck[c] += 1
            deck_cap[c] -= 1
            remaining[c] -= 1
        hands = {}
        for q in others:
            row = [0] * N_CARDS
            for _ in range(snap.hand_size[q]):
                c = weighted_pick(remaining, rng)
                row[c] += 1
                remaining[c] -= 1
            hands[q] = row
        flow = split_epoch_draws(snap, seat, deck, hands)
        if flow is not None:
            break
    out = snap.copy()
    out.observer = -1
    out.deck = deck
    for q in others:
        out.hand[q] = hands[q]
        out.drawn_t[q] = flow[q] if flow is not None else [0] * N_CARDS
    return out
