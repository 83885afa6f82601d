"""Hidden information in plain Python: a seat's view and determinizations (RULES.md §8).

A *view* keeps the observer's own hand and merges every card he cannot see (other hands and
the draw pile) into one unknown pool, kept in the `deck` field; `deck_size` stays the true
pile size. A *determinization* deals that pool back out: a draw pile and the other hands,
with the sizes everyone knows, such that nothing contradicts the observer's knowledge of
the current epoch (the pile made at the last reshuffle, or the whole set at the start):

Step 1  Split the epoch's cards that the observer did not draw himself (A = make-up less
        his own draws since) into each other seat's draws since the epoch (drawn_n[q] of
        them, public) and the draw pile (the rest). A seat's draws are first matched to the
        cards he played since (as many as the make-up allows), the rest drawn at random.
Step 2  Each draw not explained by a play must still be in that seat's hand ("forced").
        Reject the split if a seat is forced to hold more cards than he has, or if the pool
        cannot supply the pile plus the forced cards.
Step 3  Fill each hand up to its size with random cards from what is left of the pool
        (cards from before the epoch).

Rejected splits are retried, first as above, then letting a play be an older card at random
(MAX_TRIES each). If every try fails, the last world is returned; the tests check this does
not happen in real games. Older epochs (before the last reshuffle) are not constrained
further; in practice a game has at most one reshuffle. The Cython state implements the
same algorithm, step for step and with the same random stream, so both implementations give
the same world for a seed.
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
    total = sum(weights)
    if total <= 0:
        return 0            # an inconsistent state; never reached from a legal game
    r = rng.below(total)
    for i, w in enumerate(weights):
        if r < w:
            return i
        r -= w
    raise AssertionError("unreachable")


def _split_draws(snap, seat, others, epoch_left, rng, explain_all):
    """Step 1: each other seat's draws since the epoch; the rest of the make-up is the pile."""
    remaining = list(epoch_left)
    draws = {}
    for q in others:
        row = [0] * N_CARDS
        left = snap.drawn_n[q]
        for c in range(N_CARDS):
            most = min(snap.played_since[q][c], remaining[c], left)
            take = most if explain_all else rng.below(most + 1) if most else 0
            row[c] += take
            remaining[c] -= take
            left -= take
        for _ in range(left):
            c = weighted_pick(remaining, rng)
            row[c] += 1
            remaining[c] -= 1
        draws[q] = row
    return draws, remaining


def determinize_snapshot(snap, seat: int, rng):
    if snap.observer >= 0 and snap.observer != seat:
        raise PalaisError(f"a view from seat {snap.observer + 1} cannot be determinized for seat {seat + 1}")
    others = [q for q in range(snap.n_players) if q != seat]
    pool = [snap.deck[c] + sum(snap.hand[q][c] for q in others) for c in range(N_CARDS)]
    epoch_left = [snap.epoch[c] - snap.drawn_t[seat][c] for c in range(N_CARDS)]
    for attempt in range(2 * MAX_TRIES):
        draws, deck = _split_draws(snap, seat, others, epoch_left, rng, attempt < MAX_TRIES)
        # Step 2
        forced = {q: [max(0, draws[q][c] - snap.played_since[q][c]) for c in range(N_CARDS)]
                  for q in others}
        left = [pool[c] - deck[c] - sum(forced[q][c] for q in others) for c in range(N_CARDS)]
        if min(left) >= 0 and all(sum(forced[q]) <= snap.hand_size[q] for q in others):
            break
    # Step 3
    hands = {}
    for q in others:
        row = list(forced[q])
        for _ in range(snap.hand_size[q] - sum(row)):
            c = weighted_pick([max(0, v) for v in left], rng)
            row[c] += 1
            left[c] -= 1
        hands[q] = row
    out = snap.copy()
    out.observer = -1
    out.deck = deck
    for q in others:
        out.hand[q] = hands[q]
        out.drawn_t[q] = draws[q]
    return out
