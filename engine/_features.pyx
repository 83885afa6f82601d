# The observation vector: what one seat may know of a position, as FEATURE_SIZE floats read
# straight from the C state (a Python loop over a Snapshot costs tens of microseconds; this
# costs about a microsecond), so self-play can generate training data fast and the search
# can evaluate a learned model without a Python call. The layout is documented in
# docs/features.md and named entry by entry by engine/features.py:feature_names(), which
# follows the blocks below in the same order. Everything is scaled to about [0, 1].

from engine._state cimport (
    GameState, State, room_majorities, final_scores,
    MAX_P, N_R, N_C, N_SQ, N_PRIV, N_STAGES, S_SOURCE, SOURCE_PARK, P_INCOME,
)

from libc.stdlib cimport malloc, free

from engine.errors import PalaisError

# The scales: a count is divided by about the most it reaches in play (docs/features.md).
cdef float ROUND_SCALE = 20.0
cdef float SETUP_SCALE = 20.0
cdef float COUNTER_SCALE = 10.0     # gate_left, gate_max, moves_left
cdef float POOL_SCALE = 5.0         # step-4 seal and recruitment pools, draws left
cdef float CARD_SCALE = 4.0         # cards of one type (4 of each in the default set)
cdef float PILE_SCALE = 36.0        # cards in the draw pile, tiles in the park
cdef float ROOM_SCALE = 10.0        # servants in one room
cdef float AREA_SCALE = 18.0
cdef float SUPPLY_SCALE = 7.0
cdef float GOLD_SCALE = 20.0
cdef float HAND_SCALE = 8.0
cdef float NOBLES_SCALE = 12.0
cdef float VP_SCALE = 60.0          # VP of nobles, and the score tally
cdef float PRIV_SCALE = 2.0         # tiles of one privilege (at most 2 per privilege)
cdef float INCOME_SCALE = 3.0       # gold of income per turn
cdef float PARK_SCALE = 12.0        # own servants in the park
cdef float SIDE_SCALE = 6.0         # own servants on one side of the park
cdef float TILE_VP_SCALE = 12.0
cdef float TILE_GOLD_SCALE = 9.0
cdef float SEAL_SCALE = 3.0
cdef float AMOUNT_SCALE = 5.0

# The four scored sides of the park, as in engine.constants.SIDES.
# where the nobles' and the park's entries start in a seat block (docs/features.md): after
# present, to move, 9 rooms, 9 majorities, area, supply, gold, hand, honours
cdef enum:
    SEAT_NOBLES = 2 + 2 * N_R + 5
    SEAT_PARK = SEAT_NOBLES + 2 + N_PRIV - 1

cdef int SIDE_SQ[4][6]
from engine.constants import SIDES as _SIDES
cdef int _i, _j
for _i in range(4):
    for _j in range(6):
        SIDE_SQ[_i][_j] = _SIDES[_i][_j]

# A park tile's entries by value (a tile's numbers are 0..100, RulesBox checks): the same
# float divisions as written out, done once at import instead of per tile and call.
cdef enum:
    TILE_VALUES = 101
cdef float TILE_VP_F[TILE_VALUES]
cdef float TILE_GOLD_F[TILE_VALUES]
cdef float SEAL_F[TILE_VALUES]
cdef float AMOUNT_F[TILE_VALUES]
for _i in range(TILE_VALUES):
    TILE_VP_F[_i] = _i / TILE_VP_SCALE
    TILE_GOLD_F[_i] = _i / TILE_GOLD_SCALE
    SEAL_F[_i] = _i / SEAL_SCALE
    AMOUNT_F[_i] = _i / AMOUNT_SCALE

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_popcountll(unsigned long long) nogil


# One seat's observation, dense: sparse_features's entries for that seat scattered into a
# zeroed vector, so the features are written once (in sparse_features). Returns -1 and writes
# nothing when `s` is another observer's view (or the public one) or seat is not in the game.
cdef int write_features(const GameState* s, int seat, float* out) noexcept nogil:
    cdef SparseFeatures f
    cdef int i
    if seat < 0 or seat >= s.n_players or (s.observer >= 0 and s.observer != seat):
        return -1
    if sparse_features(s, seat, &f) == 0:
        return -1
    for i in range(FEATURE_SIZE):
        out[i] = 0.0
    for i in range(f.n_shared):
        out[f.shared_idx[i]] = f.shared_val[i]
    for i in range(f.n_own[seat]):
        out[f.own_idx[seat][i]] = f.own_val[seat][i]
    return FEATURE_SIZE


