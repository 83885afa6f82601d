# The learned value model's forward pass in C: the search calls value_rewards at a rollout
# cutoff (leaf_eval=value) with no Python object touched, or, for a vector head (weights
# format 2: every seat's share and score from one seat's view), vector_rewards once. The weights are copied out of
# numpy arrays once, when a ValueModel is made (search/value.py checks them first); the
# forward pass allocates nothing. The observations of every seat come from one
# sparse_features call (engine/_features.pxd); the arithmetic is one of the kernels of
# search/value_kernel.h (avx2+fma or portable, KERNEL below; search/kernel.py reads
# PALAIS_KERNEL). Every call from Python runs under flush-to-zero (search/fp_mode.h), as the
# search does.

from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from libc.math cimport exp
from libc.float cimport FLT_MIN
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

import numpy as np

from engine._state cimport GameState, State, MAX_P
from search._fpmode cimport pfp_saved, pfp_enter, pfp_leave, pfp_probe, pfp_supported, pfp_name
from engine._features cimport (
    write_features, sparse_features, merge_features, SparseFeatures, FEATURE_SIZE,
)


cdef extern from "value_kernel.h" nogil:
    int pv_avx2_supported()
    void pv_add_rows_portable(float* h, int n1, const float* w1, const int* idx,
                              const float* val, int nnz)
    float pv_tail_portable(const float* h1, int n1, int n2, const float* w2,
                           const float* b2, const float* w3, float b3)
    void pv_add_rows_avx2(float* h, int n1, const float* w1, const int* idx,
                          const float* val, int nnz)
    float pv_tail_avx2(const float* h1, int n1, int n2, const float* w2,
                       const float* b2, const float* w3, float b3)
    void pv_layer2_portable(const float* h1, int n1, int n2, const float* w2,
                            const float* b2, float* h2)
    void pv_heads_portable(const float* h2, int n2, const float* w3, const float* b3,
                           int n_out, float* out)
    void pv_layer2_avx2(const float* h1, int n1, int n2, const float* w2,
                        const float* b2, float* h2)
    void pv_heads_avx2(const float* h2, int n2, const float* w3, const float* b3,
                       int n_out, float* out)

# Which kernel the forward pass runs (search/value_kernel.h): set once at import from the
# CPU and PALAIS_KERNEL (docs/search.md), or by set_kernel.
cdef enum:
    KERNEL_PORTABLE = 0
    KERNEL_AVX2 = 1

KERNEL_NAMES = ("portable", "avx2+fma")
cdef int AVX2_OK = pv_avx2_supported()
cdef int KERNEL = KERNEL_AVX2 if AVX2_OK else KERNEL_PORTABLE


cdef inline double sigmoid(float out) noexcept nogil:
    return 1.0 / (1.0 + exp(-<double>out))


cdef void first_layer(const ValueNet* net, const SparseFeatures* f, const float* base,
                      int seat, int kernel, float* h1) noexcept nogil:
    """The first layer's sums (before the ReLU) of seat's sparse observation in `f`. The
    portable kernel sums over the merged list in ascending index order, from the bias (the
    order of the dense forward pass, so the same bits); avx2 adds seat's own rows to `base`,
    the bias plus the shared rows summed once for every seat."""
    cdef int idx[FEATURE_SIZE]
    cdef float val[FEATURE_SIZE]
    cdef int j, m
    if kernel == KERNEL_AVX2:
        memcpy(h1, base, net.h1 * sizeof(float))
        pv_add_rows_avx2(h1, net.h1, net.w1, f.own_idx[seat], f.own_val[seat], f.n_own[seat])
        return
    m = merge_features(f, seat, idx, val)
    for j in range(net.h1):
        h1[j] = net.b1[j]
    pv_add_rows_portable(h1, net.h1, net.w1, idx, val, m)


cdef double seat_value(const ValueNet* net, const SparseFeatures* f, const float* base,
                       int seat, int kernel) noexcept nogil:
    """seat's value (the one-seat head) from the sparse observations `f`."""
    cdef float h1[MAX_HIDDEN]
    first_layer(net, f, base, seat, kernel, h1)
    if kernel == KERNEL_AVX2:
        return sigmoid(pv_tail_avx2(h1, net.h1, net.h2, net.w2, net.b2, net.w3, net.b3))
    return sigmoid(pv_tail_portable(h1, net.h1, net.h2, net.w2, net.b2, net.w3, net.b3))


