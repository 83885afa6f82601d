# The rules of Palais Royal as a C struct and nogil functions: the fast twin of
# engine/reference.py (read that file for the rules in plain words; this one follows it
# step for step). The Zobrist key is kept incrementally: every field write goes through a
# setter below that XORs the old (field, index, value) key out and the new one in.
# `State` at the bottom is the thin Python API over the struct.

from libc.stdint cimport uint64_t, uint32_t, int8_t, int32_t
from libc.string cimport memcmp, memcpy, memset
from libc.stdio cimport fprintf, stderr
from libc.stdlib cimport abort

# The checked build (PALAIS_CHECKED=1, see setup.py) verifies every apply_action: the action
# is legal before, and after it the incremental keys equal the from-scratch ones and no
# count went negative. A failure prints what broke and aborts, like a C assert. In the
# fast build PALAIS_CHECKED is the constant 0 and the C compiler drops the checks.
cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_popcount(unsigned) nogil
    int __builtin_clz(unsigned) nogil
    int __builtin_ctz(unsigned) nogil

# Bit i set when a[i] != 0, for 9 counts in 0..127 (a seat's rooms, hand or the pile): one
# 8-byte load, a carry-free add that lifts every nonzero byte's top bit, and a multiply
# that gathers those 8 bits into one byte (no two partial products share a bit).
cdef extern from *:
    """
    #include <string.h>
    static inline unsigned palais_nonzero9(const int8_t* a) {
        uint64_t v, hi;
        memcpy(&v, a, 8);
        hi = (v + 0x7F7F7F7F7F7F7F7FULL) & 0x8080808080808080ULL;
        return (unsigned)(((hi >> 7) * 0x0102040810204080ULL) >> 56) | ((unsigned)(a[8] != 0) << 8);
    }
    """
    unsigned nonzero9 "palais_nonzero9"(const int8_t* a) nogil

cdef extern from *:
    """
    #ifndef PALAIS_CHECKED
    #define PALAIS_CHECKED 0
    #endif
    """
    int PALAIS_CHECKED

from engine.constants import (
    WINDOW_CARDS, BORDER, SIDES, FIRST_GAME_LAYOUT, SOURCE_PARK as _SOURCE_PARK, STAGES,
    PRIVILEGES, MAX_CARDS_PER_TYPE,
)
from engine.components import MAX_TILES_PER_PRIVILEGE
from engine.errors import IllegalAction, PalaisError
from engine.snapshot import Snapshot
from engine.validate import SnapshotError, check_snapshot

# ---------------------------------------------------------------- constants
# Rooms, cards, privileges, actions and stages are enums in _state.pxd.
cdef enum:
    SETUP_FREE = 5
    MAX_TRIES = 32

cdef uint64_t GOLDEN = 0x9E3779B97F4A7C15ULL

# The Zobrist key's field ids and seed are defined once, in engine/zobrist.py (the key's
# definition, which the reference twin computes from scratch); C reads them at import.
from engine import zobrist as _zobrist
cdef uint64_t ZSEED = _zobrist.SEED
cdef int F_LAYOUT = _zobrist.F_LAYOUT
cdef int F_NPLAYERS = _zobrist.F_NPLAYERS
cdef int F_TILE_AT = _zobrist.F_TILE_AT
cdef int F_PARK_SERVANT = _zobrist.F_PARK_SERVANT
cdef int F_ROOMS = _zobrist.F_ROOMS
cdef int F_AREA = _zobrist.F_AREA
cdef int F_SUPPLY = _zobrist.F_SUPPLY
cdef int F_GOLD = _zobrist.F_GOLD
cdef int F_OWNER = _zobrist.F_OWNER
cdef int F_HAND = _zobrist.F_HAND
cdef int F_HAND_SIZE = _zobrist.F_HAND_SIZE
cdef int F_DECK_SIZE = _zobrist.F_DECK_SIZE
cdef int F_DISCARD = _zobrist.F_DISCARD
cdef int F_HONOURS = _zobrist.F_HONOURS
cdef int F_EPOCH = _zobrist.F_EPOCH
cdef int F_DRAWN_T = _zobrist.F_DRAWN_T
cdef int F_DRAWN_N = _zobrist.F_DRAWN_N
cdef int F_PLAYED_SINCE = _zobrist.F_PLAYED_SINCE
cdef int F_ROUND = _zobrist.F_ROUND
cdef int F_LAST_ROUND = _zobrist.F_LAST_ROUND
cdef int F_STAGE = _zobrist.F_STAGE
cdef int F_TO_MOVE = _zobrist.F_TO_MOVE
cdef int F_SETUP_COUNT = _zobrist.F_SETUP_COUNT
cdef int F_GATE_LEFT = _zobrist.F_GATE_LEFT
cdef int F_GATE_MAX = _zobrist.F_GATE_MAX
cdef int F_MOVES_LEFT = _zobrist.F_MOVES_LEFT
cdef int F_SOURCE_FOR = _zobrist.F_SOURCE_FOR
cdef int F_PARK_TARGET = _zobrist.F_PARK_TARGET
cdef int F_TURQ = _zobrist.F_TURQ
cdef int F_VIOL = _zobrist.F_VIOL
cdef int F_REC = _zobrist.F_REC
cdef int F_GUARDS = _zobrist.F_GUARDS
cdef int F_MOVES_BONUS = _zobrist.F_MOVES_BONUS
cdef int F_INTRIGUE = _zobrist.F_INTRIGUE
cdef int F_DRAWS_LEFT = _zobrist.F_DRAWS_LEFT

# Lookup tables filled once at import from engine.constants.
cdef int8_t WINDOW_OF[N_STAGES]          # stage -> window index 0..4, or -1
cdef int8_t AFTER_WINDOW[5]              # window index -> the stage after it
cdef int8_t WINDOW_ALLOWED[5][N_C]
cdef unsigned WINDOW_MASK[5]             # window index -> bit c set when card c may be played
cdef int8_t IS_BORDER[N_SQ]
cdef int8_t SIDE_SQ[4][6]

cdef int _i, _j
for _i in range(N_STAGES):
    WINDOW_OF[_i] = -1
for _i, _j in enumerate((S_WINDOW1, S_WINDOW2, S_WINDOW3, S_WINDOW4, S_WINDOW5)):
    WINDOW_OF[_j] = _i
for _i, _j in enumerate((S_STEP1, S_STEP2, S_STEP3, S_STEP4, S_TURN_END)):
    AFTER_WINDOW[_i] = _j
for _i in range(5):
    WINDOW_MASK[_i] = 0
    for _j in range(N_C):
        WINDOW_ALLOWED[_i][_j] = 1 if WINDOW_CARDS[_i][_j] else 0
        if WINDOW_CARDS[_i][_j]:
            WINDOW_MASK[_i] |= 1u << _j
for _i in range(N_SQ):
    IS_BORDER[_i] = 1 if _i in BORDER else 0
for _i in range(4):
    for _j in range(6):
        SIDE_SQ[_i][_j] = SIDES[_i][_j]

# ---------------------------------------------------------------- random numbers and keys
cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL
    return x ^ (x >> 31)

cdef uint64_t rng_next(Rng* rng) noexcept nogil:
    rng.state += GOLDEN
    return mix64(rng.state)

# x % n without a 64-bit division for n <= FASTMOD_N (Lemire, Kaser and Kurz, "Faster
# remainder by direct computation", 2019: exact for every 64-bit x), else the plain `%`.
# The stream is the same either way; tests/test_rules_core_caches.py checks it.
cdef extern from *:
    """
    #define PALAIS_FASTMOD_N 256
    static __uint128_t palais_mod_m[PALAIS_FASTMOD_N + 1];
    static void palais_mod_init(void) {
        int d;
        for (d = 1; d <= PALAIS_FASTMOD_N; d++)
            palais_mod_m[d] = ((__uint128_t)0 - 1) / (unsigned)d + 1;
    }
    static inline uint64_t palais_mod(uint64_t a, uint64_t d) {
        __uint128_t low = palais_mod_m[d] * a;
        __uint128_t bottom = ((low & 0xFFFFFFFFFFFFFFFFULL) * d) >> 64;
        __uint128_t top = (low >> 64) * d;
        return (uint64_t)((bottom + top) >> 64);
    }
    """
    int FASTMOD_N "PALAIS_FASTMOD_N"
    void palais_mod_init() nogil
    uint64_t palais_mod(uint64_t a, uint64_t d) nogil