cdef inline int put(int n, int* idx, float* val, int i, float x) noexcept nogil:
    """Append entry i = x to a sparse list of n entries, unless x is zero (a zero adds
    nothing); returns the new length. (The lengths live in locals, not behind a pointer the
    stores into idx might alias, so the compiler keeps them in registers.) Branch-free: the
    entry is always written, and kept only if x is not zero, so a list must have room for
    one entry per call, not only per nonzero one (which zero is unpredictable)."""
    idx[n] = i
    val[n] = x
    return n + (x != 0.0)


# The features of every seat at once, sparse (engine/_features.pxd: SparseFeatures); the one
# place the features are written (write_features scatters one seat's entries). Step 2: the
# game-wide block; step 3: one block per seat, the observer first, then the others in turn
# order, absent seats left zero; step 4: one block per park square. What does not depend on
# the seat is computed once; a full state gives each seat what its view would (view_state).
cdef int sparse_features(const GameState* s, int only_seat, SparseFeatures* f) noexcept nogil:
    cdef int i, k, p, q, r, c, t, sq, side, n = s.n_players, rel, priv, seat, held = 0
    cdef int scores[MAX_P]
    cdef int pool[N_C]
    cdef int tiles = 0
    cdef int ns = 0, no, bn
    cdef int own_n[MAX_P]
    cdef float blk[MAX_P][SEAT_SIZE]       # each player's seat block (the same for every observer)
    cdef int blk_n[MAX_P]
    cdef int blk_off[MAX_P][SEAT_SIZE]
    cdef float blk_val[MAX_P][SEAT_SIZE]
    cdef int maj[N_R][MAX_P]
    cdef unsigned long long m
    cdef float* b
    # the scales of the seat blocks as locals: the block's float stores could alias the
    # module's globals, which the compiler would then reload (and divide by) every time
    cdef float room_scale = ROOM_SCALE, nobles_scale = NOBLES_SCALE, vp_scale = VP_SCALE
    cdef float income_scale = INCOME_SCALE, priv_scale = PRIV_SCALE, park_scale = PARK_SCALE
    cdef float side_scale = SIDE_SCALE
    f.n_players = n
    f.n_shared = 0
    for p in range(MAX_P):
        f.seats[p] = 0
        f.n_own[p] = 0
    for p in range(n):
        if (only_seat < 0 or p == only_seat) and (s.observer < 0 or s.observer == p):
            f.seats[p] = 1
            held += 1
    if held == 0:
        return 0
    tiles = __builtin_popcountll(s.park_mask)
    final_scores(s, scores)            # reads nothing hidden: a seat's view scores the same

    # Step 2: game-wide; the unknown pool and the hand are the seat's own
    k = 0
    ns = put(ns, f.shared_idx, f.shared_val, k + n - 2, 1.0)
    k += 3
    ns = put(ns, f.shared_idx, f.shared_val, k, s.round / ROUND_SCALE)
    ns = put(ns, f.shared_idx, f.shared_val, k + 1, s.last_round)
    k += 2
    ns = put(ns, f.shared_idx, f.shared_val, k + s.stage, 1.0)
    k += N_STAGES
    ns = put(ns, f.shared_idx, f.shared_val, k, s.setup_count / SETUP_SCALE)
    ns = put(ns, f.shared_idx, f.shared_val, k + 1, s.gate_left / COUNTER_SCALE)
    ns = put(ns, f.shared_idx, f.shared_val, k + 2, s.gate_max / COUNTER_SCALE)
    ns = put(ns, f.shared_idx, f.shared_val, k + 3, s.moves_left / COUNTER_SCALE)
    k += 4
    if s.stage == S_SOURCE:
        ns = put(ns, f.shared_idx, f.shared_val, k + s.source_for, 1.0)
    k += N_R + 1
    ns = put(ns, f.shared_idx, f.shared_val, k, s.turq / POOL_SCALE)
    ns = put(ns, f.shared_idx, f.shared_val, k + 1, s.viol / POOL_SCALE)
    ns = put(ns, f.shared_idx, f.shared_val, k + 2, s.rec / POOL_SCALE)
    ns = put(ns, f.shared_idx, f.shared_val, k + 3, s.guards / CARD_SCALE)
    ns = put(ns, f.shared_idx, f.shared_val, k + 4, s.moves_bonus / COUNTER_SCALE)
    ns = put(ns, f.shared_idx, f.shared_val, k + 5, s.intrigue)
    ns = put(ns, f.shared_idx, f.shared_val, k + 6, s.draws_left / POOL_SCALE)
    ns = put(ns, f.shared_idx, f.shared_val, k + 7, tiles / PILE_SCALE)
    ns = put(ns, f.shared_idx, f.shared_val, k + 8, s.deck_size / PILE_SCALE)
    k += 9
    for seat in range(n):
        if not f.seats[seat]:
            continue
        no = 0
        for c in range(N_C):           # the unknown pool as seat's view has it (view_state)
            pool[c] = s.deck[c]
            if s.observer != seat:
                for q in range(n):
                    if q != seat:
                        pool[c] += s.hand[q][c]
            no = put(no, f.own_idx[seat], f.own_val[seat], k + c, pool[c] / CARD_SCALE)
        for c in range(N_C):
            no = put(no, f.own_idx[seat], f.own_val[seat], k + 2 * N_C + c, s.hand[seat][c] / CARD_SCALE)
        f.n_own[seat] = no
    for c in range(N_C):
        ns = put(ns, f.shared_idx, f.shared_val, k + N_C + c, s.discard[c] / CARD_SCALE)
    k += 3 * N_C
    for i in range(N_R):
        ns = put(ns, f.shared_idx, f.shared_val, k + i * N_R + s.layout[i], 1.0)
    k += N_R * N_R

    # Step 3: each player's block once, placed per seat in that seat's turn order. The tiles
    # and the park are read in one pass each, adding to their owner's block (each sum in the
    # same order as a pass per player would, so the same floats).
    for r in range(N_R):
        room_majorities(s, r, maj[r])
    for p in range(n):
        b = &blk[p][0]
        for i in range(SEAT_SIZE):
            b[i] = 0.0
        i = 0
        b[i] = 1.0
        b[i + 1] = 1.0 if s.to_move == p else 0.0
        i += 2
        for r in range(N_R):
            b[i + r] = s.rooms[p][r] / room_scale
            b[i + N_R + r] = maj[r][p]                     # 0 where p has no servant
        i += 2 * N_R
        b[i] = s.area[p] / AREA_SCALE
        b[i + 1] = s.supply[p] / SUPPLY_SCALE
        b[i + 2] = s.gold[p] / GOLD_SCALE
        b[i + 3] = s.hand_size[p] / HAND_SCALE
        b[i + 4] = s.honours[p] / CARD_SCALE
    i = SEAT_NOBLES
    for t in range(s.rules.n_tiles):
        p = s.owner[t]
        if p >= 0:
            b = &blk[p][0]
            b[i] += 1.0 / nobles_scale
            b[i + 1] += s.rules.tile_vp[t] / vp_scale
            priv = s.rules.tile_priv[t]
            if priv == P_INCOME:
                b[i + 2 + priv - 1] += s.rules.tile_amount[t] / income_scale
            elif priv > 0:
                b[i + 2 + priv - 1] += 1.0 / priv_scale
    i = SEAT_PARK
    for sq in range(N_SQ):
        p = s.park_servant[sq]
        if p >= 0:
            blk[p][i] += 1.0 / park_scale
    for side in range(4):
        for q in range(6):
            p = s.park_servant[SIDE_SQ[side][q]]
            if p >= 0:
                blk[p][i + 1 + side] += 1.0 / side_scale
    for p in range(n):
        b = &blk[p][0]
        b[SEAT_PARK + 5] = scores[p] / VP_SCALE
        bn = 0
        for i in range(SEAT_SIZE):
            bn = put(bn, blk_off[p], blk_val[p], i, b[i])
        blk_n[p] = bn
    for seat in range(n):
        if not f.seats[seat]:
            continue
        no = f.n_own[seat]
        for rel in range(n):
            p = (seat + rel) % n
            for i in range(blk_n[p]):
                f.own_idx[seat][no] = k + rel * SEAT_SIZE + blk_off[p][i]
                f.own_val[seat][no] = blk_val[p][i]
                no += 1
        f.n_own[seat] = no
    k += MAX_P * SEAT_SIZE

    # Step 4: the squares are shared but for their servant's owner, relative to the seat
    for p in range(MAX_P):
        own_n[p] = f.n_own[p]
    # the tiles (shared entries, squares in ascending order), then the servants (own entries):
    # each list gets the entries in the order of one pass over the squares
    m = s.park_mask
    while m:
        sq = __builtin_ctzll(m)
        m &= m - 1
        i = k + sq * SQUARE_SIZE
        t = s.tile_at[sq]
        ns = put(ns, f.shared_idx, f.shared_val, i, 1.0)
        ns = put(ns, f.shared_idx, f.shared_val, i + 1, TILE_VP_F[s.rules.tile_vp[t]])
        ns = put(ns, f.shared_idx, f.shared_val, i + 2, TILE_GOLD_F[s.rules.tile_gold[t]])
        ns = put(ns, f.shared_idx, f.shared_val, i + 3, SEAL_F[s.rules.tile_turq[t]])
        ns = put(ns, f.shared_idx, f.shared_val, i + 4, SEAL_F[s.rules.tile_viol[t]])
        priv = s.rules.tile_priv[t]
        if priv > 0:
            ns = put(ns, f.shared_idx, f.shared_val, i + 5 + priv - 1, 1.0)
            ns = put(ns, f.shared_idx, f.shared_val, i + 5 + N_PRIV - 1, AMOUNT_F[s.rules.tile_amount[t]])
    for sq in range(N_SQ):
        i = k + sq * SQUARE_SIZE
        if s.park_servant[sq] >= 0:
            for seat in range(n):
                if f.seats[seat]:
                    own_n[seat] = put(own_n[seat], f.own_idx[seat], f.own_val[seat],
                                      i + 5 + N_PRIV + (s.park_servant[sq] - seat + n) % n, 1.0)
    for p in range(MAX_P):
        f.n_own[p] = own_n[p]
    f.n_shared = ns
    return held


