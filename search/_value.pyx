# The learned value model's forward pass in C: the search calls value_rewards at a rollout
# cutoff (leaf_eval=value) with no Python object touched. The weights are copied out of
# numpy arrays once, when a ValueModel is made (search/value.py checks them first); the
# forward pass allocates nothing.

from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from libc.math cimport exp
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

import numpy as np

from engine._state cimport GameState, State, MAX_P
from engine._features cimport write_features, FEATURE_SIZE


cdef double value_of(const ValueNet* net, const GameState* s, int seat) noexcept nogil:
    cdef float x[FEATURE_SIZE]
    cdef float h1[MAX_HIDDEN]
    cdef float h2[MAX_HIDDEN]
    cdef const float* row
    cdef float xi, out
    cdef int i, j, n1 = net.h1, n2 = net.h2
    if write_features(s, seat, x) < 0:
        return 0.5
    for j in range(n1):
        h1[j] = net.b1[j]
    for i in range(FEATURE_SIZE):            # most entries are zero: skip their rows
        xi = x[i]
        if xi != 0.0:
            row = net.w1 + i * n1
            for j in range(n1):
                h1[j] += xi * row[j]
    for j in range(n2):
        h2[j] = net.b2[j]
    for i in range(n1):
        xi = h1[i]
        if xi > 0.0:                         # ReLU: a unit at or below zero adds nothing
            row = net.w2 + i * n2
            for j in range(n2):
                h2[j] += xi * row[j]
    out = net.b3
    for j in range(n2):
        if h2[j] > 0.0:
            out += h2[j] * net.w3[j]
    return 1.0 / (1.0 + exp(-<double>out))


cdef void value_rewards(const ValueNet* net, const GameState* s, double* win) noexcept nogil:
    cdef int p, n = s.n_players
    cdef double total = 0.0
    for p in range(n):
        win[p] = value_of(net, s, p)
        total += win[p]
    for p in range(n):
        win[p] = win[p] / total if total > 0.0 else 1.0 / n


cdef float* copy_floats(object array) except NULL:
    """A malloc'd copy of a C-contiguous float32 numpy array's data."""
    cdef const float[::1] flat = np.ascontiguousarray(array, dtype=np.float32).reshape(-1)
    cdef Py_ssize_t n = flat.shape[0]
    cdef float* out = <float*>malloc(max(1, n) * sizeof(float))
    if out == NULL:
        raise MemoryError("cannot allocate the value model's weights")
    if n:
        memcpy(out, &flat[0], n * sizeof(float))
    return out


cdef class ValueModel:
    """The value model's weights in C arrays. Made by search.value.load_value_model from
    arrays it has checked (shapes FEATURE_SIZE x h1, h1, h1 x h2, h2, h2, 1; float32;
    finite; 1 <= h1, h2 <= MAX_HIDDEN); the shapes are checked again here, so a bad array
    is refused rather than read past its end."""

    def __cinit__(self, w1, b1, w2, b2, w3, b3, str digest="", str source=""):
        self.net.w1 = self.net.b1 = self.net.w2 = self.net.b2 = self.net.w3 = NULL
        h1 = int(np.shape(b1)[0]) if np.ndim(b1) == 1 else -1
        h2 = int(np.shape(b2)[0]) if np.ndim(b2) == 1 else -1
        if not (1 <= h1 <= MAX_HIDDEN and 1 <= h2 <= MAX_HIDDEN
                and np.shape(w1) == (FEATURE_SIZE, h1) and np.shape(w2) == (h1, h2)
                and np.shape(w3) == (h2,) and np.size(b3) == 1):
            raise ValueError("value model weights of the wrong shapes")
        self.net.h1 = h1
        self.net.h2 = h2
        self.net.w1 = copy_floats(w1)
        self.net.b1 = copy_floats(b1)
        self.net.w2 = copy_floats(w2)
        self.net.b2 = copy_floats(b2)
        self.net.w3 = copy_floats(w3)
        self.net.b3 = float(np.asarray(b3, dtype=np.float32).reshape(-1)[0])
        self.digest = digest
        self.source = source

    def __dealloc__(self):
        free(self.net.w1)
        free(self.net.b1)
        free(self.net.w2)
        free(self.net.b2)
        free(self.net.w3)

    @property
    def hidden(self):
        return (self.net.h1, self.net.h2)

    def value(self, state, int seat):
        """value_of for an engine State (full or a view) and a seat."""
        return value_of(&self.net, &(<State?>state).st, seat)

    def rewards(self, state):
        """value_rewards for an engine State: one share per seat, summing to 1."""
        cdef double win[MAX_P]
        cdef GameState* s = &(<State?>state).st
        value_rewards(&self.net, s, win)
        return [win[p] for p in range(s.n_players)]

    def ns_per_value(self, state, int seat, long long repeats):
        """Mean wall time of one value_of on `state` over `repeats` calls, in ns (bench)."""
        cdef timespec a, b
        cdef long long i
        cdef double sink = 0.0
        cdef GameState* s = &(<State?>state).st
        if repeats < 1:
            raise ValueError("repeats must be >= 1")
        with nogil:
            clock_gettime(CLOCK_MONOTONIC, &a)
            for i in range(repeats):
                sink += value_of(&self.net, s, seat)
            clock_gettime(CLOCK_MONOTONIC, &b)
        return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / repeats