palais_mod_init()

# The size of one state, in bytes: what cloning copies (docs/architecture.md states it, and
# tests/test_architecture.py checks the figure there).
GAME_STATE_BYTES = sizeof(GameState)

cdef int rng_below(Rng* rng, int n) noexcept nogil:
    return below(rng, n)

cdef inline int below(Rng* rng, int n) noexcept nogil:
    cdef uint64_t x
    if n <= 0:              # never asked by the rules; a guard against dividing by zero
        return 0
    rng.state += GOLDEN
    x = mix64(rng.state)
    if n <= FASTMOD_N:
        return <int>palais_mod(x, <uint64_t>n)
    return <int>(x % <uint64_t>n)


def _rng_below(uint64_t state, int n):
    """(rng_below's value, the new state) from Rng state `state`: for tests of the stream."""
    cdef Rng r
    r.state = state
    cdef int v = rng_below(&r, n)
    return v, r.state

cdef inline uint64_t zkey(int field, int idx, int value) noexcept nogil:
    cdef uint64_t x = (ZSEED ^ (<uint64_t>field << 40) ^ (<uint64_t>idx << 24)
                       ^ (<uint64_t>(<uint32_t>value) & 0xFFFFFFULL))
    return mix64(x + GOLDEN)

# ---------------------------------------------------------------- setters (keep the key)
cdef inline void put8(GameState* s, int field, int idx, int8_t* slot, int value) noexcept nogil:
    if slot[0] != value:
        if not s.keyless:
            s.key ^= zkey(field, idx, slot[0]) ^ zkey(field, idx, value)
        slot[0] = <int8_t>value

cdef inline void put_private(GameState* s, int field, int p, int c, int8_t* slot, int value) noexcept nogil:
    cdef uint64_t d
    if not s.keyless:
        d = zkey(field, p * N_C + c, slot[0]) ^ zkey(field, p * N_C + c, value)
        s.key ^= d
        s.hand_key[p] ^= d
    slot[0] = <int8_t>value

# The stage passes through many automatic values inside one apply_action; it is written raw
# here and its key is brought up to date once, at the end of apply_action.
cdef inline void set_stage(GameState* s, int v) noexcept nogil:
    s.stage = <int8_t>v

cdef inline void add_room(GameState* s, int p, int r, int d) noexcept nogil:
    put8(s, F_ROOMS, p * N_R + r, &s.rooms[p][r], s.rooms[p][r] + d)

cdef inline void add_area(GameState* s, int p, int d) noexcept nogil:
    put8(s, F_AREA, p, &s.area[p], s.area[p] + d)

cdef inline void add_gold(GameState* s, int p, int d) noexcept nogil:
    if not s.keyless:
        s.key ^= zkey(F_GOLD, p, s.gold[p]) ^ zkey(F_GOLD, p, s.gold[p] + d)
    s.gold[p] += d

# ---------------------------------------------------------------- queries
cdef int current_player(const GameState* s) noexcept nogil:
    if s.stage == S_GAME_OVER:
        return TERMINAL
    if s.stage == S_DRAW:
        return CHANCE
    return s.to_move

cdef inline int cardinal_weight(const GameState* s, int q) noexcept nogil:
    return s.rooms[q][CARDINAL] + 2 * s.priv[q][P_FAVOUR]

cdef int has_majority(const GameState* s, int p, int room) noexcept nogil:
    return majority(s, p, room)

cdef inline int majority(const GameState* s, int p, int room) noexcept nogil:
    cdef int own = s.rooms[p][room]
    cdef int best = 0, q, w
    if own == 0:
        return 0
    for q in range(s.n_players):        # the others' best, without branches (p counts 0)
        w = s.rooms[q][room] if q != p else 0
        best = w if w > best else best
    if own > best:
        return 1
    if own < best:
        return 0
    if s.intrigue and p == s.to_move:
        return 1
    w = cardinal_weight(s, p)
    if w < 1:
        return 0
    for q in range(s.n_players):
        if q != p and s.rooms[q][room] == own and cardinal_weight(s, q) >= w:
            return 0
    return 1

# Every seat's has_majority for one room at once (out[p] for p < n_players): a seat with the
# most servants there holds it alone; in a tie, the seat to move holds it under the intrigue,
# and (besides) the tied seat whose cardinal weight is at least 1 and above every other
# tied seat's.
cdef void room_majorities(const GameState* s, int room, int* out) noexcept nogil:
    cdef int n = s.n_players, p, q, top = 0, tied = 0, w, wmax = 0, wcount = 0
    for p in range(n):
        w = s.rooms[p][room]
        if w > top:
            top = w
            tied = 1
        elif w == top:
            tied += 1
    for p in range(n):
        out[p] = 0
    if top == 0:
        return
    if tied == 1:
        for p in range(n):
            out[p] = s.rooms[p][room] == top
        return
    if s.intrigue and s.rooms[s.to_move][room] == top:
        out[s.to_move] = 1
    for p in range(n):
        if s.rooms[p][room] == top:
            w = cardinal_weight(s, p)
            if w > wmax:
                wmax = w
                wcount = 1
            elif w == wmax:
                wcount += 1
    if wmax < 1 or wcount > 1:
        return
    for p in range(n):
        if s.rooms[p][room] == top and cardinal_weight(s, p) == wmax:
            out[p] = 1

def _check_seat_room(State state, int seat, int room):
    """PalaisError unless seat is in the game and room is one of the 9 rooms (the C
    functions index arrays with them unchecked)."""
    if not 0 <= seat < state.st.n_players:
        raise PalaisError(f"no seat {seat + 1} in a {state.st.n_players}-player game")
    if not 0 <= room < N_R:
        raise PalaisError(f"no room {room}: rooms are 0..{N_R - 1}")

def _room_majorities(State state, int room):
    """room_majorities as a list (tests compare it with has_majority seat by seat)."""
    cdef int out[MAX_P]
    _check_seat_room(state, 0, room)
    room_majorities(&state.st, room, out)
    return [out[p] for p in range(state.st.n_players)]

# The tiles in the park p can pay for now (a bit per tile id), from the tables of payable
# tiles: p needs a letter or a servant in the OFFICE, the gold, and the seals (the pools of
# step 4 first, then servants in KING and MADAME).
cdef inline uint64_t payable_tiles(const GameState* s, int p) noexcept nogil:
    cdef const Rules* R = s.rules
    cdef int g = s.gold[p], u = s.turq + s.rooms[p][KING], v = s.viol + s.rooms[p][MADAME]
    if s.rec == 0 and s.rooms[p][OFFICE] == 0:
        return 0
    g = g if g < TILE_COST_MAX else TILE_COST_MAX
    u = u if u < TILE_COST_MAX else TILE_COST_MAX
    v = v if v < TILE_COST_MAX else TILE_COST_MAX
    return s.park_tiles & R.gold_ok[g] & R.turq_ok[u] & R.viol_ok[v]

# The lowest set bit's index; m must not be 0.
cdef inline int low_bit(uint64_t m) noexcept nogil:
    return __builtin_ctzll(m)

cdef inline int any_recruit(const GameState* s, int p) noexcept nogil:
    return payable_tiles(s, p) != 0

# Rooms other than `target` holding one of p's servants: their number, and in only[0] the
# highest of them (when there are any).
cdef inline int count_source_rooms(const GameState* s, int p, int target, int* only) noexcept nogil:
    cdef unsigned m = nonzero9(s.rooms[p]) & ~(1u << target)
    if m:
        only[0] = 31 - __builtin_clz(m)
    return __builtin_popcount(m)