cdef int merge_features(const SparseFeatures* f, int seat, int* idx, float* val) noexcept nogil:
    cdef int a = 0, o = 0, m = 0, na = f.n_shared, no = f.n_own[seat]
    cdef const int* oi = f.own_idx[seat]
    cdef const float* ov = f.own_val[seat]
    while a < na and o < no:
        if f.shared_idx[a] < oi[o]:
            idx[m] = f.shared_idx[a]
            val[m] = f.shared_val[a]
            a += 1
        else:
            idx[m] = oi[o]
            val[m] = ov[o]
            o += 1
        m += 1
    while a < na:
        idx[m] = f.shared_idx[a]
        val[m] = f.shared_val[a]
        a += 1
        m += 1
    while o < no:
        idx[m] = oi[o]
        val[m] = ov[o]
        o += 1
        m += 1
    return m


def observation_into(State state, int seat, float[::1] out):
    """Write `seat`'s observation of `state` (a full state or that seat's view) into `out`,
    a float32 array of FEATURE_SIZE entries, without allocating."""
    if out.shape[0] != FEATURE_SIZE:
        raise ValueError(f"out holds {out.shape[0]} floats, expected {FEATURE_SIZE}")
    if state.observer >= MAX_P:
        raise PalaisError("an onlooker's public view holds no seat's hand; pass the full "
                          "state or the seat's own view")
    state._check_seat(seat)
    if write_features(&state.st, seat, &out[0]) != FEATURE_SIZE:
        raise PalaisError(f"seat {seat + 1} cannot be observed in this position")


def feature_size():
    return FEATURE_SIZE


def sparse_observations(State state):
    """Every observable seat's observation of `state` through sparse_features, as
    {seat: (indices, values, n_shared)}: the merged ascending list of the nonzero entries
    and the size of the part shared by every seat (tests compare them with observation_into)."""
    cdef SparseFeatures* f = <SparseFeatures*>malloc(sizeof(SparseFeatures))
    cdef int idx[FEATURE_SIZE]
    cdef float val[FEATURE_SIZE]
    cdef int p, m
    if f == NULL:
        raise MemoryError()
    try:
        sparse_features(&state.st, -1, f)
        out = {}
        for p in range(MAX_P):
            if f.seats[p]:
                m = merge_features(f, p, idx, val)
                out[p] = ([idx[i] for i in range(m)], [val[i] for i in range(m)], f.n_shared)
        return out
    finally:
        free(f)
