# The policy head's forward pass in C (search/_prior.pxd says what it is for): the mover's
# sparse observation (engine/_features.pxd: sparse_features) through one hidden layer,
# h = ReLU(W1 x + b1), summed from the nonzero inputs' rows with the value model's kernels
# (search/value_kernel.h, avx2+fma or portable, following the value's choice); then for each
# legal action a, logit(a) = sum_j val_j * (c[idx_j] + u[idx_j] . h) over the action's own
# sparse features (action_features below; the table is in docs/train.md), and a softmax over
# the legal actions. search/policy.py checks a weights file and holds the numpy twin.

from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from libc.math cimport exp
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

import operator

import numpy as np

from engine._state cimport (
    GameState, State, MAX_P, N_R, N_C, N_SQ, LEGAL_BUF, legal_actions, has_majority,
    A_ROOM, A_GATE, A_MOVE, A_RECRUIT, A_PLAY, A_DRAW, A_TAKE, A_CONTINUE, A_END, A_DECLINE,
    S_SETUP, S_WINDOW1, S_WINDOW2, S_WINDOW3, S_WINDOW4, S_WINDOW5, S_MOVES, S_RECRUIT,
    S_DRAW, S_GAME_OVER,
)
from engine._features cimport sparse_features, merge_features, SparseFeatures, FEATURE_SIZE
from search._value cimport MAX_HIDDEN, copy_floats
from search._fpmode cimport pfp_saved, pfp_enter, pfp_leave

from search import _value


cdef extern from "value_kernel.h" nogil:
    int pv_avx2_supported()
    void pv_add_rows_portable(float* h, int n1, const float* w1, const int* idx,
                              const float* val, int nnz)
    void pv_add_rows_avx2(float* h, int n1, const float* w1, const int* idx,
                          const float* val, int nnz)

# ---- the action-feature table (docs/train.md) -------------------------------------------
cdef enum:
    AF_ID = 0                 # 175: one-hot of the action id
    AF_SETUP_ROOM = 175       # 9: a room chosen at setup (the id alone: a source room)
    AF_ROOM_OWN = 184         # room action: the mover's servants in that room / 5
    AF_GATE_K = 185           # GATE k: k / 5
    AF_GATE_ALL = 186         # GATE k: k is the most allowed
    AF_GATE_SHARE = 187       # GATE k: k / the most allowed
    AF_MOVE_SRC_OWN = 188     # move: the mover's servants in the source room / 5
    AF_MOVE_DST_OWN = 189     # move: ... in the destination room / 5
    AF_MOVE_SRC_MAJ = 190     # move: the mover holds the source room's majority now
    AF_MOVE_DST_MAJ = 191     # move: ... the destination's
    AF_PRIV = 192             # 10: recruit: the tile's privilege (NONE ... FAVOUR)
    AF_TILE_GOLD = 202        # recruit: the tile's gold cost / 10
    AF_TILE_TURQ = 203        # recruit: its turquoise requirement / 3
    AF_TILE_VIOL = 204        # recruit: its violet requirement / 3
    AF_TILE_VP = 205          # recruit: its VP / 10
    AF_TILE_AMOUNT = 206      # recruit: its privilege's amount / 3
    AF_GOLD_LEFT = 207        # recruit: the mover's gold after paying / 10
    AF_BORDER = 208           # recruit: the square is on the park's border
    AF_CARD_HELD = 209        # play a card: copies of it in the mover's hand / 3 (if known)
    AF_PLAY_WINDOW = 210      # 5: play a card at window w (1..5 -> 0..4)
    AF_CONTINUE_WINDOW = 215  # 5: close window w
    AF_END_MOVES = 220        # END at the moves step
    AF_END_RECRUIT = 221      # END at the recruiting step
    AF_MOVES_LEFT = 222       # move or END at the moves step: moves left / 5

