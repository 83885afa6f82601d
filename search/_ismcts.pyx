# Information-Set MCTS (single observer, Cowling, Powley & Whitehouse 2012) over the rules
# core's C state, and perfect-information MCTS as the same loop without determinization.
#
# Step 1  Determinize: each iteration deals the root seat's unknown cards afresh
#         (determinize_state); the perfect-information variant starts from the true state.
# Step 2  Select: at each decision, the node is found by the acting seat's information-set
#         key (info_key: public state + that seat's own cards), so two move orders reaching
#         the same position share one node (transpositions inside a turn). Edges keep their
#         own visit and availability counts apart from the node's; UCB1 uses the edge's
#         mean reward for the acting seat (max^n) and its availability as the parent count.
#         Chance events are sampled from the determinized pile.
# Step 3  Expand one node per iteration, with an edge per legal action.
# Step 4  Roll out with the configured policy, to the end or for a number of turns, then
#         score: final returns at the end, the static evaluation (or the learned value
#         model's win shares, leaf_eval=value) at a cutoff.
# Step 5  Back up the reward vector and the expected scores along the path.
#
# The tree lives in three flat arrays sized from a memory budget (the Hash option): nodes,
# edges and an open-addressing hash table of node indices. When one fills, the search goes
# on without expanding (graceful). No Python object is touched per iteration.

from libc.stdint cimport uint64_t, int32_t, int16_t, int8_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset
from libc.math cimport sqrt, log
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from engine._state cimport (
    GameState, State, Rng, rng_below, legal_actions, apply_action, info_key, final_scores,
    final_returns, view_state, determinize_state, random_action, LEGAL_BUF, MAX_P,
    S_DRAW, S_GAME_OVER,
)
from search._policy cimport policy_action, heuristic_choice, evaluate, estimate_scores, POLICY_UNIFORM, POLICY_HEURISTIC
from search._value cimport ValueNet, ValueModel, value_rewards

cdef enum:
    MAX_PATH = 512
    EMPTY = -1
    EDGES_PER_NODE = 12     # edges budgeted per node when sizing the tree from its memory bound

from search.result import EdgeStats
from search.value import load_value_model

cdef double ADAPTIVE_LOW = 0.05   # reward=adaptive: below this static win share (or above 1 minus it) the margin counts

POLICY_CODES = {"uniform": POLICY_UNIFORM, "heuristic": POLICY_HEURISTIC}

cdef struct Node:
    uint64_t key
    int32_t first_edge
    int32_t visits
    int16_t n_edges
    int8_t player

cdef struct Edge:
    float reward[MAX_P]      # sum of reward vectors backed up through this edge (what selection maximises)
    float win[MAX_P]         # sum of win shares (1/k for each of k winners; the evaluation's estimate at a cutoff)
    float score[MAX_P]       # sum of (expected) final scores
    int32_t visits
    int32_t avail            # iterations in which this action was legal at its node
    int16_t action

cdef struct Params:
    double c_uct
    double eval_temperature
    double margin_weight
    double margin_scale
    double margin_center[MAX_P]   # reward=dynamic: each seat's expected VP margin at the root
    int policy
    int rollout_turns
    int determinize
    int reward_margin
    int policy_first
    const ValueNet* value_net     # leaf_eval=value: the learned win shares at a cutoff; NULL: the static evaluation's

cdef struct Tree:
    Node* nodes
    Edge* edges
    int32_t* table
    long long node_cap
    long long edge_cap
    long long table_mask
    long long n_nodes
    long long n_edges
    long long iterations
    long long node_visits    # decisions walked through the tree, summed over iterations
    int full                 # 1 once an expansion was refused for lack of room
    double root_reward[MAX_P]  # reward vectors summed over every iteration (the root's value)
    double root_win[MAX_P]
    double root_score[MAX_P]


cdef inline double now_ms() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6


cdef inline long long find_slot(const Tree* t, uint64_t key) noexcept nogil:
    cdef long long i = <long long>(key & <uint64_t>t.table_mask)
    while t.table[i] != EMPTY and t.nodes[t.table[i]].key != key:
        i = (i + 1) & t.table_mask
    return i