cdef int legal_actions(const GameState* s, int* out) noexcept nogil:
    cdef int p = s.to_move, st = s.stage, n = 0, r, a, b, k, c, w
    cdef uint64_t m, pay
    cdef unsigned cm
    cdef bint hidden
    if st == S_SETUP:
        for r in range(0 if s.rules.setup_on_gate else 1, N_R):
            out[n] = A_ROOM + r
            n += 1
    elif WINDOW_OF[st] >= 0:
        hidden = s.observer >= 0 and s.observer != p
        cm = (nonzero9(s.deck) if hidden else nonzero9(s.hand[p])) & WINDOW_MASK[WINDOW_OF[st]]
        while cm:
            out[n] = A_PLAY + __builtin_ctz(cm)
            n += 1
            cm &= cm - 1
        out[n] = A_CONTINUE
        n += 1
    elif st == S_STEP1:
        for k in range(s.gate_max + 1):
            out[n] = A_GATE + k
            n += 1
    elif st == S_SOURCE:
        cm = nonzero9(s.rooms[p]) & ~(1u << s.source_for)
        while cm:
            out[n] = A_ROOM + __builtin_ctz(cm)
            n += 1
            cm &= cm - 1
    elif st == S_MOVES:
        cm = nonzero9(s.rooms[p])
        while cm:
            a = __builtin_ctz(cm)
            for k in range(s.adj_n[a]):
                out[n] = A_MOVE + a * N_R + s.adj[a][k]
                n += 1
            cm &= cm - 1
        out[n] = A_END
        n += 1
    elif st == S_KING_BONUS or st == S_MADAME_BONUS:
        out[0] = A_TAKE
        out[1] = A_DECLINE
        n = 2
    elif st == S_RECRUIT:
        pay = payable_tiles(s, p)
        m = s.park_mask if pay else 0
        while m:                        # the squares in ascending order
            r = low_bit(m)
            if (pay >> s.tile_at[r]) & 1:
                out[n] = A_RECRUIT + r
                n += 1
            m &= m - 1
        out[n] = A_END
        n += 1
    elif st == S_DRAW:
        if s.observer >= 0 and s.observer != p:
            out[0] = A_DRAW_UNKNOWN
            n = 1
        else:
            for c in range(N_C):
                if s.deck[c] > 0:
                    out[n] = A_DRAW + c
                    n += 1
    return n

# ---------------------------------------------------------------- apply
cdef void play_card(GameState* s, int p, int card) noexcept nogil:
    if s.observer >= 0 and s.observer != p:
        s.deck[card] -= 1
    else:
        put_private(s, F_HAND, p, card, &s.hand[p][card], s.hand[p][card] - 1)
    put8(s, F_HAND_SIZE, p, &s.hand_size[p], s.hand_size[p] - 1)
    put8(s, F_PLAYED_SINCE, p * N_C + card, &s.played_since[p][card], s.played_since[p][card] + 1)
    if card == C_HONOUR:
        put8(s, F_HONOURS, p, &s.honours[p], s.honours[p] + 1)
    else:
        put8(s, F_DISCARD, card, &s.discard[card], s.discard[card] + 1)
    if card == C_GOLD:
        add_gold(s, p, 3)
    elif card == C_MOVES:
        put8(s, F_MOVES_BONUS, 0, &s.moves_bonus, s.moves_bonus + 2)
    elif card == C_GUARDS:
        put8(s, F_GUARDS, 0, &s.guards, s.guards + 2)
    elif card == C_KINGSEAL:
        put8(s, F_TURQ, 0, &s.turq, s.turq + 1)
    elif card == C_MADAMESEAL:
        put8(s, F_VIOL, 0, &s.viol, s.viol + 1)
    elif card == C_LETTER:
        put8(s, F_REC, 0, &s.rec, s.rec + 1)
    elif card == C_INTRIGUE:
        put8(s, F_INTRIGUE, 0, &s.intrigue, 1)
    elif card == C_FOOTMAN and s.supply[p] > 0:
        put8(s, F_SUPPLY, p, &s.supply[p], s.supply[p] - 1)
        add_area(s, p, 1)

cdef inline void put_servant(GameState* s, int p, int target, int sq) noexcept nogil:
    if target == SOURCE_PARK:
        put8(s, F_PARK_SERVANT, sq, &s.park_servant[sq], p)
    else:
        add_room(s, p, target, 1)

# One servant onto `target` (a room, or park square `sq`): from the play area, else from the
# only other room holding one, else a SOURCE decision; with none anywhere, nothing.
cdef void place(GameState* s, int p, int target, int next_stage, int sq) noexcept nogil:
    cdef int only = 0, n
    if s.area[p] > 0:
        add_area(s, p, -1)
        put_servant(s, p, target, sq)
        set_stage(s, next_stage)
        return
    n = count_source_rooms(s, p, target, &only)
    if n == 1:
        add_room(s, p, only, -1)
        put_servant(s, p, target, sq)
        set_stage(s, next_stage)
    elif n == 0:
        set_stage(s, next_stage)
    else:
        put8(s, F_SOURCE_FOR, 0, &s.source_for, target)
        put8(s, F_PARK_TARGET, 0, &s.park_target, sq)
        set_stage(s, S_SOURCE)

cdef void place_from_room(GameState* s, int p, int room) noexcept nogil:
    cdef int target = s.source_for
    add_room(s, p, room, -1)
    put_servant(s, p, target, s.park_target)
    put8(s, F_SOURCE_FOR, 0, &s.source_for, 0)
    put8(s, F_PARK_TARGET, 0, &s.park_target, -1)
    if target == GATE:
        put8(s, F_GATE_LEFT, 0, &s.gate_left, s.gate_left - 1)
        set_stage(s, S_GATE_PLACE)
    elif target == KING:
        set_stage(s, S_MADAME_BONUS)
    elif target == MADAME:
        set_stage(s, S_WINDOW4)
    else:
        set_stage(s, S_RECRUIT)

cdef void recruit(GameState* s, int p, int sq) noexcept nogil:
    cdef const Rules* R = s.rules
    cdef int t = s.tile_at[sq], use, rest, moved, priv
    if s.rec > 0:
        put8(s, F_REC, 0, &s.rec, s.rec - 1)
    else:
        add_room(s, p, OFFICE, -1)
        add_area(s, p, 1)
    use = s.turq if s.turq < R.tile_turq[t] else R.tile_turq[t]
    rest = R.tile_turq[t] - use
    if use:
        put8(s, F_TURQ, 0, &s.turq, s.turq - use)
    if rest:
        add_room(s, p, KING, -rest)
        add_area(s, p, rest)
    use = s.viol if s.viol < R.tile_viol[t] else R.tile_viol[t]
    rest = R.tile_viol[t] - use
    if use:
        put8(s, F_VIOL, 0, &s.viol, s.viol - use)
    if rest:
        add_room(s, p, MADAME, -rest)
        add_area(s, p, rest)
    if R.tile_gold[t]:
        add_gold(s, p, -R.tile_gold[t])
    put8(s, F_TILE_AT, sq, &s.tile_at[sq], -1)
    s.park_mask &= ~((<uint64_t>1) << sq)
    s.park_tiles &= ~((<uint64_t>1) << t)
    put8(s, F_OWNER, t, &s.owner[t], p)
    priv = R.tile_priv[t]
    s.priv[p][priv] += R.tile_amount[t] if priv == P_INCOME else 1
    if priv == P_SUPPLY:
        moved = R.tile_amount[t] if R.tile_amount[t] < s.supply[p] else s.supply[p]
        if moved:
            put8(s, F_SUPPLY, p, &s.supply[p], s.supply[p] - moved)
            add_area(s, p, moved)
    if IS_BORDER[sq] and (s.area[p] > 0 or R.room_fallback):
        place(s, p, SOURCE_PARK, S_RECRUIT, sq)

cdef void draw_card(GameState* s, int p, int action) noexcept nogil:
    cdef int c
    put8(s, F_DECK_SIZE, 0, &s.deck_size, s.deck_size - 1)
    put8(s, F_HAND_SIZE, p, &s.hand_size[p], s.hand_size[p] + 1)
    put8(s, F_DRAWN_N, p, &s.drawn_n[p], s.drawn_n[p] + 1)
    put8(s, F_DRAWS_LEFT, 0, &s.draws_left, s.draws_left - 1)
    if action != A_DRAW_UNKNOWN:
        c = action - A_DRAW
        s.deck[c] -= 1
        put_private(s, F_HAND, p, c, &s.hand[p][c], s.hand[p][c] + 1)
        put_private(s, F_DRAWN_T, p, c, &s.drawn_t[p][c], s.drawn_t[p][c] + 1)

cdef void reshuffle(GameState* s) noexcept nogil:
    cdef int c, q, total = 0
    for c in range(N_C):
        s.deck[c] += s.discard[c]
        total += s.discard[c]
        put8(s, F_EPOCH, c, &s.epoch[c], s.discard[c])
        put8(s, F_DISCARD, c, &s.discard[c], 0)
    put8(s, F_DECK_SIZE, 0, &s.deck_size, total)
    for q in range(s.n_players):
        put8(s, F_DRAWN_N, q, &s.drawn_n[q], 0)
        for c in range(N_C):
            put_private(s, F_DRAWN_T, q, c, &s.drawn_t[q][c], 0)
            put8(s, F_PLAYED_SINCE, q * N_C + c, &s.played_since[q][c], 0)