AF_NAMES = tuple([f"id {a}" for a in range(175)] + [f"setup room {r}" for r in range(9)] + [
    "room own", "gate k", "gate all", "gate share", "move src own", "move dst own",
    "move src majority", "move dst majority"] + [f"privilege {p}" for p in range(10)] + [
    "tile gold", "tile turquoise", "tile violet", "tile vp", "tile amount", "gold left",
    "border", "card held"] + [f"play window {w}" for w in range(1, 6)] + [
    f"continue window {w}" for w in range(1, 6)] + ["end moves", "end recruit", "moves left"])
assert len(AF_NAMES) == ACTION_FEATURES


cdef inline int window_of(int stage) noexcept nogil:
    if stage == S_WINDOW1:
        return 0
    if stage == S_WINDOW2:
        return 1
    if stage == S_WINDOW3:
        return 2
    if stage == S_WINDOW4:
        return 3
    if stage == S_WINDOW5:
        return 4
    return -1


cdef inline int put(int n, int* idx, float* val, int i, float v) noexcept nogil:
    if v != 0.0:
        idx[n] = i
        val[n] = v
        n += 1
    return n


cdef int action_features(const GameState* s, int action, int* idx, float* val) noexcept nogil:
    cdef int p = s.to_move, n = 0, a, b, t, sq, w, gold
    if action < 0 or A_DRAW <= action < A_TAKE or action > A_DECLINE or p < 0:
        return 0                                          # a draw, or not an action
    n = put(n, idx, val, AF_ID + action, 1.0)
    if action < A_GATE:                                   # a room: setup or a source room
        a = action - A_ROOM
        if s.stage == S_SETUP:
            n = put(n, idx, val, AF_SETUP_ROOM + a, 1.0)
        n = put(n, idx, val, AF_ROOM_OWN, s.rooms[p][a] / 5.0)
    elif action < A_MOVE:                                 # GATE k
        a = action - A_GATE
        n = put(n, idx, val, AF_GATE_K, a / 5.0)
        n = put(n, idx, val, AF_GATE_ALL, 1.0 if a == s.gate_max else 0.0)
        n = put(n, idx, val, AF_GATE_SHARE, a / <float>s.gate_max if s.gate_max > 0 else 0.0)
    elif action < A_RECRUIT:                              # a move src -> dst
        a = (action - A_MOVE) // N_R
        b = (action - A_MOVE) % N_R
        n = put(n, idx, val, AF_MOVE_SRC_OWN, s.rooms[p][a] / 5.0)
        n = put(n, idx, val, AF_MOVE_DST_OWN, s.rooms[p][b] / 5.0)
        n = put(n, idx, val, AF_MOVE_SRC_MAJ, has_majority(s, p, a))
        n = put(n, idx, val, AF_MOVE_DST_MAJ, has_majority(s, p, b))
        n = put(n, idx, val, AF_MOVES_LEFT, s.moves_left / 5.0)
    elif action < A_PLAY:                                 # recruit the tile on a square
        sq = action - A_RECRUIT
        t = s.tile_at[sq]
        if t >= 0:
            gold = s.rules.tile_gold[t]
            n = put(n, idx, val, AF_PRIV + s.rules.tile_priv[t], 1.0)
            n = put(n, idx, val, AF_TILE_GOLD, gold / 10.0)
            n = put(n, idx, val, AF_TILE_TURQ, s.rules.tile_turq[t] / 3.0)
            n = put(n, idx, val, AF_TILE_VIOL, s.rules.tile_viol[t] / 3.0)
            n = put(n, idx, val, AF_TILE_VP, s.rules.tile_vp[t] / 10.0)
            n = put(n, idx, val, AF_TILE_AMOUNT, s.rules.tile_amount[t] / 3.0)
            n = put(n, idx, val, AF_GOLD_LEFT, (s.gold[p] - gold) / 10.0)
        n = put(n, idx, val, AF_BORDER,
                1.0 if sq // 6 == 0 or sq // 6 == 5 or sq % 6 == 0 or sq % 6 == 5 else 0.0)
    elif action < A_DRAW:                                 # play a card
        if s.observer < 0 or s.observer == p:
            n = put(n, idx, val, AF_CARD_HELD, s.hand[p][action - A_PLAY] / 3.0)
        w = window_of(s.stage)
        if w >= 0:
            n = put(n, idx, val, AF_PLAY_WINDOW + w, 1.0)
    elif action == A_CONTINUE:
        w = window_of(s.stage)
        if w >= 0:
            n = put(n, idx, val, AF_CONTINUE_WINDOW + w, 1.0)
    elif action == A_END:
        if s.stage == S_MOVES:
            n = put(n, idx, val, AF_END_MOVES, 1.0)
            n = put(n, idx, val, AF_MOVES_LEFT, s.moves_left / 5.0)
        elif s.stage == S_RECRUIT:
            n = put(n, idx, val, AF_END_RECRUIT, 1.0)
    return n


# ---- the forward pass ---------------------------------------------------------------------
cdef enum:
    KERNEL_PORTABLE = 0
    KERNEL_AVX2 = 1

KERNEL_NAMES = _value.KERNEL_NAMES
cdef int AVX2_OK = pv_avx2_supported()
cdef int KERNEL = KERNEL_AVX2 if AVX2_OK else KERNEL_PORTABLE


def follow_value_kernel():
    """Run the kernel the value model runs (search/kernel.py, PALAIS_KERNEL) from now on;
    returns its name. Called when a PolicyModel is made and by each of its Python methods,
    so the policy's first layer uses the same kernel as the value's."""
    global KERNEL
    name = _value.kernel_name()
    KERNEL = KERNEL_AVX2 if name == KERNEL_NAMES[1] and AVX2_OK else KERNEL_PORTABLE
    return KERNEL_NAMES[KERNEL]


cdef void hidden_layer(const PolicyNet* net, const GameState* s, float* h) noexcept nogil:
    """h = ReLU(W1 x + b1) for x the mover's observation; the bias alone (ReLU'd) when `s`
    is another observer's view (the mover's observation is not in it)."""
    cdef SparseFeatures f                 # on the stack, as the value's (search/_value.pyx)
    cdef int idx[FEATURE_SIZE]
    cdef float val[FEATURE_SIZE]
    cdef int j, m, p = s.to_move
    memcpy(h, net.b1, net.hidden * sizeof(float))
    if 0 <= p < s.n_players and sparse_features(s, p, &f) > 0:
        if KERNEL == KERNEL_AVX2:
            pv_add_rows_avx2(h, net.hidden, net.w1, f.shared_idx, f.shared_val, f.n_shared)
            pv_add_rows_avx2(h, net.hidden, net.w1, f.own_idx[p], f.own_val[p], f.n_own[p])
        else:                             # ascending index order from the bias, as the value's
            m = merge_features(&f, p, idx, val)
            pv_add_rows_portable(h, net.hidden, net.w1, idx, val, m)
    for j in range(net.hidden):
        if h[j] < 0.0:
            h[j] = 0.0


cdef inline float action_logit(const PolicyNet* net, const GameState* s, int action,
                               const float* h) noexcept nogil:
    cdef int idx[MAX_ACTION_ENTRIES]
    cdef float val[MAX_ACTION_ENTRIES]
    cdef int j, k, m = action_features(s, action, idx, val), H = net.hidden
    cdef const float* row
    cdef float dot, logit = 0.0
    for k in range(m):
        row = net.u + idx[k] * H
        dot = net.c[idx[k]]
        for j in range(H):
            dot += row[j] * h[j]
        logit += val[k] * dot
    return logit


# The least prior a legal action gets: the softmax of extreme logits would give some 0 (an
# action PUCT then never tries); search/policy.py's softmax floors the same way.
cdef double PRIOR_FLOOR = 1e-6


cdef void policy_priors(const PolicyNet* net, const GameState* s, const int* buf, int n,
                        float* out) noexcept nogil:
    cdef float h[MAX_HIDDEN]
    cdef float logits[LEGAL_BUF]
    cdef double p[LEGAL_BUF]
    cdef int i
    cdef float top
    cdef double total = 0.0, floored = 0.0
    if n <= 0:
        return
    if n == 1:                                            # nothing to weigh
        out[0] = 1.0
        return
    if net == NULL or net.hidden <= 0 or n > LEGAL_BUF:
        for i in range(n):
            out[i] = 1.0 / n
        return
    hidden_layer(net, s, h)
    for i in range(n):
        logits[i] = action_logit(net, s, buf[i], h)
        if i == 0 or logits[i] > top:
            top = logits[i]
    for i in range(n):
        p[i] = exp(<double>(logits[i] - top))
        total += p[i]
    for i in range(n):                    # the softmax, no legal action below PRIOR_FLOOR
        p[i] = p[i] / total
        if p[i] < PRIOR_FLOOR:
            p[i] = PRIOR_FLOOR
        floored += p[i]
    for i in range(n):
        out[i] = <float>(p[i] / floored)


# ---- Python --------------------------------------------------------------------------------
cdef GameState* decision_state(object state) except NULL:
    """The C state of a State at a decision whose mover's observation it holds."""
    cdef GameState* s = &(<State?>state).st
    if s.stage == S_GAME_OVER or s.stage == S_DRAW:
        raise ValueError("no decision to make here (the game is over, or a card is drawn)")
    if s.observer >= 0 and s.observer != s.to_move:
        raise ValueError(f"this is seat {s.observer}'s view; the mover is seat {s.to_move}")
    return s


cdef int checked_actions(const GameState* s, object actions, int* buf) except -1:
    """The actions asked for into buf (default: every legal one); each must be legal here,
    once. Returns how many."""
    cdef int legal[LEGAL_BUF]
    cdef int n_legal = legal_actions(s, legal), n = 0, i
    allowed = {legal[i] for i in range(n_legal)}
    if actions is None:
        for i in range(n_legal):
            buf[i] = legal[i]
        return n_legal
    seen = set()
    for given in actions:
        try:
            a = operator.index(given)
        except TypeError:
            raise ValueError(f"action {given!r} is not an integer") from None
        if a not in allowed:
            raise ValueError(f"action {a} is not legal here (legal: {sorted(allowed)})")
        if a in seen:
            raise ValueError(f"action {a} is asked for twice")
        seen.add(a)
        buf[n] = a
        n += 1
    if n == 0:
        raise ValueError("no actions asked for")
    return n


cdef class PolicyModel:
    """The policy head's weights in C arrays. PolicyModel() holds none (uniform priors); with
    arrays (made by search.policy.load_policy_model, which checks them: w1 FEATURE_SIZE x H,
    b1 H, u ACTION_FEATURES x H, c ACTION_FEATURES; float32, finite, 1 <= H <= MAX_HIDDEN)
    the shapes are checked again here, so a bad array is refused rather than read past."""

    def __cinit__(self, w1=None, b1=None, u=None, c=None, str digest="", str source=""):
        self.net.hidden = 0
        self.net.n_action_features = 0
        self.net.w1 = self.net.b1 = self.net.u = self.net.c = NULL
        self.flushed = 0
        self.digest = digest
        self.source = source
        follow_value_kernel()
        if w1 is None and b1 is None and u is None and c is None:
            return
        h = int(np.shape(b1)[0]) if np.ndim(b1) == 1 else -1
        if not (1 <= h <= MAX_HIDDEN and np.shape(w1) == (FEATURE_SIZE, h)
                and np.shape(u) == (ACTION_FEATURES, h) and np.shape(c) == (ACTION_FEATURES,)):
            raise ValueError("policy model weights of the wrong shapes")
        self.net.w1 = copy_floats(w1, &self.flushed)
        self.net.b1 = copy_floats(b1, &self.flushed)
        self.net.u = copy_floats(u, &self.flushed)
        self.net.c = copy_floats(c, &self.flushed)
        self.net.hidden = h
        self.net.n_action_features = ACTION_FEATURES

    def __dealloc__(self):
        free(self.net.w1)
        free(self.net.b1)
        free(self.net.u)
        free(self.net.c)

    @property
    def hidden(self):
        return self.net.hidden

    def priors(self, state, actions=None):
        """policy_priors for a State (full, or the mover's view) over `actions`
        (default: its legal actions, ascending): a list of floats in the actions' order.
        ValueError for a state with no decision, another seat's view, or an action that is
        not legal there (or asked twice)."""
        cdef int buf[LEGAL_BUF]
        cdef float out[LEGAL_BUF]
        cdef GameState* s = decision_state(state)
        cdef int n = checked_actions(s, actions, buf), i
        cdef pfp_saved fp_mode
        follow_value_kernel()
        with nogil:
            fp_mode = pfp_enter()       # flush-to-zero, as in a search (search/fp_mode.h)
            policy_priors(&self.net, s, buf, n, out)
            pfp_leave(fp_mode)
        return [out[i] for i in range(n)]

    def ns_per_priors(self, state, long long repeats):
        """Mean wall time of one policy_priors over `state`'s legal actions, over `repeats`
        calls, in ns (bench)."""
        cdef timespec a, b
        cdef long long i
        cdef int buf[LEGAL_BUF]
        cdef float out[LEGAL_BUF]
        cdef GameState* s = decision_state(state)
        cdef int n = checked_actions(s, None, buf)
        cdef pfp_saved fp_mode
        if repeats < 1:
            raise ValueError("repeats must be >= 1")
        follow_value_kernel()
        with nogil:
            fp_mode = pfp_enter()
            clock_gettime(CLOCK_MONOTONIC, &a)
            for i in range(repeats):
                policy_priors(&self.net, s, buf, n, out)
            clock_gettime(CLOCK_MONOTONIC, &b)
            pfp_leave(fp_mode)
        return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / repeats


def training_inputs(state, actions=None):
    """What the head reads at `state` (full, or the mover's view), from the C code the search
    runs: (x, actions, idx, val) with x the mover's observation (float32, FEATURE_SIZE),
    actions the list asked for (default: the legal ones), and idx/val (int32/float32,
    len(actions) x MAX_ACTION_ENTRIES, unused entries idx 0 and val 0) each action's
    sparse features. ValueError as PolicyModel.priors."""
    cdef int buf[LEGAL_BUF]
    cdef int aidx[MAX_ACTION_ENTRIES]
    cdef float aval[MAX_ACTION_ENTRIES]
    cdef GameState* s = decision_state(state)
    cdef int n = checked_actions(s, actions, buf), i, k, m, p = s.to_move
    cdef SparseFeatures* f = <SparseFeatures*>malloc(sizeof(SparseFeatures))
    cdef int* fidx = <int*>malloc(FEATURE_SIZE * sizeof(int))
    cdef float* fval = <float*>malloc(FEATURE_SIZE * sizeof(float))
    x = np.zeros(FEATURE_SIZE, np.float32)
    idx = np.zeros((n, MAX_ACTION_ENTRIES), np.int32)
    val = np.zeros((n, MAX_ACTION_ENTRIES), np.float32)
    try:
        if f == NULL or fidx == NULL or fval == NULL:
            raise MemoryError()
        if sparse_features(s, p, f) > 0:
            m = merge_features(f, p, fidx, fval)
            for k in range(m):
                x[fidx[k]] = fval[k]
        for i in range(n):
            m = action_features(s, buf[i], aidx, aval)
            for k in range(m):
                idx[i, k] = aidx[k]
                val[i, k] = aval[k]
    finally:
        free(f)
        free(fidx)
        free(fval)
    return x, [buf[i] for i in range(n)], idx, val


N_ACTION_FEATURES = ACTION_FEATURES
ACTION_ENTRIES = MAX_ACTION_ENTRIES
