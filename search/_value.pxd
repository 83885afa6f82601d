# The learned value model in C (search/_value.pyx): a small MLP over a seat's observation
# vector (engine/_features.pxd), evaluated by the search at a rollout cutoff without a
# Python call. search/value.py loads and checks a weights file and builds a ValueModel.

from engine._state cimport GameState

cdef enum:
    MAX_HIDDEN = 256          # the widest hidden layer a weights file may declare

# Weights of FEATURE_SIZE -> h1 (ReLU) -> h2 (ReLU) -> 1 (sigmoid); the matrices input-major
# (w1[i * h1 + j] is input i to unit j), so an input that is zero skips its whole row.
cdef struct ValueNet:
    int h1
    int h2
    float* w1
    float* b1
    float* w2
    float* b2
    float* w3
    float b3

# A malloc'd copy of a float32 array's data (the caller frees it): the value's and the
# policy's weights (search/_prior.pyx) are loaded through it. Values below float32's normal
# range become zero (search/fp_mode.h); *flushed counts them.
cdef float* copy_floats(object array, long long* flushed) except NULL

cdef class ValueModel:
    cdef ValueNet net
    cdef readonly str digest      # short sha256 of the weights file's bytes
    cdef readonly str source      # where the weights came from (a path)
    cdef readonly long long flushed   # weights below float32's normal range, read as zero

# The model's estimate of seat's share of the win from seat's view of `s`, in (0, 1); 0.5 if
# `s` is another observer's view or seat is not in the game.
cdef double value_of(const ValueNet* net, const GameState* s, int seat) noexcept nogil
# A reward vector for every seat at a rollout cutoff: each seat's value_of, normalised so the
# shares sum to 1 (the win shares the search backs up).
cdef void value_rewards(const ValueNet* net, const GameState* s, double* win) noexcept nogil