cdef int32_t expand(Tree* t, uint64_t key, long long slot, const GameState* d, const int* buf, int n) noexcept nogil:
    cdef int32_t idx
    cdef int i
    cdef Edge* e
    if t.n_nodes >= t.node_cap or t.n_edges + n > t.edge_cap:
        t.full = 1
        return EMPTY
    idx = <int32_t>t.n_nodes
    t.n_nodes += 1
    t.nodes[idx].key = key
    t.nodes[idx].first_edge = <int32_t>t.n_edges
    t.nodes[idx].n_edges = <int16_t>n
    t.nodes[idx].visits = 0
    t.nodes[idx].player = d.to_move
    for i in range(n):
        e = &t.edges[t.n_edges + i]
        memset(e, 0, sizeof(Edge))
        e.action = <int16_t>buf[i]
    t.n_edges += n
    t.table[slot] = idx
    return idx


# Choose an edge among those legal now (both lists sorted by action): an untried one first
# (`preferred` if it is untried, else one at random among the untried: the canonical order
# would favour low action ids whenever visits are few), else the UCB1 maximum for the acting
# seat.
cdef int select_edge(Tree* t, Node* node, const int* buf, int n, double c_uct, Rng* rng,
                     int preferred) noexcept nogil:
    cdef int i = 0, j = 0, best = -1, untried = -1, n_untried = 0, p = node.player, pref = -1
    cdef Edge* e
    cdef double value, best_value = -1e300
    cdef Edge* edges = &t.edges[node.first_edge]
    while i < n and j < node.n_edges:
        if buf[i] < edges[j].action:
            i += 1
        elif buf[i] > edges[j].action:
            j += 1
        else:
            e = &edges[j]
            e.avail += 1
            if e.visits == 0:
                n_untried += 1
                if e.action == preferred:
                    pref = j
                if rng_below(rng, n_untried) == 0:       # reservoir sampling: uniform
                    untried = j
            elif n_untried == 0:
                value = e.reward[p] / e.visits + c_uct * sqrt(log(<double>e.avail) / e.visits)
                if value > best_value:
                    best_value = value
                    best = j
            i += 1
            j += 1
    if pref >= 0:
        return node.first_edge + pref
    if untried >= 0:
        return node.first_edge + untried
    return node.first_edge + best if best >= 0 else -1


cdef inline double best_other(const double* values, int n, int p) noexcept nogil:
    """The largest of values[q] for q != p (another seat's score)."""
    cdef double best = -1e9
    cdef int q
    for q in range(n):
        if q != p and values[q] > best:
            best = values[q]
    return best


# The outcome of a finished rollout for every seat: `win` (the share of the win, or the static
# evaluation's estimate at a cutoff), `score` (final or expected VP) and `reward`, what the
# tree maximises: the win, or with reward=margin the win blended with the VP margin over the
# best other seat, squashed into (0, 1), so a seat that can no longer win (or cannot lose)
# still prefers the larger margin.
cdef void finish(const Params* P, const GameState* d, double* reward, double* win, double* score) noexcept nogil:
    cdef int sc[MAX_P]
    cdef int p, n = d.n_players
    cdef double margin
    if d.stage == S_GAME_OVER:
        final_returns(d, win)
        final_scores(d, sc)
        for p in range(n):
            score[p] = sc[p]
    else:
        evaluate(d, P.eval_temperature, win, score)
        if P.value_net != NULL:
            value_rewards(P.value_net, d, win)
    for p in range(n):
        reward[p] = win[p]
    if P.reward_margin:
        for p in range(n):
            margin = (score[p] - best_other(score, n, p) - P.margin_center[p]) / P.margin_scale
            margin = margin / (1.0 + (margin if margin > 0 else -margin))   # in (-1, 1)
            reward[p] = (1.0 - P.margin_weight) * win[p] + P.margin_weight * 0.5 * (1.0 + margin)


