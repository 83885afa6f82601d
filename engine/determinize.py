"""Hidden information in plain Python: a seat's view and determinizations (RULES.md §8).

A *view* keeps the observer's own hand and merges every card he cannot see (other hands and
the draw pile) into one unknown pool, kept in the `deck` field; `deck_size` stays the true
pile size. A *determinization* deals that pool back out: a draw pile and the other hands,
with the sizes everyone knows, such that nothing contradicts the observer's knowledge of
the current epoch (the pile made at the last reshuffle, or the whole set at the start).

Let A be the epoch's make-up less the observer's own draws since. Each other seat q drew
drawn_n[q] of A since (public); each such card is now either in his hand (R: "kept") or
among the cards he played since (K: "played"). The pile is what is left of A. A world is
consistent when, per card type, the pool can supply the pile plus every kept card, which
comes down to: the played-since cards K must cover need[c] = A[c] - pool[c] (epoch cards
that are neither in the pile nor in a hand must have been played).

Step 1  Cover need: each needed card is charged to a seat that played one of that type
        since and still has draws to explain, trying the seats from a random one on and
        moving earlier charges between seats when that makes room (augmenting paths).
Step 2  A seat who drew more since than he holds must have played the difference: explain
        that many of his draws as played cards, of types left in A (in proportion), else
        by taking over another seat's charge and making that seat whole (augmenting paths).
Step 3  Explain each seat's other draws one by one: as a played card (if he played one of a
        type still in A) or a kept card (if his hand has room), by a fair coin when both
        are possible, the type drawn in proportion to what remains.
Step 4  The pile is what is left of A; each hand is its kept cards plus random cards from
        what is left of the pool (cards from before the epoch).

A try that gets stuck is retried (MAX_TRIES); if every try fails the hands are dealt from the
pool without the epoch constraint. The tests check that this never happens in real games.
Older epochs (before the last reshuffle) are not constrained further; in practice a game has
at most one reshuffle. The Cython state implements the same algorithm, step for step and
with the same random stream, so both implementations give the same world for a seed.
"""

from .constants import N_CARDS
from .errors import PalaisError

MAX_TRIES = 32


PUBLIC = 4    # the observer of a public view: no seat (every hand unknown)


def view_snapshot(snap, seat: int):
    """The snapshot as `seat` sees it; seat PUBLIC gives the onlooker's view (no hand known)."""
    if seat != PUBLIC and snap.observer >= 0 and snap.observer != seat:
        raise PalaisError(f"a view from seat {snap.observer + 1} cannot be seen from seat {seat + 1}")
    if not (0 <= seat < snap.n_players or seat == PUBLIC):
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


def _lift(snap, others, played, explained, budget, q, seen, rng) -> bool:
    """Explain one more of seat q's draws as a card he played: of a type left in A if he
    has one (types in proportion), else by taking over another seat's charge of a type he
    played, that seat being made whole the same way unless he has draws to spare."""
    seen.add(q)
    as_played = [min(snap.played_since[q][c] - played[q][c], budget[c]) for c in range(N_CARDS)]
    if sum(as_played) > 0:
        c = weighted_pick(as_played, rng)
        played[q][c] += 1
        explained[q] += 1
        budget[c] -= 1
        return True
    for c in range(N_CARDS):
        if played[q][c] >= snap.played_since[q][c]:
            continue
        for q2 in others:
            if q2 in seen or played[q2][c] == 0:
                continue
            spare = explained[q2] - 1 >= snap.drawn_n[q2] - snap.hand_size[q2]
            if spare or _lift(snap, others, played, explained, budget, q2, seen, rng):
                played[q2][c] -= 1
                explained[q2] -= 1
                played[q][c] += 1
                explained[q] += 1
                return True
    return False