cdef void vector_outputs(const ValueNet* net, const SparseFeatures* f, int view, int kernel,
                         float* out) noexcept nogil:
    """A vector head's 2 n outputs (share logits, then scores / SCORE_SCALE, seats from the
    viewer on) from the observation of seat `view` in `f`."""
    cdef float base[MAX_HIDDEN]
    cdef float h1[MAX_HIDDEN]
    cdef float h2[MAX_HIDDEN]
    shared_base(net, f, base, kernel)
    first_layer(net, f, base, view, kernel, h1)
    if kernel == KERNEL_AVX2:
        pv_layer2_avx2(h1, net.h1, net.h2, net.w2, net.b2, h2)
        pv_heads_avx2(h2, net.h2, net.w3, net.b3s, 2 * net.players, out)
    else:
        pv_layer2_portable(h1, net.h1, net.h2, net.w2, net.b2, h2)
        pv_heads_portable(h2, net.h2, net.w3, net.b3s, 2 * net.players, out)


cdef int vector_view(const GameState* s, int view) noexcept nogil:
    if 0 <= view < s.n_players:
        return view
    if s.observer >= 0:
        return s.observer
    if 0 <= s.to_move < s.n_players:
        return s.to_move
    return 0


cdef int vector_rewards(const ValueNet* net, const GameState* s, int view, double* win,
                        double* score) noexcept nogil:
    cdef SparseFeatures f
    cdef float out[MAX_OUT]
    cdef double e[MAX_P]
    cdef double top, total = 0.0
    cdef int k, n = s.n_players, v = vector_view(s, view)
    if net.players != n or sparse_features(s, v, &f) == 0:
        return 0
    vector_outputs(net, &f, v, KERNEL, out)
    top = out[0]
    for k in range(1, n):
        if out[k] > top:
            top = out[k]
    for k in range(n):                  # softmax, from the largest logit (no overflow)
        e[k] = exp(<double>out[k] - top)
        total += e[k]
    for k in range(n):
        win[(v + k) % n] = e[k] / total
        score[(v + k) % n] = <double>out[n + k] * SCORE_SCALE
    return 1


cdef inline void shared_base(const ValueNet* net, const SparseFeatures* f, float* base,
                             int kernel) noexcept nogil:
    """avx2: the bias plus the rows of the entries every seat shares (unused by portable)."""
    if kernel == KERNEL_AVX2:
        memcpy(base, net.b1, net.h1 * sizeof(float))
        pv_add_rows_avx2(base, net.h1, net.w1, f.shared_idx, f.shared_val, f.n_shared)


cdef double value_of(const ValueNet* net, const GameState* s, int seat) noexcept nogil:
    cdef SparseFeatures f
    cdef float base[MAX_HIDDEN]
    cdef double win[MAX_P]
    cdef double score[MAX_P]
    cdef int kernel = KERNEL
    if seat < 0 or seat >= s.n_players:
        return 0.5
    if net.players:
        return win[seat] if vector_rewards(net, s, seat, win, score) else 0.5
    if sparse_features(s, seat, &f) == 0:
        return 0.5
    shared_base(net, &f, base, kernel)
    return seat_value(net, &f, base, seat, kernel)


cdef void value_rewards(const ValueNet* net, const GameState* s, double* win) noexcept nogil:
    cdef SparseFeatures f
    cdef float base[MAX_HIDDEN]
    cdef double score[MAX_P]
    cdef int p, n = s.n_players, kernel = KERNEL
    cdef double total = 0.0
    if net.players:
        if not vector_rewards(net, s, -1, win, score):
            for p in range(n):
                win[p] = 1.0 / n
        return
    if sparse_features(s, -1, &f) > 0:
        shared_base(net, &f, base, kernel)
    for p in range(n):
        win[p] = seat_value(net, &f, base, p, kernel) if f.seats[p] else 0.5
        total += win[p]
    for p in range(n):
        win[p] = win[p] / total if total > 0.0 else 1.0 / n