# One iteration from `root` for `seat` (a view for ISMCTS, the true state otherwise).
cdef void iterate(Tree* t, const Params* P, const GameState* root, int seat, Rng* rng) noexcept nogil:
    cdef GameState d
    cdef int buf[LEGAL_BUF]
    cdef int32_t path[MAX_PATH]
    cdef int32_t path_nodes[MAX_PATH]
    cdef int depth = 0, n, expanded = 0, turns = 0, mover, k, p, preferred
    cdef long long slot
    cdef int32_t node_idx
    cdef int edge_idx
    cdef uint64_t key
    cdef double reward[MAX_P]
    cdef double win[MAX_P]
    cdef double score[MAX_P]
    cdef Edge* e
    if P.determinize:
        determinize_state(root, seat, rng, &d)
    else:
        memcpy(&d, root, sizeof(GameState))
    # Steps 2-3: selection and expansion
    while d.stage != S_GAME_OVER and depth < MAX_PATH:
        if d.stage == S_DRAW:
            apply_action(&d, random_action(&d, rng, buf))
            continue
        key = info_key(&d, d.to_move) if P.determinize else d.key
        slot = find_slot(t, key)
        n = legal_actions(&d, buf)
        if t.table[slot] == EMPTY:
            if expanded:
                break
            node_idx = expand(t, key, slot, &d, buf, n)
            if node_idx == EMPTY:
                break
            expanded = 1
        else:
            node_idx = t.table[slot]
        preferred = -1
        if P.policy_first and t.nodes[node_idx].visits < n:   # untried edges may remain
            preferred = heuristic_choice(&d, rng, buf, n)
        edge_idx = select_edge(t, &t.nodes[node_idx], buf, n, P.c_uct, rng, preferred)
        if edge_idx < 0:
            break
        path[depth] = edge_idx
        path_nodes[depth] = node_idx
        depth += 1
        t.node_visits += 1
        apply_action(&d, t.edges[edge_idx].action)
    # Step 4: rollout
    mover = d.to_move
    while d.stage != S_GAME_OVER and (P.rollout_turns < 0 or turns < P.rollout_turns):
        apply_action(&d, policy_action(P.policy, &d, rng, buf))
        if d.to_move != mover:
            turns += 1
            mover = d.to_move
    finish(P, &d, reward, win, score)
    # Step 5: backup
    for k in range(depth):
        e = &t.edges[path[k]]
        e.visits += 1
        for p in range(d.n_players):
            e.reward[p] += <float>reward[p]
            e.win[p] += <float>win[p]
            e.score[p] += <float>score[p]
        t.nodes[path_nodes[k]].visits += 1
    for p in range(d.n_players):
        t.root_reward[p] += reward[p]
        t.root_win[p] += win[p]
        t.root_score[p] += score[p]
    t.iterations += 1