def _charge(snap, others, played, explained, c, seen, start) -> bool:
    """Charge one needed card of type c to a seat that played one since and has a draw left
    to explain, moving earlier charges between seats if that makes room (an augmenting path,
    so a charge is found whenever one exists). Seats are tried from `start` on, in turn."""
    for i in range(len(others)):
        q = others[(start + i) % len(others)]
        if q in seen or played[q][c] >= snap.played_since[q][c]:
            continue
        seen.add(q)
        if explained[q] < snap.drawn_n[q]:
            played[q][c] += 1
            explained[q] += 1
            return True
        for c2 in range(N_CARDS):
            if c2 != c and played[q][c2] > 0 and _charge(snap, others, played, explained, c2, seen, start):
                played[q][c2] -= 1
                played[q][c] += 1
                return True
    return False


def _explain_draws(snap, others, epoch_left, pool, rng):
    """Steps 1-2: (played, kept, pile) per seat and type, or None when this try got stuck."""
    played = {q: [0] * N_CARDS for q in others}
    kept = {q: [0] * N_CARDS for q in others}
    budget = list(epoch_left)
    explained = {q: 0 for q in others}
    for c in range(N_CARDS):                                        # Step 1
        while sum(played[q][c] for q in others) < epoch_left[c] - pool[c]:
            if budget[c] == 0:
                return None
            if not _charge(snap, others, played, explained, c, set(), rng.below(len(others))):
                return None
            budget[c] -= 1
    for q in others:        # Step 2: draws beyond the hand size must have been played
        while explained[q] < snap.drawn_n[q] - snap.hand_size[q]:
            if not _lift(snap, others, played, explained, budget, q, set(), rng):
                return None
    for q in others:                                                # Step 3
        while explained[q] < snap.drawn_n[q]:
            as_played = [min(snap.played_since[q][c] - played[q][c], budget[c]) for c in range(N_CARDS)]
            can_play = sum(as_played) > 0
            can_keep = sum(kept[q]) < snap.hand_size[q] and sum(budget) > 0
            if not can_play and not can_keep:
                return None
            if can_play and (not can_keep or rng.below(2) == 0):
                c = weighted_pick(as_played, rng)
                played[q][c] += 1
            else:
                c = weighted_pick(budget, rng)
                kept[q][c] += 1
            budget[c] -= 1
            explained[q] += 1
    return played, kept, budget


def determinize_snapshot(snap, seat: int, rng):
    if snap.observer >= 0 and snap.observer != seat:
        raise PalaisError(f"a view from seat {snap.observer + 1} cannot be determinized for seat {seat + 1}")
    others = [q for q in range(snap.n_players) if q != seat]
    pool = [snap.deck[c] + sum(snap.hand[q][c] for q in others) for c in range(N_CARDS)]
    epoch_left = [snap.epoch[c] - snap.drawn_t[seat][c] for c in range(N_CARDS)]
    explained = None
    for _ in range(MAX_TRIES):
        explained = _explain_draws(snap, others, epoch_left, pool, rng)
        if explained is not None:
            break
    if explained is None:               # never seen in a real game: drop the epoch constraint
        zero = {q: [0] * N_CARDS for q in others}
        explained = zero, zero, None
    played, kept, deck = explained
    left = list(pool)
    if deck is None:                    # the fallback deals the pile at random too
        deck = [0] * N_CARDS
        for _ in range(snap.deck_size):
            c = weighted_pick(left, rng)
            deck[c] += 1
            left[c] -= 1
    else:
        for c in range(N_CARDS):
            left[c] -= deck[c] + sum(kept[q][c] for q in others)
    out = snap.copy()                                               # Step 4
    out.observer = -1
    out.deck = deck
    for q in others:
        row = list(kept[q])
        for _ in range(snap.hand_size[q] - sum(row)):
            c = weighted_pick(left, rng)
            row[c] += 1
            left[c] -= 1
        out.hand[q] = row
        out.drawn_t[q] = [played[q][c] + kept[q][c] for c in range(N_CARDS)]
    return out
