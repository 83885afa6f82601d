# The C contract of the observation vector (engine/_features.pyx): what one seat may know of
# a position, as FEATURE_SIZE floats. The search cimports write_features to evaluate a
# position with a learned model without a Python call; engine/features.py is the Python API
# and names every entry (docs/features.md has the layout).

from engine._state cimport GameState, MAX_P

cdef enum:
    GLOBAL_SIZE = 157        # game-wide entries: players, round, stage, counters, cards, layout
    SEAT_SIZE = 42           # one seat's public entries; four blocks, the observer's first
    SQUARE_SIZE = 19         # one park square's entries; 36 of them, a1 ... f6
    FEATURE_SIZE = 1009      # GLOBAL_SIZE + 4 * SEAT_SIZE + 36 * SQUARE_SIZE

# Writes seat's observation of `s` into out[0 .. FEATURE_SIZE-1] and returns FEATURE_SIZE.
# A full state is turned into seat's view first, so nothing hidden from seat is read. Returns
# -1 and writes nothing when `s` is another observer's view or seat is not in the game.
cdef int write_features(const GameState* s, int seat, float* out) noexcept nogil

cdef enum:
    # the most entries of one seat's own part (SparseFeatures): the unknown pool and the
    # hand (9 + 9), four seat blocks, and the servant owner of each of 36 squares (the
    # builder writes every pool and hand entry, zero or not, before it keeps the nonzero
    # ones, so the room counts them all; the shared list's FEATURE_SIZE is far more than
    # its 288 writes)
    MAX_OWN = 2 * 9 + 4 * SEAT_SIZE + 36

# The observations of every seat of one position, built at once and kept sparse (only the
# nonzero entries, as index and value, each list in ascending index order): the part that
# is the same for every seat (`shared`: the public game-wide entries and the park squares)
# once, and each seat's own part (its unknown pool and hand, the seat blocks in its turn
# order, the squares' servant owners relative to it). A seat's observation is the two
# lists merged; write_features is that list scattered into a zeroed vector.
cdef struct SparseFeatures:
    int n_players
    int seats[MAX_P]               # 1: seat p's observation is here
    int n_shared
    int shared_idx[FEATURE_SIZE]
    float shared_val[FEATURE_SIZE]
    int n_own[MAX_P]
    int own_idx[MAX_P][MAX_OWN]
    float own_val[MAX_P][MAX_OWN]

# Fills `out` for every seat that may be observed in `s` (only_seat < 0), or for only_seat;
# returns how many seats it holds. A full state holds every seat's; a seat's view only that
# seat's (the others are not observable, as write_features refuses them).
cdef int sparse_features(const GameState* s, int only_seat, SparseFeatures* out) noexcept nogil
# seat's observation as one ascending list (the shared and own lists merged) into idx/val
# (room for FEATURE_SIZE entries); returns its length.
cdef int merge_features(const SparseFeatures* f, int seat, int* idx, float* val) noexcept nogil