cdef double dense_value_of(const ValueNet* net, const GameState* s, int seat) noexcept nogil:
    """The forward pass as it was before the sparse features and the kernels: write_features
    into a dense vector, every entry scanned. Kept as the reference the tests hold the
    portable kernel to, bit for bit."""
    cdef float x[FEATURE_SIZE]
    cdef float h1[MAX_HIDDEN]
    cdef const float* row
    cdef float xi
    cdef int i, j, n1 = net.h1
    if write_features(s, seat, x) < 0:
        return 0.5
    for j in range(n1):
        h1[j] = net.b1[j]
    for i in range(FEATURE_SIZE):
        xi = x[i]
        if xi != 0.0:
            row = net.w1 + i * n1
            for j in range(n1):
                h1[j] += xi * row[j]
    return sigmoid(pv_tail_portable(h1, n1, net.h2, net.w2, net.b2, net.w3, net.b3))


cdef double flushed_value(const ValueNet* net, const GameState* s, int seat, bint dense) noexcept nogil:
    """value_of (dense: dense_value_of) under flush-to-zero, the mode restored after: what
    ValueModel's calls from Python run (search/fp_mode.h)."""
    cdef pfp_saved fp_mode = pfp_enter()
    cdef double v = dense_value_of(net, s, seat) if dense else value_of(net, s, seat)
    pfp_leave(fp_mode)
    return v


def floating_point_mode():
    """What the calling thread's arithmetic does now with values below float32's normal range
    (search/fp_mode.h's pfp_probe): bit 1 a subnormal input reads as zero, bit 2 a subnormal
    result is flushed. 0 in Python code; 3 inside a search or an evaluation where the target
    has the control (floating_point_control)."""
    return pfp_probe()


def floating_point_control():
    """How searches and evaluations set flush-to-zero on this build ("" if they cannot)."""
    return pfp_name().decode() if pfp_supported() else ""


def kernel_name():
    """The kernel the forward pass runs: "avx2+fma" or "portable"."""
    return KERNEL_NAMES[KERNEL]


def available_kernels():
    """The kernels this build and processor can run, the portable one first."""
    return KERNEL_NAMES if AVX2_OK else KERNEL_NAMES[:1]


def set_kernel(str name):
    """Run `name` ("portable", "avx2+fma") from now on in this process; returns the previous
    kernel's name. ValueError if this build or processor cannot run it."""
    global KERNEL
    if name not in available_kernels():
        raise ValueError(f"kernel {name!r} is not available here (available: {', '.join(available_kernels())})")
    previous = KERNEL_NAMES[KERNEL]
    KERNEL = KERNEL_NAMES.index(name)
    return previous


cdef inline bint subnormal(float x) noexcept nogil:
    """x is below float32's normal range but not zero (search/fp_mode.h)."""
    return x != 0.0 and -FLT_MIN < x < FLT_MIN


cdef float* copy_floats(object array, long long* flushed) except NULL:
    """A malloc'd copy of a float32 numpy array's data, C order (both models' weights), with
    every value below float32's normal range made zero (search/fp_mode.h says why); adds how
    many were to *flushed."""
    cdef const float[::1] flat = np.ascontiguousarray(array, dtype=np.float32).reshape(-1)
    cdef Py_ssize_t n = flat.shape[0], i
    cdef float* out = <float*>malloc(max(1, n) * sizeof(float))
    if out == NULL:
        raise MemoryError(f"cannot allocate {n} floats of a model's weights")
    for i in range(n):
        if subnormal(flat[i]):
            out[i] = 0.0
            flushed[0] += 1
        else:
            out[i] = flat[i]
    return out


