# The C contract between the rules core and the search: the game state as a plain struct
# (copied by value, so cloning for a determinization is a memcpy) and the nogil functions
# that read and change it. `engine/_state.pyx` implements them; `search/` cimports this file.

from libc.stdint cimport uint64_t, int8_t, int32_t

cdef enum:
    MAX_P = 4
    N_R = 9          # rooms
    N_C = 9          # card types
    N_SQ = 36        # park squares
    MAX_T = 48       # tiles in a component set
    N_PRIV = 10
    LEGAL_BUF = 96   # a buffer this long holds any decision point's options
    TILE_COST_MAX = 100

# Rooms, cards, privileges, action offsets and stages: the values of engine/constants.py.
cdef enum:
    GATE = 0
    PARADE = 1
    STAIRS = 2
    MINT = 3
    KING = 4
    MADAME = 5
    OFFICE = 6
    BACKDOOR = 7
    CARDINAL = 8
    SOURCE_PARK = 9

    C_GOLD = 0
    C_MOVES = 1
    C_GUARDS = 2
    C_KINGSEAL = 3
    C_MADAMESEAL = 4
    C_LETTER = 5
    C_INTRIGUE = 6
    C_FOOTMAN = 7
    C_HONOUR = 8

    P_NONE = 0
    P_INCOME = 1
    P_SUPPLY = 2
    P_MOVE = 3
    P_REINFORCE = 4
    P_TURQUOISE = 5
    P_VIOLET = 6
    P_SECRETARY = 7
    P_CARDS = 8
    P_FAVOUR = 9

    A_ROOM = 0
    A_GATE = 9
    A_MOVE = 35
    A_RECRUIT = 116
    A_PLAY = 152
    A_DRAW = 161
    A_TAKE = 170
    A_CONTINUE = 171
    A_END = 172
    A_DECLINE = 173
    A_DRAW_UNKNOWN = 174

    S_SETUP = 0
    S_TURN_START = 1
    S_WINDOW1 = 2
    S_STEP1 = 3
    S_GATE_PLACE = 4
    S_WINDOW2 = 5
    S_STEP2 = 6
    S_MOVES = 7
    S_WINDOW3 = 8
    S_STEP3 = 9
    S_KING_BONUS = 10
    S_MADAME_BONUS = 11
    S_WINDOW4 = 12
    S_STEP4 = 13
    S_RECRUIT = 14
    S_SOURCE = 15
    S_STEP5 = 16
    S_DRAW = 17
    S_WINDOW5 = 18
    S_TURN_END = 19
    S_GAME_OVER = 20
    N_STAGES = 21

    CHANCE = -1
    TERMINAL = -2

# Component data and rule options, flattened for C. One per game; states point to it.
cdef struct Rules:
    int n_tiles
    int tile_gold[MAX_T]
    int tile_turq[MAX_T]
    int tile_viol[MAX_T]
    int tile_vp[MAX_T]
    int tile_priv[MAX_T]
    int tile_amount[MAX_T]
    int cards_per_type[N_C]
    int park_points[4][2]
    int round_cap
    int end_trigger_tiles
    int setup_on_gate
    int room_fallback
    int hand_vp_cap
    int honour_vp
    # tables of payable tiles: bit t of gold_ok[g] is set when tile t costs at most g gold
    # (turq_ok, viol_ok: seals); every cost is 0..TILE_COST_MAX (RulesBox checks)
    uint64_t gold_ok[TILE_COST_MAX + 1]
    uint64_t turq_ok[TILE_COST_MAX + 1]
    uint64_t viol_ok[TILE_COST_MAX + 1]

# The whole game state. Field meanings are those of engine/snapshot.py; `key` is the
# incremental Zobrist key (engine/zobrist.py) and hand_key[p] the part of it that is p's
# private information. adj/adj_n and priv are caches derived from layout and owners;
# park_mask (bit sq set when a tile lies on park square sq) and park_tiles (bit t set when
# tile t lies in the park) are caches derived from tile_at.
# keyless is 1 only inside random_playout, which skips the key updates and recomputes
# key and hand_key from scratch at the end (nothing reads them meanwhile).
cdef struct GameState:
    const Rules* rules
    uint64_t key
    uint64_t hand_key[MAX_P]
    int32_t gold[MAX_P]
    int32_t round
    int8_t n_players
    int8_t observer
    int8_t layout[N_R]
    int8_t adj[N_R][4]
    int8_t adj_n[N_R]
    int8_t tile_at[N_SQ]
    int8_t park_servant[N_SQ]
    int8_t rooms[MAX_P][N_R]
    int8_t area[MAX_P]
    int8_t supply[MAX_P]
    int8_t owner[MAX_T]
    int8_t priv[MAX_P][N_PRIV]
    int8_t hand[MAX_P][N_C]
    int8_t hand_size[MAX_P]
    int8_t deck[N_C]
    int8_t deck_size
    int8_t discard[N_C]
    int8_t honours[MAX_P]
    int8_t epoch[N_C]
    int8_t drawn_t[MAX_P][N_C]
    int8_t drawn_n[MAX_P]
    int8_t played_since[MAX_P][N_C]
    int8_t last_round
    int8_t stage
    int8_t to_move
    int8_t setup_count
    int8_t gate_left
    int8_t gate_max
    int8_t moves_left
    int8_t source_for
    int8_t park_target
    int8_t turq
    int8_t viol
    int8_t rec
    int8_t guards
    int8_t moves_bonus
    int8_t intrigue
    int8_t draws_left
    int8_t keyless
    uint64_t park_mask
    uint64_t park_tiles

# SplitMix64, the same stream as engine/rng.py.
cdef struct Rng:
    uint64_t state

cdef uint64_t rng_next(Rng* rng) noexcept nogil
cdef int rng_below(Rng* rng, int n) noexcept nogil

cdef int current_player(const GameState* s) noexcept nogil
cdef int has_majority(const GameState* s, int p, int room) noexcept nogil
cdef void room_majorities(const GameState* s, int room, int* out) noexcept nogil
cdef int legal_actions(const GameState* s, int* out) noexcept nogil
cdef void apply_action(GameState* s, int action) noexcept nogil
cdef uint64_t compute_key(const GameState* s) noexcept nogil
cdef uint64_t info_key(const GameState* s, int seat) noexcept nogil
cdef void final_scores(const GameState* s, int* out) noexcept nogil
cdef void final_returns(const GameState* s, double* out) noexcept nogil
cdef void view_state(const GameState* s, int seat, GameState* out) noexcept nogil
cdef void determinize_state(const GameState* s, int seat, Rng* rng, GameState* out) noexcept nogil
cdef int random_action(const GameState* s, Rng* rng, int* buf) noexcept nogil
cdef int random_playout(GameState* s, Rng* rng) noexcept nogil


cdef class RulesBox:
    cdef Rules rules
    cdef readonly object components
    cdef readonly object options


cdef class State:
    cdef GameState st
    cdef RulesBox box

    @staticmethod
    cdef State _wrap(RulesBox box)
    cdef void _load(self, snap) except *
    cdef void _check_runnable(self) except *
    cpdef State copy(self)