cdef int tiles_in_park(const GameState* s) noexcept nogil:
    return __builtin_popcountll(s.park_mask)

# park_mask and park_tiles from tile_at, from scratch (at load, and by the checked build
# after each action).
cdef uint64_t compute_park_mask(const GameState* s) noexcept nogil:
    cdef uint64_t m = 0
    cdef int sq
    for sq in range(N_SQ):
        if s.tile_at[sq] >= 0:
            m |= (<uint64_t>1) << sq
    return m

cdef uint64_t compute_park_tiles(const GameState* s) noexcept nogil:
    cdef uint64_t m = 0
    cdef int sq
    for sq in range(N_SQ):
        if s.tile_at[sq] >= 0:
            m |= (<uint64_t>1) << s.tile_at[sq]
    return m

cdef inline int discard_total(const GameState* s) noexcept nogil:
    cdef int c, n = 0
    for c in range(N_C):
        n += s.discard[c]
    return n

cdef inline int servants_in_rooms(const GameState* s, int p, int except_room) noexcept nogil:
    cdef int r, n = 0
    for r in range(N_R):
        if r != except_room:
            n += s.rooms[p][r]
    return n

# Run automatic steps until a decision point, a chance event or the end (reference: _advance).
cdef void advance(GameState* s) noexcept nogil:
    cdef int p, st, v, w, only = 0
    cdef const Rules* R = s.rules
    while True:
        p = s.to_move
        st = s.stage
        if st == S_SETUP or st == S_GAME_OVER or st == S_MOVES or st == S_SOURCE:
            return
        w = WINDOW_OF[st]
        if w >= 0:
            if s.hand_size[p] > 0:
                return
            set_stage(s, AFTER_WINDOW[w])
        elif st == S_TURN_START:
            if p == 0 and not s.last_round and tiles_in_park(s) <= R.end_trigger_tiles:
                put8(s, F_LAST_ROUND, 0, &s.last_round, 1)
            if s.priv[p][P_INCOME]:
                add_gold(s, p, s.priv[p][P_INCOME])
            set_stage(s, S_WINDOW1)
        elif st == S_STEP1:
            v = s.rooms[p][PARADE] + majority(s, p, PARADE) + s.priv[p][P_REINFORCE] + s.guards
            w = s.area[p] + servants_in_rooms(s, p, GATE)
            put8(s, F_GATE_MAX, 0, &s.gate_max, v if v < w else w)
            if s.gate_max >= 1:
                return
            set_stage(s, S_WINDOW2)
        elif st == S_GATE_PLACE:
            if s.gate_left == 0:
                put8(s, F_GATE_MAX, 0, &s.gate_max, 0)
                set_stage(s, S_WINDOW2)
            else:
                put8(s, F_GATE_LEFT, 0, &s.gate_left, s.gate_left - 1)
                place(s, p, GATE, S_GATE_PLACE, -1)
                if s.stage == S_SOURCE:
                    put8(s, F_GATE_LEFT, 0, &s.gate_left, s.gate_left + 1)
                    return
        elif st == S_STEP2:
            v = s.rooms[p][STAIRS] + majority(s, p, STAIRS) + s.priv[p][P_MOVE] + s.moves_bonus
            if v > 0 and servants_in_rooms(s, p, -1) > 0:
                put8(s, F_MOVES_LEFT, 0, &s.moves_left, v)
                set_stage(s, S_MOVES)
                return
            set_stage(s, S_WINDOW3)
        elif st == S_STEP3:
            v = s.rooms[p][MINT] + majority(s, p, MINT)
            if v:
                add_gold(s, p, v)
            set_stage(s, S_KING_BONUS)
        elif st == S_KING_BONUS or st == S_MADAME_BONUS:
            v = KING if st == S_KING_BONUS else MADAME
            if majority(s, p, v) and (s.area[p] > 0 or (R.room_fallback and count_source_rooms(s, p, v, &only) > 0)):
                return
            set_stage(s, S_MADAME_BONUS if st == S_KING_BONUS else S_WINDOW4)
        elif st == S_STEP4:
            if s.priv[p][P_TURQUOISE]:
                put8(s, F_TURQ, 0, &s.turq, s.turq + s.priv[p][P_TURQUOISE])
            if s.priv[p][P_VIOLET]:
                put8(s, F_VIOL, 0, &s.viol, s.viol + s.priv[p][P_VIOLET])
            if s.priv[p][P_SECRETARY]:
                put8(s, F_REC, 0, &s.rec, s.rec + s.priv[p][P_SECRETARY])
            set_stage(s, S_RECRUIT)
        elif st == S_RECRUIT:
            if any_recruit(s, p):
                return
            set_stage(s, S_STEP5)
        elif st == S_STEP5:
            put8(s, F_TURQ, 0, &s.turq, 0)
            put8(s, F_VIOL, 0, &s.viol, 0)
            put8(s, F_REC, 0, &s.rec, 0)
            put8(s, F_DRAWS_LEFT, 0, &s.draws_left, s.rooms[p][BACKDOOR] + s.priv[p][P_CARDS])
            set_stage(s, S_DRAW)
        elif st == S_DRAW:
            if s.draws_left > 0 and s.deck_size == 0 and discard_total(s) > 0:
                reshuffle(s)
            if s.draws_left > 0 and s.deck_size > 0:
                return
            put8(s, F_DRAWS_LEFT, 0, &s.draws_left, 0)
            set_stage(s, S_WINDOW5)
        elif st == S_TURN_END:
            put8(s, F_INTRIGUE, 0, &s.intrigue, 0)
            put8(s, F_GUARDS, 0, &s.guards, 0)
            put8(s, F_MOVES_BONUS, 0, &s.moves_bonus, 0)
            v = (p + 1) % s.n_players
            if v == 0:
                if s.last_round or s.round >= R.round_cap:
                    set_stage(s, S_GAME_OVER)
                    return
                if not s.keyless:
                    s.key ^= zkey(F_ROUND, 0, s.round) ^ zkey(F_ROUND, 0, s.round + 1)
                s.round += 1
            put8(s, F_TO_MOVE, 0, &s.to_move, v)
            set_stage(s, S_TURN_START)
        else:
            return

# -1 when the game waits at s's stage (its automatic steps would change nothing, as after
# every apply_action); else the stage they would go on to. Run at construction only.
cdef int stage_after_advance(const GameState* s) noexcept nogil:
    cdef GameState probe
    memcpy(&probe, s, sizeof(GameState))
    advance(&probe)
    if memcmp(&probe, s, sizeof(GameState)) == 0:
        return -1
    return probe.stage

cdef void check_failed(const char* what, int action, int stage) noexcept nogil:
    fprintf(stderr, "palais checked build: %s (action %d, stage %d)\n", what, action, stage)
    abort()

cdef void check_before(const GameState* s, int action) noexcept nogil:
    cdef int buf[LEGAL_BUF]
    cdef int n = legal_actions(s, buf), i
    for i in range(n):
        if buf[i] == action:
            return
    check_failed("illegal action applied", action, s.stage)

cdef void check_after(const GameState* s, int action) noexcept nogil:
    cdef int p, r, c
    if not s.keyless and s.key != compute_key(s):
        check_failed("incremental key differs from the recomputed key", action, s.stage)
    if s.park_mask != compute_park_mask(s) or s.park_tiles != compute_park_tiles(s):
        check_failed("park_mask or park_tiles differs from tile_at", action, s.stage)
    for p in range(s.n_players):
        if not s.keyless and s.hand_key[p] != private_key(s, p):
            check_failed("incremental private key differs", action, s.stage)
        if s.area[p] < 0 or s.supply[p] < 0 or s.gold[p] < 0 or s.hand_size[p] < 0:
            check_failed("a seat's count went negative", action, s.stage)
        for r in range(N_R):
            if s.rooms[p][r] < 0:
                check_failed("a room count went negative", action, s.stage)
        for c in range(N_C):
            if s.hand[p][c] < 0:
                check_failed("a hand count went negative", action, s.stage)
    for c in range(N_C):
        if s.deck[c] < 0 or s.discard[c] < 0:
            check_failed("a pile count went negative", action, s.stage)

