# The C contract of the observation vector (engine/_features.pyx): what one seat may know of
# a position, as FEATURE_SIZE floats. The search cimports write_features to evaluate a
# position with a learned model without a Python call; engine/features.py is the Python API
# and names every entry (docs/features.md has the layout).

from engine._state cimport GameState

cdef enum:
    GLOBAL_SIZE = 157        # game-wide entries: players, round, stage, counters, cards, layout
    SEAT_SIZE = 42           # one seat's public entries; four blocks, the observer's first
    SQUARE_SIZE = 19         # one park square's entries; 36 of them, a1 ... f6
    FEATURE_SIZE = 1009      # GLOBAL_SIZE + 4 * SEAT_SIZE + 36 * SQUARE_SIZE

# Writes seat's observation of `s` into out[0 .. FEATURE_SIZE-1] and returns FEATURE_SIZE.
# A full state is turned into seat's view first, so nothing hidden from seat is read. Returns
# -1 and writes nothing when `s` is another observer's view or seat is not in the game.
cdef int write_features(const GameState* s, int seat, float* out) noexcept nogil
