# The learned value model in C (search/_value.pyx): a small MLP over a seat's observation
# vector (engine/_features.pxd), evaluated by the search at a rollout cutoff without a
# Python call. search/value.py loads and checks a weights file and builds a ValueModel.

from engine._state cimport GameState, MAX_P

cdef enum:
    MAX_HIDDEN = 256          # the widest hidden layer a weights file may declare
    MAX_OUT = 8               # a vector head's outputs: 2 MAX_P, every seat's share logit, then its score
    SCORE_SCALE = 100         # a vector head's score outputs are VP / SCORE_SCALE (search/value.py)

# Weights of FEATURE_SIZE -> h1 (ReLU) -> h2 (ReLU) -> 1 (sigmoid); the matrices input-major
# (w1[i * h1 + j] is input i to unit j), so an input that is zero skips its whole row.
# A vector head (players > 0, weights format 2: docs/train.md) has instead h2 -> 2 players
# outputs from one seat's view: w3 (h2 x 2 players, input-major) and b3s, the first
# `players` the seats' share logits (softmax), the others their scores / SCORE_SCALE, seats
# in turn order from the viewing seat (0 the viewer, 1 the next seat, ...).
cdef struct ValueNet:
    int h1
    int h2
    int players               # 0: the one-seat head (format 1); 2..4: a vector head
    float* w1
    float* b1
    float* w2
    float* b2
    float* w3
    float b3                  # the one-seat head's bias
    float* b3s                # a vector head's 2 players biases (NULL for the one-seat head)

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
# `s` is another observer's view or seat is not in the game (a vector head: the share it
# gives seat from seat's own view).
cdef double value_of(const ValueNet* net, const GameState* s, int seat) noexcept nogil
# A reward vector for every seat at a rollout cutoff: each seat's value_of, normalised so the
# shares sum to 1 (the win shares the search backs up). A vector head: vector_rewards' shares
# from the view vector_view chooses (1/n each if it cannot read one).
cdef void value_rewards(const ValueNet* net, const GameState* s, double* win) noexcept nogil
# A vector head's one forward pass from seat `view`'s observation of `s` (a seat out of
# range: vector_view's choice): every seat's share of the win into win[seat] (a softmax,
# summing to 1) and expected score in VP into score[seat]. Returns 0 and writes nothing if
# the net is not a vector head for s.n_players seats or that view cannot be read (`s` is
# another observer's view).
cdef int vector_rewards(const ValueNet* net, const GameState* s, int view, double* win,
                        double* score) noexcept nogil
# The seat a vector head reads `s` from when asked for `view`: view if it is a seat of the
# game, else the observer of a view, else the seat to move, else 0.
cdef int vector_view(const GameState* s, int view) noexcept nogil