# Perform one decision or chance outcome (assumed legal), then the automatic steps after it.
cdef void apply_action(GameState* s, int action) noexcept nogil:
    cdef int p = s.to_move, st = s.stage, a, b, room
    if PALAIS_CHECKED:
        check_before(s, action)
    if st == S_SETUP:
        add_area(s, p, -1)
        add_room(s, p, action - A_ROOM, 1)
        put8(s, F_SETUP_COUNT, 0, &s.setup_count, s.setup_count + 1)
        if s.setup_count == SETUP_FREE * s.n_players:
            put8(s, F_TO_MOVE, 0, &s.to_move, 0)
            if not s.keyless:
                s.key ^= zkey(F_ROUND, 0, s.round) ^ zkey(F_ROUND, 0, 1)
            s.round = 1
            set_stage(s, S_TURN_START)
        else:
            put8(s, F_TO_MOVE, 0, &s.to_move, s.setup_count // SETUP_FREE)
    elif WINDOW_OF[st] >= 0:
        if action == A_CONTINUE:
            set_stage(s, AFTER_WINDOW[WINDOW_OF[st]])
        else:
            play_card(s, p, action - A_PLAY)
    elif st == S_STEP1:
        put8(s, F_GATE_LEFT, 0, &s.gate_left, action - A_GATE)
        set_stage(s, S_GATE_PLACE)
    elif st == S_SOURCE:
        place_from_room(s, p, action - A_ROOM)
    elif st == S_MOVES:
        if action == A_END:
            put8(s, F_MOVES_LEFT, 0, &s.moves_left, 0)
        else:
            a = (action - A_MOVE) // N_R
            b = (action - A_MOVE) % N_R
            add_room(s, p, a, -1)
            add_room(s, p, b, 1)
            put8(s, F_MOVES_LEFT, 0, &s.moves_left, s.moves_left - 1)
        if s.moves_left == 0:
            set_stage(s, S_WINDOW3)
    elif st == S_KING_BONUS or st == S_MADAME_BONUS:
        room = KING if st == S_KING_BONUS else MADAME
        a = S_MADAME_BONUS if st == S_KING_BONUS else S_WINDOW4
        set_stage(s, a)
        if action == A_TAKE:
            place(s, p, room, a, -1)
    elif st == S_RECRUIT:
        if action == A_END:
            set_stage(s, S_STEP5)
        else:
            recruit(s, p, action - A_RECRUIT)
    elif st == S_DRAW:
        draw_card(s, p, action)
    advance(s)
    if s.stage != st and not s.keyless:
        s.key ^= zkey(F_STAGE, 0, st) ^ zkey(F_STAGE, 0, s.stage)
    if PALAIS_CHECKED:
        check_after(s, action)

# ---------------------------------------------------------------- keys from scratch
cdef uint64_t private_key(const GameState* s, int p) noexcept nogil:
    cdef uint64_t k = 0
    cdef int c
    for c in range(N_C):
        k ^= zkey(F_HAND, p * N_C + c, s.hand[p][c]) ^ zkey(F_DRAWN_T, p * N_C + c, s.drawn_t[p][c])
    return k

cdef uint64_t public_key(const GameState* s) noexcept nogil:
    cdef uint64_t k = 0
    cdef int i, p, n = s.n_players
    k ^= zkey(F_NPLAYERS, 0, n) ^ zkey(F_DECK_SIZE, 0, s.deck_size) ^ zkey(F_ROUND, 0, s.round)
    k ^= zkey(F_LAST_ROUND, 0, s.last_round) ^ zkey(F_STAGE, 0, s.stage) ^ zkey(F_TO_MOVE, 0, s.to_move)
    k ^= zkey(F_SETUP_COUNT, 0, s.setup_count) ^ zkey(F_GATE_LEFT, 0, s.gate_left)
    k ^= zkey(F_GATE_MAX, 0, s.gate_max) ^ zkey(F_MOVES_LEFT, 0, s.moves_left)
    k ^= zkey(F_SOURCE_FOR, 0, s.source_for) ^ zkey(F_PARK_TARGET, 0, s.park_target)
    k ^= zkey(F_TURQ, 0, s.turq) ^ zkey(F_VIOL, 0, s.viol) ^ zkey(F_REC, 0, s.rec)
    k ^= zkey(F_GUARDS, 0, s.guards) ^ zkey(F_MOVES_BONUS, 0, s.moves_bonus)
    k ^= zkey(F_INTRIGUE, 0, s.intrigue) ^ zkey(F_DRAWS_LEFT, 0, s.draws_left)
    for i in range(N_R):
        k ^= zkey(F_LAYOUT, i, s.layout[i])
    for i in range(N_SQ):
        k ^= zkey(F_TILE_AT, i, s.tile_at[i]) ^ zkey(F_PARK_SERVANT, i, s.park_servant[i])
    for i in range(s.rules.n_tiles):
        k ^= zkey(F_OWNER, i, s.owner[i])
    for i in range(N_C):
        k ^= zkey(F_DISCARD, i, s.discard[i]) ^ zkey(F_EPOCH, i, s.epoch[i])
    for p in range(n):
        k ^= zkey(F_AREA, p, s.area[p]) ^ zkey(F_SUPPLY, p, s.supply[p]) ^ zkey(F_GOLD, p, s.gold[p])
        k ^= zkey(F_HAND_SIZE, p, s.hand_size[p]) ^ zkey(F_HONOURS, p, s.honours[p])
        k ^= zkey(F_DRAWN_N, p, s.drawn_n[p])
        for i in range(N_R):
            k ^= zkey(F_ROOMS, p * N_R + i, s.rooms[p][i])
        for i in range(N_C):
            k ^= zkey(F_PLAYED_SINCE, p * N_C + i, s.played_since[p][i])
    return k

cdef uint64_t compute_key(const GameState* s) noexcept nogil:
    cdef uint64_t k = public_key(s)
    cdef int p
    for p in range(s.n_players):
        k ^= private_key(s, p)
    return k

cdef uint64_t info_key(const GameState* s, int seat) noexcept nogil:
    cdef uint64_t k = s.key
    cdef int p
    for p in range(s.n_players):
        if p != seat:
            k ^= s.hand_key[p]
    return k

# ---------------------------------------------------------------- scoring
cdef void final_scores(const GameState* s, int* out) noexcept nogil:
    cdef const Rules* R = s.rules
    cdef int n = s.n_players, p, t, side, i, sq, count, group, shared, place
    cdef int counts[MAX_P]
    cdef int best
    for p in range(n):
        out[p] = R.honour_vp * s.honours[p] + (s.hand_size[p] if s.hand_size[p] < R.hand_vp_cap else R.hand_vp_cap)
    for t in range(R.n_tiles):
        if s.owner[t] >= 0:
            out[s.owner[t]] += R.tile_vp[t]
    for side in range(4):
        for p in range(n):
            counts[p] = 0
        for i in range(6):
            sq = SIDE_SQ[side][i]
            if s.park_servant[sq] >= 0:
                counts[s.park_servant[sq]] += 1
        place = 0
        while place < 2:
            best = 0
            for p in range(n):
                if counts[p] > best:
                    best = counts[p]
            if best == 0:
                break
            group = 0
            for p in range(n):
                if counts[p] == best:
                    group += 1
            shared = 0
            for i in range(place, place + group):
                if i < 2:
                    shared += R.park_points[side][i]
            for p in range(n):
                if counts[p] == best:
                    out[p] += shared // group
                    counts[p] = 0
            place += group

cdef void final_returns(const GameState* s, double* out) noexcept nogil:
    cdef int sc[MAX_P]
    cdef int p, n = s.n_players, winners = 0, bs = -1, bg = -1
    final_scores(s, sc)
    for p in range(n):
        if sc[p] > bs or (sc[p] == bs and s.gold[p] > bg):
            bs = sc[p]
            bg = s.gold[p]
    for p in range(n):
        if sc[p] == bs and s.gold[p] == bg:
            winners += 1
    for p in range(n):
        out[p] = (1.0 / winners) if (sc[p] == bs and s.gold[p] == bg) else 0.0

# ---------------------------------------------------------------- hidden information
cdef void view_state(const GameState* s, int seat, GameState* out) noexcept nogil:
    cdef int q, c
    memcpy(out, s, sizeof(GameState))
    for q in range(s.n_players):
        if q != seat:
            for c in range(N_C):
                out.deck[c] += out.hand[q][c]
                put_private(out, F_HAND, q, c, &out.hand[q][c], 0)
                put_private(out, F_DRAWN_T, q, c, &out.drawn_t[q][c], 0)
    out.observer = seat

cdef int weighted_pick(const int* w, int n, Rng* rng) noexcept nogil:
    cdef int i, total = 0, r
    for i in range(n):
        total += w[i]
    if total <= 0:
        return 0            # an inconsistent state; never reached from a legal game
    r = below(rng, total)
    for i in range(n):
        if r < w[i]:
            return i
        r -= w[i]
    return n - 1

# Step 2 of engine/determinize.py: explain one more of seat q's draws as a played card.
cdef int lift(const GameState* s, const int* others, int n_others, int played[MAX_P][N_C],
              int* explained, int* budget, int q, int* seen, Rng* rng) noexcept nogil:
    cdef int as_played[N_C]
    cdef int c, i, q2, v, total = 0, spare
    seen[q] = 1
    for c in range(N_C):
        v = s.played_since[q][c] - played[q][c]
        as_played[c] = v if v < budget[c] else budget[c]
        total += as_played[c]
    if total > 0:
        c = weighted_pick(as_played, N_C, rng)
        played[q][c] += 1
        explained[q] += 1
        budget[c] -= 1
        return 1
    for c in range(N_C):
        if played[q][c] >= s.played_since[q][c]:
            continue
        for i in range(n_others):
            q2 = others[i]
            if seen[q2] or played[q2][c] == 0:
                continue
            spare = explained[q2] - 1 >= s.drawn_n[q2] - s.hand_size[q2]
            if spare or lift(s, others, n_others, played, explained, budget, q2, seen, rng):
                played[q2][c] -= 1
                explained[q2] -= 1
                played[q][c] += 1
                explained[q] += 1
                return 1
    return 0

# Step 1 of engine/determinize.py: charge one needed card of type c to a seat (an augmenting
# path over seats and types, seats tried from `start` on).
cdef int charge(const GameState* s, const int* others, int n_others, int played[MAX_P][N_C],
                int* explained, int c, int* seen, int start) noexcept nogil:
    cdef int i, q, c2
    for i in range(n_others):
        q = others[(start + i) % n_others]
        if seen[q] or played[q][c] >= s.played_since[q][c]:
            continue
        seen[q] = 1
        if explained[q] < s.drawn_n[q]:
            played[q][c] += 1
            explained[q] += 1
            return 1
        for c2 in range(N_C):
            if c2 != c and played[q][c2] > 0 and charge(s, others, n_others, played, explained, c2, seen, start):
                played[q][c2] -= 1
                played[q][c] += 1
                return 1
    return 0

# Steps 1-3 of engine/determinize.py: explain every other seat's draws since the epoch as
# played or kept cards; 0 when this try got stuck.
cdef int explain_draws(const GameState* s, int seat, const int* epoch_left, const int* pool,
                       Rng* rng, int played[MAX_P][N_C], int kept[MAX_P][N_C],
                       int* budget) noexcept nogil:
    cdef int explained[MAX_P]
    cdef int others[MAX_P]
    cdef int seen[MAX_P]
    cdef int as_played[N_C]
    cdef int q, c, k, i, need, n_others = 0, start, sum_play, sum_budget, kept_total, v
    cdef bint can_play, can_keep
    for q in range(MAX_P):
        explained[q] = 0
        for c in range(N_C):
            played[q][c] = 0
            kept[q][c] = 0
    for c in range(N_C):
        budget[c] = epoch_left[c]
    for i in range(s.n_players):
        if i != seat:
            others[n_others] = i
            n_others += 1
    for c in range(N_C):                # Step 1
        need = epoch_left[c] - pool[c]
        while True:
            v = 0
            for q in range(s.n_players):
                if q != seat:
                    v += played[q][c]
            if v >= need:
                break
            if budget[c] == 0:
                return 0
            start = below(rng, n_others)
            seen[0] = seen[1] = seen[2] = seen[3] = 0
            if not charge(s, others, n_others, played, explained, c, seen, start):
                return 0
            budget[c] -= 1
    for q in range(s.n_players):        # Step 2: draws beyond the hand size were played
        if q == seat:
            continue
        while explained[q] < s.drawn_n[q] - s.hand_size[q]:
            seen[0] = seen[1] = seen[2] = seen[3] = 0
            if not lift(s, others, n_others, played, explained, budget, q, seen, rng):
                return 0
    for q in range(s.n_players):        # Step 3
        if q == seat:
            continue
        while explained[q] < s.drawn_n[q]:
            sum_play = 0
            sum_budget = 0
            kept_total = 0
            for c in range(N_C):
                v = s.played_since[q][c] - played[q][c]
                as_played[c] = v if v < budget[c] else budget[c]
                sum_play += as_played[c]
                sum_budget += budget[c]
                kept_total += kept[q][c]
            can_play = sum_play > 0
            can_keep = kept_total < s.hand_size[q] and sum_budget > 0
            if not can_play and not can_keep:
                return 0
            if can_play and (not can_keep or below(rng, 2) == 0):
                c = weighted_pick(as_played, N_C, rng)
                played[q][c] += 1
            else:
                c = weighted_pick(budget, N_C, rng)
                kept[q][c] += 1
            budget[c] -= 1
            explained[q] += 1
    return 1

cdef void determinize_state(const GameState* s, int seat, Rng* rng, GameState* out) noexcept nogil:
    cdef int pool[N_C]
    cdef int epoch_left[N_C]
    cdef int deck[N_C]
    cdef int left[N_C]
    cdef int played[MAX_P][N_C]
    cdef int kept[MAX_P][N_C]
    cdef int row[N_C]
    cdef int q, c, i, attempt, ok = 0, total
    for c in range(N_C):
        pool[c] = s.deck[c]
        for q in range(s.n_players):
            if q != seat:
                pool[c] += s.hand[q][c]
        epoch_left[c] = s.epoch[c] - s.drawn_t[seat][c]
    for attempt in range(MAX_TRIES):
        ok = explain_draws(s, seat, epoch_left, pool, rng, played, kept, deck)
        if ok:
            break
    for c in range(N_C):
        left[c] = pool[c]
    if not ok:                      # never seen in a real game: drop the epoch constraint
        for q in range(MAX_P):
            for c in range(N_C):
                played[q][c] = 0
                kept[q][c] = 0
        for c in range(N_C):
            deck[c] = 0
        for i in range(s.deck_size):
            c = weighted_pick(left, N_C, rng)
            deck[c] += 1
            left[c] -= 1
    else:
        for c in range(N_C):
            left[c] -= deck[c]
            for q in range(s.n_players):
                if q != seat:
                    left[c] -= kept[q][c]
    memcpy(out, s, sizeof(GameState))
    out.observer = -1
    for c in range(N_C):
        out.deck[c] = deck[c]
    for q in range(s.n_players):
        if q == seat:
            continue
        total = 0
        for c in range(N_C):
            row[c] = kept[q][c]
            total += kept[q][c]
        for i in range(s.hand_size[q] - total):
            c = weighted_pick(left, N_C, rng)
            row[c] += 1
            left[c] -= 1
        for c in range(N_C):
            put_private(out, F_HAND, q, c, &out.hand[q][c], row[c])
            put_private(out, F_DRAWN_T, q, c, &out.drawn_t[q][c], played[q][c] + kept[q][c])

# ---------------------------------------------------------------- random play
# A uniformly random legal action; a chance event follows the pile's probabilities.
cdef int random_action(const GameState* s, Rng* rng, int* buf) noexcept nogil:
    cdef int w[N_C]
    cdef int c, n
    if s.stage == S_DRAW and not (s.observer >= 0 and s.observer != s.to_move):
        for c in range(N_C):
            w[c] = s.deck[c]
        return A_DRAW + weighted_pick(w, N_C, rng)
    n = legal_actions(s, buf)
    return buf[below(rng, n)]

# Keyless: no key is read during the playout, so the ~8 key updates per action are skipped
# and the keys are recomputed once at the end (the same values, see check_after).
cdef int random_playout(GameState* s, Rng* rng) noexcept nogil:
    cdef int buf[LEGAL_BUF]
    cdef int steps = 0, p
    s.keyless = 1
    while s.stage != S_GAME_OVER:
        apply_action(s, random_action(s, rng, buf))
        steps += 1
    s.keyless = 0
    s.key = compute_key(s)
    for p in range(s.n_players):
        s.hand_key[p] = private_key(s, p)
    return steps

# ---------------------------------------------------------------- perft
# Sequences of `depth` decisions and chance events from `s`; a chance event branches once per
# card type it can produce; a game that ends before `depth` counts 0 (RULES.md §10).
cdef long long perft_count(const GameState* s, int depth) noexcept nogil:
    cdef int buf[LEGAL_BUF]
    cdef int n, i
    cdef long long total = 0
    cdef GameState child
    if depth == 0:
        return 1
    if s.stage == S_GAME_OVER:
        return 0
    n = legal_actions(s, buf)
    for i in range(n):
        memcpy(&child, s, sizeof(GameState))
        apply_action(&child, buf[i])
        total += perft_count(&child, depth - 1)
    return total

# ================================================================ Python API
cdef class RulesBox:
    """Holds one game's flattened component data and options for the C code."""

    def __cinit__(self, components, options):
        cdef int i, t
        memset(&self.rules, 0, sizeof(Rules))
        self.components = components
        self.options = options
        _check_rules(components, options)
        self.rules.n_tiles = len(components.tiles)
        for t, tile in enumerate(components.tiles):
            self.rules.tile_gold[t] = tile.gold
            self.rules.tile_turq[t] = tile.turquoise
            self.rules.tile_viol[t] = tile.violet
            self.rules.tile_vp[t] = tile.vp
            self.rules.tile_priv[t] = tile.privilege
            self.rules.tile_amount[t] = tile.amount
        for i in range(N_C):
            self.rules.cards_per_type[i] = components.cards_per_type[i]
        for i in range(4):
            self.rules.park_points[i][0] = components.park_points[i][0]
            self.rules.park_points[i][1] = components.park_points[i][1]
        self.rules.round_cap = options.round_cap
        self.rules.end_trigger_tiles = options.end_trigger_tiles
        self.rules.setup_on_gate = 1 if options.setup_on_gate else 0
        self.rules.room_fallback = 1 if options.room_fallback else 0
        self.rules.hand_vp_cap = options.hand_vp_cap
        self.rules.honour_vp = options.honour_vp
        for i in range(TILE_COST_MAX + 1):
            for t in range(self.rules.n_tiles):
                if self.rules.tile_gold[t] <= i:
                    self.rules.gold_ok[i] |= (<uint64_t>1) << t
                if self.rules.tile_turq[t] <= i:
                    self.rules.turq_ok[i] |= (<uint64_t>1) << t
                if self.rules.tile_viol[t] <= i:
                    self.rules.viol_ok[i] |= (<uint64_t>1) << t


def _defaults(components, options):
    from engine.components import default_components
    from engine.options import RuleOptions
    return components or default_components(), options or RuleOptions()


def _check_rules(components, options):
    """Refuse component data and options the C tables cannot hold. load_components checks
    a set read from a file far more closely; this guards the core against a set built by
    hand (ComponentSet's constructor does not check)."""
    def fail(why):
        raise PalaisError(f"component set {components.name!r}: {why}")
    tiles = components.tiles
    if not 1 <= len(tiles) <= MAX_T:
        fail(f"it holds {len(tiles)} tiles, expected 1..{MAX_T}")
    per_privilege = [0] * N_PRIV
    for t, tile in enumerate(tiles):
        for name in ("gold", "turquoise", "violet", "vp", "amount"):
            value = getattr(tile, name)
            if not isinstance(value, int) or not 0 <= value <= TILE_COST_MAX:
                fail(f"tile {t + 1}: {name} {value!r} is outside 0..{TILE_COST_MAX}")
        if not isinstance(tile.privilege, int) or not 0 <= tile.privilege < N_PRIV:
            fail(f"tile {t + 1}: privilege {tile.privilege!r} is not 0..{N_PRIV - 1}")
        if tile.privilege != P_NONE:
            per_privilege[tile.privilege] += 1
            if tile.amount > 9:
                fail(f"tile {t + 1}: amount {tile.amount} is more than 9")
    for i in range(N_PRIV):
        if per_privilege[i] > MAX_TILES_PER_PRIVILEGE:
            fail(f"{per_privilege[i]} tiles have privilege {PRIVILEGES[i]}, at most "
                 f"{MAX_TILES_PER_PRIVILEGE}")
    cards = components.cards_per_type
    if len(cards) != N_C or not all(isinstance(c, int) and 0 <= c <= MAX_CARDS_PER_TYPE for c in cards):
        fail(f"cards per type {cards!r}: expected {N_C} counts in 0..{MAX_CARDS_PER_TYPE}")
    points = components.park_points
    if len(points) != 4 or not all(len(pair) == 2 and all(isinstance(v, int) and 0 <= v <= 100
                                                          for v in pair) for pair in points):
        fail(f"park points {points!r}: expected 4 pairs in 0..100")


cdef class State:
    """A position of a game, backed by the C struct. Same API as engine.reference.ReferenceState."""

    def __init__(self, *args, **kwargs):
        raise TypeError("use State.new_game(...) or State.from_snapshot(...)")

    @staticmethod
    cdef State _wrap(RulesBox box):
        cdef State out = State.__new__(State)
        out.box = box
        out.st.rules = &box.rules
        return out

    @staticmethod
    def new_game(int n_players, seed=0, components=None, options=None, first_game=False,
                 deal=None, layout=None):
        from engine.deal import initial_snapshot
        components, options = _defaults(components, options)
        snap = initial_snapshot(n_players, seed, components, first_game, deal, layout)
        cdef State out = State._wrap(RulesBox(components, options))
        out._load(snap)
        advance(&out.st)
        out.st.key = compute_key(&out.st)      # advance() leaves the stage's key to its caller
        return out

    @staticmethod
    def from_snapshot(snap, components=None, options=None):
        components, options = _defaults(components, options)
        cdef State out = State._wrap(RulesBox(components, options))
        out._load(snap)
        return out

    # Step 1: check_snapshot (engine/validate.py) refuses, naming the field, any value the
    # struct cannot hold and any bookkeeping no game has. Step 2: the fields are copied.
    # Step 3: the position must be one where the game waits (its automatic steps would
    # change nothing) and, unless it is over, offer a legal action; else the core's loops
    # could run off a count it never expected.
    cdef void _load(self, snap) except *:
        check_snapshot(snap, self.box.components)
        cdef GameState* s = &self.st
        cdef const Rules* R = s.rules
        cdef int p, r, c, i, t, cell, row, col, k
        s.n_players = snap.n_players
        s.observer = snap.observer
        for i in range(N_R):
            s.layout[i] = snap.layout[i]
        for i in range(N_SQ):
            s.tile_at[i] = snap.tile_at[i]
            s.park_servant[i] = snap.park_servant[i]
        for t in range(MAX_T):
            s.owner[t] = snap.owner[t] if t < R.n_tiles else -1
        memset(s.rooms, 0, sizeof(s.rooms))
        memset(s.hand, 0, sizeof(s.hand))
        memset(s.drawn_t, 0, sizeof(s.drawn_t))
        memset(s.played_since, 0, sizeof(s.played_since))
        memset(s.priv, 0, sizeof(s.priv))
        for p in range(MAX_P):
            s.area[p] = s.supply[p] = s.hand_size[p] = s.honours[p] = s.drawn_n[p] = 0
            s.gold[p] = 0
        for p in range(s.n_players):
            s.area[p] = snap.area[p]
            s.supply[p] = snap.supply[p]
            s.gold[p] = snap.gold[p]
            s.hand_size[p] = snap.hand_size[p]
            s.honours[p] = snap.honours[p]
            s.drawn_n[p] = snap.drawn_n[p]
            for r in range(N_R):
                s.rooms[p][r] = snap.rooms[p][r]
            for c in range(N_C):
                s.hand[p][c] = snap.hand[p][c]
                s.drawn_t[p][c] = snap.drawn_t[p][c]
                s.played_since[p][c] = snap.played_since[p][c]
        for t in range(R.n_tiles):
            if s.owner[t] >= 0:
                s.priv[s.owner[t]][R.tile_priv[t]] += R.tile_amount[t] if R.tile_priv[t] == P_INCOME else 1
        for c in range(N_C):
            s.deck[c] = snap.deck[c]
            s.discard[c] = snap.discard[c]
            s.epoch[c] = snap.epoch[c]
        s.deck_size = snap.deck_size
        s.round = snap.round
        s.last_round = snap.last_round
        s.stage = snap.stage
        s.to_move = snap.to_move
        s.setup_count = snap.setup_count
        s.gate_left = snap.gate_left
        s.gate_max = snap.gate_max
        s.moves_left = snap.moves_left
        s.source_for = snap.source_for
        s.park_target = snap.park_target
        s.turq = snap.turq
        s.viol = snap.viol
        s.rec = snap.rec
        s.guards = snap.guards
        s.moves_bonus = snap.moves_bonus
        s.intrigue = snap.intrigue
        s.draws_left = snap.draws_left
        cell_of = {snap.layout[i]: i for i in range(N_R)}
        for r in range(N_R):
            row, col = divmod(cell_of[r], 3)
            near = sorted(snap.layout[rr * 3 + cc] for rr, cc in
                          ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
                          if 0 <= rr < 3 and 0 <= cc < 3)
            s.adj_n[r] = len(near)
            for k in range(4):
                s.adj[r][k] = near[k] if k < len(near) else -1
        s.keyless = 0
        s.park_mask = compute_park_mask(s)
        s.park_tiles = compute_park_tiles(s)
        s.key = compute_key(s)
        for p in range(MAX_P):
            s.hand_key[p] = private_key(s, p) if p < s.n_players else 0
        self._check_runnable()

    cdef void _check_runnable(self) except *:
        cdef int buf[LEGAL_BUF]
        cdef int next_stage = stage_after_advance(&self.st)
        name = STAGES[self.st.stage]
        if next_stage >= 0:
            where = ("" if next_stage == self.st.stage
                     else f": its automatic steps go on to {STAGES[next_stage]}")
            raise SnapshotError("stage", f"the game does not wait at {name} in this "
                                         f"position{where}")
        if self.st.stage != S_GAME_OVER and legal_actions(&self.st, buf) == 0:
            raise SnapshotError("stage", f"{name} offers no legal action in this position")

    def snapshot(self):
        cdef GameState* s = &self.st
        cdef int n = s.n_players
        return Snapshot(
            n_players=n,
            layout=[s.layout[i] for i in range(N_R)],
            tile_at=[s.tile_at[i] for i in range(N_SQ)],
            park_servant=[s.park_servant[i] for i in range(N_SQ)],
            rooms=[[s.rooms[p][r] for r in range(N_R)] for p in range(n)],
            area=[s.area[p] for p in range(n)],
            supply=[s.supply[p] for p in range(n)],
            gold=[s.gold[p] for p in range(n)],
            owner=[s.owner[t] for t in range(s.rules.n_tiles)],
            hand=[[s.hand[p][c] for c in range(N_C)] for p in range(n)],
            hand_size=[s.hand_size[p] for p in range(n)],
            deck=[s.deck[c] for c in range(N_C)],
            deck_size=s.deck_size,
            discard=[s.discard[c] for c in range(N_C)],
            honours=[s.honours[p] for p in range(n)],
            epoch=[s.epoch[c] for c in range(N_C)],
            drawn_t=[[s.drawn_t[p][c] for c in range(N_C)] for p in range(n)],
            drawn_n=[s.drawn_n[p] for p in range(n)],
            played_since=[[s.played_since[p][c] for c in range(N_C)] for p in range(n)],
            round=s.round, last_round=s.last_round, stage=s.stage, to_move=s.to_move,
            setup_count=s.setup_count, gate_left=s.gate_left, gate_max=s.gate_max,
            moves_left=s.moves_left, source_for=s.source_for, park_target=s.park_target,
            turq=s.turq, viol=s.viol, rec=s.rec, guards=s.guards, moves_bonus=s.moves_bonus,
            intrigue=s.intrigue, draws_left=s.draws_left, observer=s.observer,
        )

    cpdef State copy(self):
        cdef State out = State._wrap(self.box)
        memcpy(&out.st, &self.st, sizeof(GameState))
        out.st.rules = &self.box.rules
        return out

    def __copy__(self):
        return self.copy()

    @property
    def components(self):
        return self.box.components

    @property
    def options(self):
        return self.box.options

    @property
    def n_players(self):
        return self.st.n_players

    @property
    def stage(self):
        return self.st.stage

    @property
    def to_move(self):
        return self.st.to_move

    @property
    def observer(self):
        return self.st.observer

    @property
    def round(self):
        return self.st.round

    def current_player(self):
        return current_player(&self.st)

    def is_terminal(self):
        return self.st.stage == S_GAME_OVER

    def is_chance(self):
        return self.st.stage == S_DRAW

    @property
    def key(self):
        return self.st.key

    def compute_key(self):
        return compute_key(&self.st)

    def info_key(self, int seat):
        return info_key(&self.st, seat)

    def tiles_in_park(self):
        return tiles_in_park(&self.st)

    @property
    def park_mask(self):
        """The cached bit mask of park squares holding a tile (bit sq for square sq)."""
        return self.st.park_mask

    @property
    def park_tiles(self):
        """The cached bit mask of the tiles in the park (bit t for tile t)."""
        return self.st.park_tiles

    def privileges(self, int seat):
        return [self.st.priv[seat][i] for i in range(N_PRIV)]

    def has_majority(self, int seat, int room):
        _check_seat_room(self, seat, room)
        return bool(has_majority(&self.st, seat, room))

    def legal_actions(self):
        cdef int buf[LEGAL_BUF]
        cdef int n = legal_actions(&self.st, buf)
        return [buf[i] for i in range(n)]

    def deck_counts(self):
        """Per card type, the draw pile's count (in a view: the observer's unknown pool)."""
        return [self.st.deck[c] for c in range(N_C)]

    def chance_outcomes(self):
        cdef GameState* s = &self.st
        if s.stage != S_DRAW:
            return []
        if s.observer >= 0 and s.observer != s.to_move:
            return [(A_DRAW_UNKNOWN, 1.0)]
        total = sum(s.deck[c] for c in range(N_C))
        return [(A_DRAW + c, s.deck[c] / total) for c in range(N_C) if s.deck[c] > 0]

    def apply(self, int action):
        """Perform one legal decision or chance outcome (IllegalAction otherwise)."""
        cdef int buf[LEGAL_BUF]
        cdef int n = legal_actions(&self.st, buf), i
        for i in range(n):
            if buf[i] == action:
                apply_action(&self.st, action)
                return
        raise IllegalAction(f"action {action} is not legal here")

    def scores(self):
        cdef int out[MAX_P]
        final_scores(&self.st, out)
        return [out[p] for p in range(self.st.n_players)]

    def returns(self):
        cdef double out[MAX_P]
        final_returns(&self.st, out)
        return [out[p] for p in range(self.st.n_players)]

    def _check_seat(self, int seat):
        if not 0 <= seat < self.st.n_players:
            raise PalaisError(f"no seat {seat + 1} in a {self.st.n_players}-player game")
        if self.st.observer >= 0 and self.st.observer != seat:
            raise PalaisError(f"a view from seat {self.st.observer + 1} cannot be seen from seat {seat + 1}")

    def view(self, int seat):
        """The position as `seat` sees it (other hands merged into the unknown pool)."""
        self._check_seat(seat)
        cdef State out = State._wrap(self.box)
        view_state(&self.st, seat, &out.st)
        return out

    def public_view(self):
        """The position as an onlooker sees it: every hand unknown (observer = 4, no seat).

        Which decision comes next depends only on public information (RULES.md §10), so a
        game's sequence of seats and decision points can be followed on this view."""
        cdef State out = State._wrap(self.box)
        view_state(&self.st, MAX_P, &out.st)
        return out

    def determinize(self, int seat, rng):
        """A full state agreeing with all `seat` knows; `rng` is an engine.rng.Rng (advanced)."""
        self._check_seat(seat)
        cdef Rng r
        r.state = rng.state
        cdef State out = State._wrap(self.box)
        determinize_state(&self.st, seat, &r, &out.st)
        rng.state = r.state
        return out

    def perft(self, int depth):
        """Count the action sequences of length `depth` (see RULES.md §10 'perft')."""
        if depth < 0:
            raise PalaisError("perft depth must be >= 0")
        cdef long long n
        with nogil:
            n = perft_count(&self.st, depth)
        return n

    def perft_divide(self, int depth):
        """[(action, perft(depth - 1) after it)] for each legal action, in canonical order."""
        from engine.perft import perft_divide
        return perft_divide(self, depth)

    def playout(self, rng):
        """Play uniformly random actions to the end (chance by the pile); returns the steps."""
        cdef Rng r
        r.state = rng.state
        cdef int steps
        with nogil:
            steps = random_playout(&self.st, &r)
        rng.state = r.state
        return steps