cdef class TreeSearch:
    """One search tree and its parameters; the engine of ISMCTS and perfect-information MCTS.

    Python code uses search.mcts (which wraps this) rather than this class directly.
    """
    cdef Tree tree
    cdef Params params
    cdef GameState root
    cdef int seat
    cdef Rng rng
    cdef public int stop_flag
    cdef object root_state
    cdef bint dynamic_center
    cdef bint adaptive
    cdef readonly ValueModel value_model    # leaf_eval=value: the model value_net points into (kept alive here)

    def __cinit__(self, params, bint determinize, unsigned long long seed):
        """`params` is a search.params.SearchParams; its fields are read by name."""
        cdef long long memory_bytes = (<long long>params.hash_mb) << 20
        cdef long long per_node = TreeSearch.bytes_per_node()
        cdef long long cap = memory_bytes // per_node
        cdef long long size = 1
        if cap < 16:
            cap = 16
        while size < 2 * cap:
            size <<= 1
        memset(&self.tree, 0, sizeof(Tree))
        self.tree.node_cap = cap
        self.tree.edge_cap = EDGES_PER_NODE * cap
        self.tree.table_mask = size - 1
        self.tree.nodes = <Node*>malloc(cap * sizeof(Node))
        self.tree.edges = <Edge*>malloc(self.tree.edge_cap * sizeof(Edge))
        self.tree.table = <int32_t*>malloc(size * sizeof(int32_t))
        if self.tree.nodes == NULL or self.tree.edges == NULL or self.tree.table == NULL:
            raise MemoryError(f"cannot allocate a search tree of {memory_bytes} bytes")
        memset(self.tree.table, 0xFF, size * sizeof(int32_t))
        self.params.c_uct = params.exploration
        self.params.policy = POLICY_CODES[params.rollout_policy]
        self.params.rollout_turns = params.rollout_turns
        self.params.eval_temperature = params.eval_temperature
        self.params.determinize = 1 if determinize else 0
        self.params.reward_margin = 1 if params.reward in ("margin", "dynamic") else 0
        self.dynamic_center = params.reward == "dynamic"
        self.adaptive = params.reward == "adaptive"
        self.params.margin_weight = params.margin_weight
        self.params.margin_scale = params.margin_scale
        self.params.policy_first = 1 if params.first_play == "policy" else 0
        self.params.value_net = NULL
        if params.leaf_eval == "value":
            self.value_model = load_value_model(params.value_weights)
            self.params.value_net = &self.value_model.net
        self.rng.state = seed
        self.stop_flag = 0

    @staticmethod
    def bytes_per_node():
        """Memory one tree node costs with its share of edges and hash table (the Hash budget's unit)."""
        return sizeof(Node) + 2 * sizeof(int32_t) + EDGES_PER_NODE * sizeof(Edge)

    @staticmethod
    def record_bytes():
        """The bytes of one node record, one edge record and one hash slot (what a tree
        actually uses per node: node + 2 slots + its edges; bench/search.py --fill)."""
        return {"node": sizeof(Node), "edge": sizeof(Edge), "slot": sizeof(int32_t)}

    def __dealloc__(self):
        free(self.tree.nodes)
        free(self.tree.edges)
        free(self.tree.table)

    def set_root(self, state, int seat):
        """Search from `state` (an engine State, full or a view) for `seat`.

        The nodes already in the tree stay (tree reuse: a position searched before keeps its
        statistics, found again by its key); the per-search counters (iterations, decisions
        walked, the root's summed value) start again from zero."""
        cdef State s = <State?>state
        if self.params.determinize:
            if s.st.observer >= 0 and s.st.observer != seat:
                raise ValueError("the root is a view from another seat")
            if s.st.observer == seat:
                memcpy(&self.root, &s.st, sizeof(GameState))
            else:
                view_state(&s.st, seat, &self.root)
        else:
            if s.st.observer >= 0:
                raise ValueError("perfect-information search needs the full state, not a view")
            memcpy(&self.root, &s.st, sizeof(GameState))
        self.seat = seat
        self.root_state = state
        self.stop_flag = 0
        self.tree.iterations = 0
        self.tree.node_visits = 0
        memset(self.tree.root_reward, 0, sizeof(self.tree.root_reward))
        memset(self.tree.root_win, 0, sizeof(self.tree.root_win))
        memset(self.tree.root_score, 0, sizeof(self.tree.root_score))
        self._center_margins()
        self._choose_reward()

    cdef void _choose_reward(self):
        # reward=adaptive: the win reward while the static evaluation gives the root seat a
        # win share in [ADAPTIVE_LOW, 1 - ADAPTIVE_LOW], the margin blend once the win is
        # (nearly) out of reach or (nearly) certain, so the seat keeps playing for points.
        cdef double win[MAX_P]
        cdef double score[MAX_P]
        if not self.adaptive:
            return
        evaluate(&self.root, self.params.eval_temperature, win, score)
        self.params.reward_margin = 1 if (win[self.seat] < ADAPTIVE_LOW
                                          or win[self.seat] > 1.0 - ADAPTIVE_LOW) else 0

    def blends_margin(self):
        """True if this search backs up the margin blend (always with margin/dynamic; with
        adaptive, when the root seat's win looked decided at set_root)."""
        return bool(self.params.reward_margin)

    def reseed(self, unsigned long long seed):
        """Restart the search's random stream (a reused tree's next search)."""
        self.rng.state = seed

    def has_node(self, state):
        """True if the tree holds a node for `state` (the position a reused search starts from)."""
        return self.tree.table[find_slot(&self.tree, self.key_for(state))] != EMPTY

    def fill(self):
        """The share of the tree's node capacity in use."""
        return self.tree.n_nodes / <double>self.tree.node_cap

    def audit(self):
        """Check the tree's statistics: every node's visits are the sum of its edges' visits
        (an iteration counts a node as it takes one of its edges), every node's edges lie in
        the used part of the edge array, and the hash table finds every node by its key.
        Returns {"nodes", "edges", "edge_visits", "bad_visits", "bad_edges", "unfound"}."""
        cdef long long i, j, total, edge_visits = 0, bad_visits = 0, bad_edges = 0, unfound = 0
        cdef Node* node
        for i in range(self.tree.n_nodes):
            node = &self.tree.nodes[i]
            if node.first_edge < 0 or node.first_edge + node.n_edges > self.tree.n_edges:
                bad_edges += 1
                continue
            total = 0
            for j in range(node.first_edge, node.first_edge + node.n_edges):
                total += self.tree.edges[j].visits
            edge_visits += total
            if total != node.visits:
                bad_visits += 1
            if self.tree.table[find_slot(&self.tree, node.key)] != i:
                unfound += 1
        return {"nodes": self.tree.n_nodes, "edges": self.tree.n_edges, "edge_visits": edge_visits,
                "bad_visits": bad_visits, "bad_edges": bad_edges, "unfound": unfound}

    cdef void _center_margins(self):
        # reward=dynamic centres each seat's margin utility on the margin the static evaluation
        # expects from the root, so its slope is steepest where the game's outcome will fall
        # (a seat 40 VP behind still tells 30 from 50 behind); otherwise the centre is 0.
        cdef double est[MAX_P]
        cdef int p, n = self.root.n_players
        memset(self.params.margin_center, 0, sizeof(self.params.margin_center))
        if not self.dynamic_center:
            return
        estimate_scores(&self.root, est)
        for p in range(n):
            self.params.margin_center[p] = est[p] - best_other(est, n, p)

    def run(self, long long max_iterations, double deadline_ms, long long max_visits):
        """Iterate until one limit is hit or stop_flag is set; returns iterations done.

        max_visits counts node visits (tree decisions walked, summed over iterations: PRI's
        `go nodes`), not tree nodes. max_iterations / max_visits <= 0 and deadline_ms <= 0
        mean no such limit.
        The time is checked every 16 iterations.
        """
        cdef long long done = 0
        with nogil:
            while not self.stop_flag:
                if max_iterations > 0 and done >= max_iterations:
                    break
                if max_visits > 0 and self.tree.node_visits >= max_visits:
                    break
                if deadline_ms > 0 and (done & 15) == 0 and now_ms() >= deadline_ms:
                    break
                iterate(&self.tree, &self.params, &self.root, self.seat, &self.rng)
                done += 1
        return done

    @staticmethod
    def clock_ms():
        return now_ms()

    def stats(self):
        """Counters: iterations, nodes, edges, node_visits, capacity, full, bytes per node."""
        cdef long long per_node = TreeSearch.bytes_per_node()
        return {
            "iterations": self.tree.iterations, "nodes": self.tree.n_nodes,
            "edges": self.tree.n_edges, "node_visits": self.tree.node_visits,
            "node_capacity": self.tree.node_cap, "full": bool(self.tree.full),
            "bytes_per_node": per_node, "bytes_allocated": self.tree.node_cap * per_node,
            "root_value": [self.tree.root_reward[p] / max(1, self.tree.iterations)
                           for p in range(self.root.n_players)],
            "root_win": [self.tree.root_win[p] / max(1, self.tree.iterations)
                         for p in range(self.root.n_players)],
            "root_score": [self.tree.root_score[p] / max(1, self.tree.iterations)
                           for p in range(self.root.n_players)],
        }

    def node_edges(self, unsigned long long key):
        """For the node with this key: its edges as [EdgeStats], or None if there is no such node."""
        cdef long long slot = find_slot(&self.tree, key)
        cdef int32_t idx = self.tree.table[slot]
        cdef Node* node
        cdef Edge* e
        cdef int i, p
        if idx == EMPTY:
            return None
        node = &self.tree.nodes[idx]
        out = []
        for i in range(node.n_edges):
            e = &self.tree.edges[node.first_edge + i]
            out.append(EdgeStats(e.action, e.visits, e.avail,
                                 [e.reward[p] for p in range(self.root.n_players)],
                                 [e.win[p] for p in range(self.root.n_players)],
                                 [e.score[p] for p in range(self.root.n_players)]))
        return out

    def key_for(self, state):
        """The key this search gives a position (info key of the seat to move, or full key)."""
        cdef State s = <State?>state
        if self.params.determinize:
            return info_key(&s.st, s.st.to_move)
        return s.st.key