cdef class ValueModel:
    """The value model's weights in C arrays. Made by search.value.load_value_model from
    arrays it has checked (shapes FEATURE_SIZE x h1, h1, h1 x h2, h2, h2, 1; float32;
    finite; 1 <= h1, h2 <= MAX_HIDDEN; a vector head for `players` seats: w3 h2 x 2 players
    and b3 2 players); the shapes are checked again here, so a bad array is refused rather
    than read past its end."""

    def __cinit__(self, w1, b1, w2, b2, w3, b3, str digest="", str source="", int players=0):
        self.net.w1 = self.net.b1 = self.net.w2 = self.net.b2 = self.net.w3 = self.net.b3s = NULL
        h1 = int(np.shape(b1)[0]) if np.ndim(b1) == 1 else -1
        h2 = int(np.shape(b2)[0]) if np.ndim(b2) == 1 else -1
        head = ((h2,), (1,)) if players == 0 else ((h2, 2 * players), (2 * players,))
        if not (1 <= h1 <= MAX_HIDDEN and 1 <= h2 <= MAX_HIDDEN
                and (players == 0 or 2 <= players <= MAX_P)
                and np.shape(w1) == (FEATURE_SIZE, h1) and np.shape(w2) == (h1, h2)
                and np.shape(w3) == head[0] and np.shape(b3) == head[1]):
            raise ValueError("value model weights of the wrong shapes")
        self.net.h1 = h1
        self.net.h2 = h2
        self.net.players = players
        self.flushed = 0
        self.net.w1 = copy_floats(w1, &self.flushed)
        self.net.b1 = copy_floats(b1, &self.flushed)
        self.net.w2 = copy_floats(w2, &self.flushed)
        self.net.b2 = copy_floats(b2, &self.flushed)
        self.net.w3 = copy_floats(w3, &self.flushed)
        self.net.b3 = 0.0
        if players:
            self.net.b3s = copy_floats(b3, &self.flushed)
        else:
            self.net.b3 = float(np.asarray(b3, dtype=np.float32).reshape(-1)[0])
            if subnormal(self.net.b3):
                self.net.b3 = 0.0
                self.flushed += 1
        self.digest = digest
        self.source = source

    def __dealloc__(self):
        free(self.net.w1)
        free(self.net.b1)
        free(self.net.w2)
        free(self.net.b2)
        free(self.net.w3)
        free(self.net.b3s)

    @property
    def hidden(self):
        return (self.net.h1, self.net.h2)

    @property
    def players(self):
        """0 for the one-seat head (format 1); a vector head's player count (format 2)."""
        return self.net.players

    def value(self, state, int seat):
        """value_of for a State (full or a view) and a seat."""
        return flushed_value(&self.net, &(<State?>state).st, seat, 0)

    def dense_value(self, state, int seat):
        """dense_value_of: the forward pass as before the sparse features (tests; the one-seat
        head only)."""
        if self.net.players:
            raise ValueError("dense_value is the one-seat head's reference; this is a vector head")
        return flushed_value(&self.net, &(<State?>state).st, seat, 1)

    def outputs(self, state, int view=-1):
        """A vector head's one pass (vector_rewards) on a State from seat `view` (-1:
        vector_view's choice): (shares, scores), one per seat in seat order, scores in VP.
        ValueError for the one-seat head, a player count the head is not for, or a view it
        cannot read."""
        cdef double win[MAX_P]
        cdef double score[MAX_P]
        cdef GameState* s = &(<State?>state).st
        cdef pfp_saved fp_mode
        cdef int done
        if not self.net.players:
            raise ValueError("outputs are a vector head's; this is a one-seat head")
        with nogil:
            fp_mode = pfp_enter()
            done = vector_rewards(&self.net, s, view, win, score)
            pfp_leave(fp_mode)
        if not done:
            raise ValueError(f"a vector head for {self.net.players} players cannot read this "
                             f"{s.n_players}-player position from seat {view}")
        return [win[p] for p in range(s.n_players)], [score[p] for p in range(s.n_players)]

    def features_value(self, float[::1] x):
        """The value of one observation vector `x` (float32, FEATURE_SIZE entries) through
        the kernel in use: the kernels' test on stored vectors."""
        cdef SparseFeatures* f
        cdef float base[MAX_HIDDEN]
        cdef int i, kernel = KERNEL
        cdef double v
        cdef pfp_saved fp_mode
        if x.shape[0] != FEATURE_SIZE:
            raise ValueError(f"x holds {x.shape[0]} floats, expected {FEATURE_SIZE}")
        if self.net.players:
            raise ValueError("features_value is the one-seat head's; this is a vector head")
        f = <SparseFeatures*>malloc(sizeof(SparseFeatures))
        if f == NULL:
            raise MemoryError()
        f.n_shared = 0
        f.n_own[0] = 0
        for i in range(FEATURE_SIZE):
            if x[i] != 0.0:
                f.shared_idx[f.n_shared] = i
                f.shared_val[f.n_shared] = x[i]
                f.n_shared += 1
        with nogil:
            fp_mode = pfp_enter()
            shared_base(&self.net, f, base, kernel)
            v = seat_value(&self.net, f, base, 0, kernel)
            pfp_leave(fp_mode)
        free(f)
        return v

    def rewards(self, state):
        """value_rewards for a State: one share per seat, summing to 1 (a vector head: from
        vector_view's seat, the observer of a view or the seat to move)."""
        cdef double win[MAX_P]
        cdef GameState* s = &(<State?>state).st
        cdef pfp_saved fp_mode
        with nogil:
            fp_mode = pfp_enter()
            value_rewards(&self.net, s, win)
            pfp_leave(fp_mode)
        return [win[p] for p in range(s.n_players)]

    def work(self, state):
        """The arithmetic of one value_rewards on `state` under the kernel in use, for the
        bench's estimate of what it should cost: {"rows": first-layer rows added, "madds":
        multiply-adds, the second layer counted dense (ReLU only skips units), "seats": the
        forward passes}. avx2 adds the shared rows once and each seat's own rows; portable adds
        every seat's merged list (the shared rows once per seat). A vector head makes one pass
        (seats 1) from one seat's view, its merged list whatever the kernel, and 2 n outputs."""
        cdef SparseFeatures* f = <SparseFeatures*>malloc(sizeof(SparseFeatures))
        cdef GameState* s = &(<State?>state).st
        cdef long long rows = 0
        cdef int p, seats = 0, n_out = 1
        if f == NULL:
            raise MemoryError()
        if self.net.players:            # a vector head: one pass from one seat's view
            p = vector_view(s, -1)
            if self.net.players == s.n_players and sparse_features(s, p, f) > 0:
                seats = 1
                rows = f.n_shared + f.n_own[p]
            n_out = 2 * self.net.players
        elif sparse_features(s, -1, f) > 0:
            if KERNEL == KERNEL_AVX2:
                rows = f.n_shared
            for p in range(s.n_players):
                if f.seats[p]:
                    seats += 1
                    rows += f.n_own[p] + (f.n_shared if KERNEL != KERNEL_AVX2 else 0)
        free(f)
        if seats == 0:
            rows = 0
        return {"rows": rows, "seats": seats,
                "madds": rows * self.net.h1 + seats * (self.net.h1 * self.net.h2 + self.net.h2 * n_out)}

    def ns_per_rewards(self, state, long long repeats):
        """Mean wall time of one value_rewards (every seat) on `state` over `repeats` calls,
        in ns (bench)."""
        cdef timespec a, b
        cdef long long i
        cdef double win[MAX_P]
        cdef GameState* s = &(<State?>state).st
        cdef pfp_saved fp_mode
        if repeats < 1:
            raise ValueError("repeats must be >= 1")
        with nogil:
            fp_mode = pfp_enter()
            clock_gettime(CLOCK_MONOTONIC, &a)
            for i in range(repeats):
                value_rewards(&self.net, s, win)
            clock_gettime(CLOCK_MONOTONIC, &b)
            pfp_leave(fp_mode)
        return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / repeats

    def ns_per_value(self, state, int seat, long long repeats):
        """Mean wall time of one value_of on `state` over `repeats` calls, in ns (bench)."""
        cdef timespec a, b
        cdef long long i
        cdef double sink = 0.0
        cdef GameState* s = &(<State?>state).st
        cdef pfp_saved fp_mode
        if repeats < 1:
            raise ValueError("repeats must be >= 1")
        with nogil:
            fp_mode = pfp_enter()
            clock_gettime(CLOCK_MONOTONIC, &a)
            for i in range(repeats):
                sink += value_of(&self.net, s, seat)
            clock_gettime(CLOCK_MONOTONIC, &b)
            pfp_leave(fp_mode)
        return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / repeats
