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
#         selection=puct adds the policy's priors (PUCT, select_puct); selection=gumbel
#         also runs the root as Gumbel-top-k with sequential halving (gumbel_select).
#         docs/search.md, "Priors in the tree", gives both formulas.
#         Chance events are sampled from the determinized pile.
# Step 3  Expand one node per iteration, with an edge per legal action (and, with puct or
#         gumbel, each edge's prior: the policy head's, search/_prior.pxd).
# Step 4  Roll out with the configured policy, to the end or for a number of turns, then
#         score: final returns at the end, the static evaluation (or the learned value
#         model's win shares, leaf_eval=value; a vector head's shares and scores) at a cutoff.
# Step 5  Back up the reward vector and the expected scores along the path.
#
# The tree lives in flat arrays sized from a memory budget (the Hash option): nodes, edges,
# their statistics and an open-addressing hash table of node indices. When one fills, the
# search goes on without expanding (graceful). No Python object is touched per iteration.
#
# The edge records are sized by the tree's player count n (issue 27, item 1), fixed when the
# first set_root allocates the arrays:
#   edge record (hot)   visits, avail, action, reward[n]  12 + 4n bytes: all selection reads
#                       (UCB1, PUCT, the Gumbel root's q) in one record, a node's edges
#                       together (12 edges: 240-336 bytes, against 720 before);
#   edge stats (cold)   [win[n]] score[n] per edge, only written by the backup and read by
#                       node_edges (the root's candidates, the analysis's lines, and after
#                       tree reuse a deeper node that became the root).
# Where win and score are kept, and why: node_edges is read at the root and, through tree
# reuse (search/mcts.py finds the next root by its key anywhere in the tree) and the
# analysis's turn lines, at nodes below it, so every edge keeps its score sums; keeping them
# only for some nodes would make the numbers after reuse depend on which nodes had them.
# The win sums are the reward sums exactly (the same float added in the same order) while
# the tree does not blend the margin, so a tree whose first root did not blend (reward=win,
# and reward=adaptive while the win is open) keeps no win array and reports its reward sums
# as win sums; reward=margin/dynamic, or adaptive blending at the first root, keep win[n].
# A later root with another player count, or one that blends in a tree without win sums
# (search/mcts.py starts a fresh tree then anyway), re-allocates the tree empty.
# Bytes per node with puct/gumbel's priors (node 24, 2 hash slots 8, 12 edges of record +
# statistics + a 4-byte prior): 2 players 416 (blending 512), 3 players 512 (656), 4 players
# 608 (800); 48 less with uct. Before, an edge was 60 bytes (reward, win, score for 4 seats)
# and a node 800 (uct 752) at every player count. docs/search.md, "Tree memory".

from libc.stdint cimport uint64_t, int32_t, int16_t, int8_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset
from libc.math cimport sqrt, log, ceil, log2
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from engine._state cimport (
    GameState, State, Rng, rng_below, rng_next, legal_actions, apply_action, info_key, final_scores,
    final_returns, view_state, determinize_state, random_action, LEGAL_BUF, MAX_P,
    S_DRAW, S_GAME_OVER,
)
from search._policy cimport policy_action, heuristic_choice, evaluate, estimate_scores, POLICY_UNIFORM, POLICY_HEURISTIC
from search._policy import static_eval_code
from search._value cimport ValueNet, ValueModel, value_rewards, vector_rewards
from search._prior cimport PolicyNet, PolicyModel, policy_priors
from search._fpmode cimport pfp_saved, pfp_enter, pfp_leave, pfp_probe

cdef enum:
    MAX_PATH = 512
    EMPTY = -1
    EDGES_PER_NODE = 12     # edges budgeted per node when sizing the tree from its memory bound
    SEL_UCT = 0
    SEL_PUCT = 1
    SEL_GUMBEL = 2
    MAX_PHASES = 8          # sequential halving's phases: ceil(log2 LEGAL_BUF) = 7 at most

from search.result import EdgeStats
from search.value import check_players, load_value_model
from search.priors import load_priors

cdef double ADAPTIVE_LOW = 0.05   # reward=adaptive: below this static win share (or above 1 minus it) the margin counts

MAX_PLAYERS = MAX_P      # the largest player count a tree's records can be sized for
POLICY_CODES = {"uniform": POLICY_UNIFORM, "heuristic": POLICY_HEURISTIC}
SELECTION_CODES = {"uct": SEL_UCT, "puct": SEL_PUCT, "gumbel": SEL_GUMBEL}
# The Gumbel root's sigma(q) = (C_VISIT + max_b N(b)) * C_SCALE * q: the constants of
# Danihelka et al. 2022 (appendix; q in [0, 1], as the rewards here are).
cdef double C_VISIT = 50.0
cdef double C_SCALE = 1.0
cdef double FPU_NO_VISIT = 0.5    # PUCT's value of an unvisited edge at a node none of whose legal edges was visited

cdef struct Node:
    uint64_t key
    int32_t first_edge
    int32_t visits
    int16_t n_edges
    int8_t player

# The hot edge record. Only reward[:n_players] is allocated: records are Tree.edge_stride
# bytes apart (EDGE_HEAD + 4 n_players), so reach one with edge_at, never by indexing.
cdef struct Edge:
    int32_t visits
    int32_t avail            # iterations in which this action was legal at its node
    int16_t action
    int16_t unused
    float reward[MAX_P]      # sum of reward vectors backed up through this edge (what selection maximises)

# The cold statistics of edge i: Tree.stats[i * stat_stride:], [win[n] if keep_win] then
# score[n]: the sum of win shares (1/k for each of k winners; the evaluation's estimate at a
# cutoff) and of (expected) final scores.
cdef enum:
    EDGE_HEAD = 12           # the bytes of Edge before reward

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
    int value_view                # a vector head's viewing seat at a cutoff: the root seat (set_root)
    int selection                 # SEL_UCT, SEL_PUCT or SEL_GUMBEL
    double prior_c                # the PUCT constant
    const PolicyNet* policy_net   # the priors at expansion (puct/gumbel); NULL: uniform
    int static_eval               # the static evaluation, an EVAL_* code (search/_policy.pxd)

cdef struct Tree:
    Node* nodes
    char* edges              # the hot records, edge_stride bytes each (edge_at)
    float* stats             # the cold statistics, stat_stride floats an edge
    long long edge_stride
    int stat_stride
    int n_players            # the layout's player count (0: not allocated yet)
    int keep_win             # 1: stats hold win[n] before score[n]; 0: win is reward (no blending)
    float* priors            # puct/gumbel: the prior of edges[i] is priors[i] (set at expansion); NULL with uct
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


# The Gumbel root of one search (selection=gumbel): the sampled actions, the sequential
# halving's schedule, and a log of each phase's end (TreeSearch.gumbel_state). Root edges are
# named by their offset j in the root node's edge list.
cdef struct Gumbel:
    int active
    int32_t root             # the root node's index
    int player               # the root's mover (whose mean reward q is)
    int m                    # actions sampled: min(gumbel_k, legal, budget)
    int alive                # survivors of the current phase: order[:alive], best first once ranked
    int order[LEGAL_BUF]
    double g[LEGAL_BUF]      # per offset: Gumbel noise + log prior
    int visits[LEGAL_BUF]    # per offset: this search's iterations through the edge
    int phases               # ceil(log2 m)
    int phase
    long long budget         # the iterations the schedule is planned for
    int target               # the visits (this search's) each survivor has by the current phase's end
    int chosen               # the offset chosen once the last phase ended; -1 before
    long long mismatch       # iterations whose root legal actions were not the root node's edges
    int log_alive[MAX_PHASES]            # per phase ended: survivors, their offsets, this
    int log_order[MAX_PHASES][LEGAL_BUF] # search's visits, edge visits and reward sums (of
    int log_visits[MAX_PHASES][LEGAL_BUF]  # `player`) at the phase's end, and max_b N(b)
    int log_n[MAX_PHASES][LEGAL_BUF]
    double log_reward[MAX_PHASES][LEGAL_BUF]
    int log_max_n[MAX_PHASES]


cdef inline Edge* edge_at(const Tree* t, long long i) noexcept nogil:
    return <Edge*>(t.edges + i * t.edge_stride)


cdef inline long long edge_bytes(int n_players) noexcept nogil:
    return EDGE_HEAD + n_players * sizeof(float)


cdef inline int stat_floats(int n_players, int keep_win) noexcept nogil:
    return n_players * (2 if keep_win else 1)


cdef inline double now_ms() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6


cdef inline long long find_slot(const Tree* t, uint64_t key) noexcept nogil:
    cdef long long i = <long long>(key & <uint64_t>t.table_mask)
    while t.table[i] != EMPTY and t.nodes[t.table[i]].key != key:
        i = (i + 1) & t.table_mask
    return i


cdef int32_t expand(Tree* t, const Params* P, uint64_t key, long long slot, const GameState* d,
                    const int* buf, int n) noexcept nogil:
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
    memset(edge_at(t, t.n_edges), 0, n * t.edge_stride)
    memset(&t.stats[t.n_edges * t.stat_stride], 0, n * t.stat_stride * sizeof(float))
    for i in range(n):
        edge_at(t, t.n_edges + i).action = <int16_t>buf[i]
    if t.priors != NULL:
        policy_priors(P.policy_net, d, buf, n, &t.priors[t.n_edges])
    t.n_edges += n
    t.table[slot] = idx
    return idx


# The node's edges legal now (the actions in `buf` and the edges, both sorted by action):
# their offsets into `legal`, in order, each one's availability counted for this iteration.
# Returns how many (select_edge and select_puct choose among them).
cdef int legal_edges(Tree* t, const Node* node, const int* buf, int n, int* legal) noexcept nogil:
    cdef int i = 0, j = 0, m = 0, n_edges = node.n_edges
    cdef long long stride = t.edge_stride
    cdef char* base = t.edges + node.first_edge * stride
    cdef Edge* e
    while i < n and j < n_edges:
        e = <Edge*>(base + j * stride)
        if buf[i] < e.action:
            i += 1
        elif buf[i] > e.action:
            j += 1
        else:
            e.avail += 1
            legal[m] = j
            m += 1
            i += 1
            j += 1
    return m


# Choose an edge among those legal now: an untried one first (`preferred` if it is untried,
# else one at random among the untried: the canonical order would favour low action ids
# whenever visits are few), else the UCB1 maximum for the acting seat.
cdef int select_edge(Tree* t, Node* node, const int* buf, int n, double c_uct, Rng* rng,
                     int preferred) noexcept nogil:
    cdef int legal[LEGAL_BUF]
    cdef int k, j, best = -1, untried = -1, n_untried = 0, p = node.player, pref = -1
    cdef int m = legal_edges(t, node, buf, n, legal)
    cdef long long stride = t.edge_stride
    cdef char* base = t.edges + node.first_edge * stride
    cdef Edge* e
    cdef double value, best_value = -1e300
    for k in range(m):
        j = legal[k]
        e = <Edge*>(base + j * stride)
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
    if pref >= 0:
        return node.first_edge + pref
    if untried >= 0:
        return node.first_edge + untried
    return node.first_edge + best if best >= 0 else -1


# PUCT (selection=puct, and below a Gumbel root): among the edges legal now, the maximum of
#   Q(a) + c * P~(a) * sqrt(avail(a)) / (1 + N(a))
# with Q(a) = reward[p] / N(a) for the mover p (an unvisited edge: the first-play urgency
# fpu, the mean reward of the node's visited legal edges, pooled: sum reward[p] / sum N; with
# none visited FPU_NO_VISIT), P~ the priors renormalised over the legal edges, avail(a)
# counting this iteration. With first_play=policy the rollout policy's choice is taken first
# while it is unvisited (`preferred`, as UCT does; the caller asks for it while the node has
# had fewer visits than legal actions). Ties go to one of the tied edges at random.
cdef int select_puct(Tree* t, Node* node, const int* buf, int n, double c, Rng* rng,
                     int preferred) noexcept nogil:
    cdef int legal[LEGAL_BUF]
    cdef int j, k, p = node.player, pref = -1, best = -1, n_best = 0
    cdef int m = legal_edges(t, node, buf, n, legal)
    cdef double psum = 0.0, rsum = 0.0, vsum = 0.0, fpu, q, prior, value, best_value = -1e300
    cdef Edge* e
    cdef const float* priors = &t.priors[node.first_edge]
    cdef long long stride = t.edge_stride
    cdef char* base = t.edges + node.first_edge * stride
    for k in range(m):
        j = legal[k]
        e = <Edge*>(base + j * stride)
        psum += priors[j]
        if e.visits > 0:
            rsum += e.reward[p]
            vsum += e.visits
        elif e.action == preferred:
            pref = j
    if pref >= 0:
        return node.first_edge + pref
    if m == 0:
        return -1
    fpu = rsum / vsum if vsum > 0 else FPU_NO_VISIT
    for k in range(m):
        e = <Edge*>(base + legal[k] * stride)
        q = e.reward[p] / e.visits if e.visits > 0 else fpu
        prior = priors[legal[k]] / psum if psum > 0 else 1.0 / m
        value = q + c * prior * sqrt(<double>e.avail) / (1.0 + e.visits)
        if value > best_value:
            best_value = value
            best = legal[k]
            n_best = 1
        elif value == best_value:
            n_best += 1
            if rng_below(rng, n_best) == 0:       # reservoir sampling among the tied
                best = legal[k]
    return node.first_edge + best


# The Gumbel root (Danihelka et al. 2022): sampled actions ranked by
#   g(a) + log P(a) + sigma(q(a)),  sigma(q) = (C_VISIT + max_b N(b)) * C_SCALE * q
# with q(a) = reward[p] / N(a) (an unvisited edge: the first-play urgency of select_puct).
cdef double gumbel_q(const Tree* t, const Gumbel* g, int j) noexcept nogil:
    cdef const Node* node = &t.nodes[g.root]
    cdef const Edge* e = edge_at(t, node.first_edge + j)
    cdef double rsum = 0.0, vsum = 0.0
    cdef int i
    if e.visits > 0:
        return e.reward[g.player] / e.visits
    for i in range(node.n_edges):
        e = edge_at(t, node.first_edge + i)
        if e.visits > 0:
            rsum += e.reward[g.player]
            vsum += e.visits
    return rsum / vsum if vsum > 0 else FPU_NO_VISIT


cdef int gumbel_max_n(const Tree* t, const Gumbel* g) noexcept nogil:
    cdef const Node* node = &t.nodes[g.root]
    cdef int i, best = 0
    for i in range(node.n_edges):
        if edge_at(t, node.first_edge + i).visits > best:
            best = edge_at(t, node.first_edge + i).visits
    return best


cdef double gumbel_score(const Tree* t, const Gumbel* g, int j, int max_n) noexcept nogil:
    return g.g[j] + (C_VISIT + max_n) * C_SCALE * gumbel_q(t, g, j)


# Rank the survivors order[:alive] by score, best first (stable: ties keep their order).
cdef void gumbel_rank(const Tree* t, Gumbel* g) noexcept nogil:
    cdef double score[LEGAL_BUF]
    cdef int i, k, o
    cdef double sc
    cdef int max_n = gumbel_max_n(t, g)
    for i in range(g.alive):
        score[i] = gumbel_score(t, g, g.order[i], max_n)
    for i in range(1, g.alive):              # insertion sort, descending, stable
        o = g.order[i]
        sc = score[i]
        k = i - 1
        while k >= 0 and score[k] < sc:
            score[k + 1] = score[k]
            g.order[k + 1] = g.order[k]
            k -= 1
        score[k + 1] = sc
        g.order[k + 1] = o


cdef inline int gumbel_increment(const Gumbel* g) noexcept nogil:
    """Each survivor's visits in a phase: the budget shared equally by the phases, and in a
    phase by its survivors (at least 1)."""
    cdef long long share = g.budget // (g.phases * g.alive)
    return <int>share if share >= 1 else 1


# The current phase is over (every survivor has `target` visits of this search): log it, rank
# the survivors; keep the better half (rounded up) for the next phase, or, with two or fewer
# left (the last of ceil(log2 m) phases), choose the best.
cdef void gumbel_end_phase(const Tree* t, Gumbel* g) noexcept nogil:
    cdef int i, j, ph = g.phase
    cdef const Edge* e
    if ph < MAX_PHASES:
        g.log_alive[ph] = g.alive
        g.log_max_n[ph] = gumbel_max_n(t, g)
        for i in range(g.alive):
            j = g.order[i]
            e = edge_at(t, t.nodes[g.root].first_edge + j)
            g.log_order[ph][i] = j
            g.log_visits[ph][i] = g.visits[j]
            g.log_n[ph][i] = e.visits
            g.log_reward[ph][i] = e.reward[g.player]
    gumbel_rank(t, g)
    g.phase += 1
    if g.alive <= 2:
        g.alive = 1
        g.chosen = g.order[0]
        return
    g.alive = (g.alive + 1) // 2
    g.target += gumbel_increment(g)


# The root edge of a Gumbel root: the chosen action once the schedule ended, else the
# survivor with the fewest visits of this search (the first in survivor order on a tie),
# ending phases whose survivors all reached the target. -1 if the legal actions now are not
# the root node's edges (counted in `mismatch`; the caller falls back to PUCT).
cdef int gumbel_select(Tree* t, Gumbel* g, Node* node, const int* buf, int n) noexcept nogil:
    cdef int j, i, pick = -1, fewest
    if n != node.n_edges:
        g.mismatch += 1
        return -1
    for j in range(n):
        if buf[j] != edge_at(t, node.first_edge + j).action:
            g.mismatch += 1
            return -1
    while g.chosen < 0:
        fewest = -1
        for i in range(g.alive):
            if fewest < 0 or g.visits[g.order[i]] < g.visits[g.order[fewest]]:
                fewest = i
        if g.visits[g.order[fewest]] < g.target:
            pick = g.order[fewest]
            break
        gumbel_end_phase(t, g)
    if g.chosen >= 0:
        pick = g.chosen
    for j in range(n):
        edge_at(t, node.first_edge + j).avail += 1
    g.visits[pick] += 1
    return node.first_edge + pick


# The root's choice now: the chosen action, or before the schedule's end the best current
# survivor by the same score; -1 if no Gumbel root is active.
cdef int gumbel_current(const Tree* t, const Gumbel* g) noexcept nogil:
    cdef int i, best = -1, max_n
    cdef double sc, best_score = -1e300
    if not g.active:
        return -1
    if g.chosen >= 0:
        return g.chosen
    max_n = gumbel_max_n(t, g)
    for i in range(g.alive):
        sc = gumbel_score(t, g, g.order[i], max_n)
        if sc > best_score:
            best_score = sc
            best = g.order[i]
    return best


cdef inline double best_other(const double* values, int n, int p) noexcept nogil:
    """The largest of values[q] for q != p (another seat's score)."""
    cdef double best = -1e9
    cdef int q
    for q in range(n):
        if q != p and values[q] > best:
            best = values[q]
    return best


# The outcome of a finished rollout for every seat: `win` (the share of the win, or at a cutoff
# the static evaluation's estimate, or the value model's), `score` (final or expected VP: at a
# cutoff the static evaluation's, or a vector head's) and `reward`, what the
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
    elif not (P.value_net != NULL and P.value_net.players
              and vector_rewards(P.value_net, d, P.value_view, win, score)):
        # a vector head gives every seat's share and score in one pass from the root seat's
        # view; otherwise the static evaluation's, the one-seat head's shares replacing its win
        evaluate(d, P.static_eval, P.eval_temperature, win, score)
        if P.value_net != NULL and not P.value_net.players:
            value_rewards(P.value_net, d, win)
    for p in range(n):
        reward[p] = win[p]
    if P.reward_margin:
        for p in range(n):
            margin = (score[p] - best_other(score, n, p) - P.margin_center[p]) / P.margin_scale
            margin = margin / (1.0 + (margin if margin > 0 else -margin))   # in (-1, 1)
            reward[p] = (1.0 - P.margin_weight) * win[p] + P.margin_weight * 0.5 * (1.0 + margin)


# One iteration from `root` for `seat` (a view for ISMCTS, the true state otherwise).
cdef void iterate(Tree* t, const Params* P, const GameState* root, int seat, Rng* rng,
                  Gumbel* gumbel) noexcept nogil:
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
    cdef float* c
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
            node_idx = expand(t, P, key, slot, &d, buf, n)
            if node_idx == EMPTY:
                break
            expanded = 1
        else:
            node_idx = t.table[slot]
        edge_idx = -1
        if depth == 0 and gumbel.active and node_idx == gumbel.root:
            edge_idx = gumbel_select(t, gumbel, &t.nodes[node_idx], buf, n)
        if edge_idx < 0:
            preferred = -1
            if P.policy_first and t.nodes[node_idx].visits < n:   # untried edges may remain
                preferred = heuristic_choice(&d, rng, buf, n)
            if P.selection == SEL_UCT:
                edge_idx = select_edge(t, &t.nodes[node_idx], buf, n, P.c_uct, rng, preferred)
            else:
                edge_idx = select_puct(t, &t.nodes[node_idx], buf, n, P.prior_c, rng, preferred)
        if edge_idx < 0:
            break
        path[depth] = edge_idx
        path_nodes[depth] = node_idx
        depth += 1
        t.node_visits += 1
        apply_action(&d, edge_at(t, edge_idx).action)
    # Step 4: rollout. No key is read from here on (the evaluation reads rooms, gold and tiles,
    # and d is dropped after the backup), so the rollout skips the key updates (keyless, as
    # engine/_state.pyx random_playout does).
    d.keyless = 1
    mover = d.to_move
    while d.stage != S_GAME_OVER and (P.rollout_turns < 0 or turns < P.rollout_turns):
        apply_action(&d, policy_action(P.policy, &d, rng, buf))
        if d.to_move != mover:
            turns += 1
            mover = d.to_move
    finish(P, &d, reward, win, score)
    # Step 5: backup
    for k in range(depth):
        e = edge_at(t, path[k])
        e.visits += 1
        c = &t.stats[<long long>path[k] * t.stat_stride]
        for p in range(d.n_players):
            e.reward[p] += <float>reward[p]
        if t.keep_win:
            for p in range(d.n_players):
                c[p] += <float>win[p]
            c += d.n_players
        for p in range(d.n_players):
            c[p] += <float>score[p]
        t.nodes[path_nodes[k]].visits += 1
    for p in range(d.n_players):
        t.root_reward[p] += reward[p]
        t.root_win[p] += win[p]
        t.root_score[p] += score[p]
    t.iterations += 1


cdef class TreeSearch:
    """One search tree and its parameters; the core of ISMCTS and perfect-information MCTS.

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
    cdef readonly PolicyModel policy_model  # puct/gumbel with learned priors: the model policy_net points into
    cdef Gumbel gumbel
    cdef int gumbel_k
    cdef double gumbel_scale
    cdef long long memory_bytes      # the Hash budget; the arrays are allocated at the first set_root
    cdef readonly int fp_mode_in_run  # pfp_probe() inside the last run, before the mode is restored (tests)

    def __cinit__(self, params, bint determinize, unsigned long long seed):
        """`params` is a search.params.SearchParams; its fields are read by name. The tree's
        arrays are allocated by the first set_root, sized for its player count."""
        cdef int selection = SELECTION_CODES[params.selection]
        memset(&self.tree, 0, sizeof(Tree))
        self.memory_bytes = (<long long>params.hash_mb) << 20
        self.params.c_uct = params.exploration
        self.params.policy = POLICY_CODES[params.rollout_policy]
        self.params.rollout_turns = params.rollout_turns
        self.params.eval_temperature = params.eval_temperature
        self.params.static_eval = static_eval_code(params.static_eval)
        self.params.determinize = 1 if determinize else 0
        self.params.reward_margin = 1 if params.reward in ("margin", "dynamic") else 0
        self.dynamic_center = params.reward == "dynamic"
        self.adaptive = params.reward == "adaptive"
        self.params.margin_weight = params.margin_weight
        self.params.margin_scale = params.margin_scale
        self.params.policy_first = 1 if params.first_play == "policy" else 0
        self.params.value_net = NULL
        self.params.value_view = 0
        if params.leaf_eval == "value":
            self.value_model = load_value_model(params.value_weights)
            self.params.value_net = &self.value_model.net
        self.params.selection = selection
        self.params.prior_c = params.prior_c
        self.params.policy_net = NULL
        if selection != SEL_UCT:
            self.policy_model = load_priors(params.policy_weights)
            if self.policy_model is not None:
                self.params.policy_net = &self.policy_model.net
        self.gumbel_k = params.gumbel_k
        self.gumbel_scale = params.gumbel_scale
        memset(&self.gumbel, 0, sizeof(Gumbel))
        self.rng.state = seed
        self.stop_flag = 0

    @staticmethod
    def bytes_per_node(bint priors=False, int n_players=MAX_P, bint win=True):
        """Memory one tree node costs with its share of edges and hash table (the Hash budget's
        unit) in a tree of `n_players`; `priors`: with each edge's prior too (selection puct
        or gumbel); `win`: the tree keeps win sums apart from the reward sums (it blends the
        margin: the top of this file)."""
        sizes = TreeSearch.record_bytes(n_players, win)
        return (sizes["node"] + 2 * sizes["slot"]
                + EDGES_PER_NODE * (sizes["edge"] + (sizeof(float) if priors else 0)))

    @staticmethod
    def record_bytes(int n_players=MAX_P, bint win=True):
        """The bytes of one node record, one edge (its hot record and its statistics, also
        apart) and one hash slot in a tree of `n_players` (`win`: with win sums kept): what a
        tree actually uses per node is node + 2 slots + its edges (bench/search.py --fill)."""
        if not 1 <= n_players <= MAX_P:
            raise ValueError(f"the player count {n_players} is not between 1 and {MAX_P}")
        hot = edge_bytes(n_players)
        cold = stat_floats(n_players, win) * sizeof(float)
        return {"node": sizeof(Node), "edge": hot + cold, "edge_record": hot, "edge_stats": cold,
                "slot": sizeof(int32_t)}

    cdef void _free(self):
        free(self.tree.nodes)
        free(self.tree.edges)
        free(self.tree.stats)
        free(self.tree.table)
        free(self.tree.priors)
        memset(&self.tree, 0, sizeof(Tree))

    cdef _allocate(self, int n_players, int keep_win):
        """Empty arrays for a tree of `n_players` (win sums kept or not) within the Hash
        budget; the tree before is dropped."""
        cdef bint priors = self.params.selection != SEL_UCT
        cdef long long per_node = TreeSearch.bytes_per_node(priors, n_players, keep_win)
        cdef long long cap = self.memory_bytes // per_node
        cdef long long size = 1
        self._free()
        if cap < 16:
            cap = 16
        while size < 2 * cap:
            size <<= 1
        self.tree.node_cap = cap
        self.tree.edge_cap = EDGES_PER_NODE * cap
        self.tree.table_mask = size - 1
        self.tree.n_players = n_players
        self.tree.keep_win = keep_win
        self.tree.edge_stride = edge_bytes(n_players)
        self.tree.stat_stride = stat_floats(n_players, keep_win)
        self.tree.nodes = <Node*>malloc(cap * sizeof(Node))
        self.tree.edges = <char*>malloc(self.tree.edge_cap * self.tree.edge_stride)
        self.tree.stats = <float*>malloc(self.tree.edge_cap * self.tree.stat_stride * sizeof(float))
        self.tree.table = <int32_t*>malloc(size * sizeof(int32_t))
        if priors:
            self.tree.priors = <float*>malloc(self.tree.edge_cap * sizeof(float))
        if (self.tree.nodes == NULL or self.tree.edges == NULL or self.tree.stats == NULL
                or self.tree.table == NULL or (priors and self.tree.priors == NULL)):
            self._free()
            raise MemoryError(f"cannot allocate a search tree of {self.memory_bytes} bytes")
        memset(self.tree.table, 0xFF, size * sizeof(int32_t))

    def __dealloc__(self):
        self._free()

    def set_root(self, state, int seat):
        """Search from `state` (a State, full or a view) for `seat`.

        The nodes already in the tree stay (tree reuse: a position searched before keeps its
        statistics, found again by its key); the per-search counters (iterations, decisions
        walked, the root's summed value) start again from zero."""
        cdef State s = <State?>state
        if self.value_model is not None:       # a vector head is for one player count
            check_players(self.value_model, s.st.n_players)
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
        # A vector head reads each cutoff from the root seat's view of the determinized state:
        # only what the searching seat knows (its own cards, the public state), not the cards
        # this iteration's determinization dealt to the others, and one viewpoint for every
        # leaf the search compares (docs/search.md, "Leaf evaluation").
        self.params.value_view = seat
        self.root_state = state
        self.stop_flag = 0
        self.tree.iterations = 0
        self.tree.node_visits = 0
        memset(self.tree.root_reward, 0, sizeof(self.tree.root_reward))
        memset(self.tree.root_win, 0, sizeof(self.tree.root_win))
        memset(self.tree.root_score, 0, sizeof(self.tree.root_score))
        memset(&self.gumbel, 0, sizeof(Gumbel))      # a Gumbel root starts with gumbel_start
        self._center_margins()
        self._choose_reward()
        if (self.tree.n_players != self.root.n_players
                or (self.params.reward_margin and not self.tree.keep_win)):
            self._allocate(self.root.n_players, self.params.reward_margin)

    cdef void _choose_reward(self):
        # reward=adaptive: the win reward while the static evaluation gives the root seat a
        # win share in [ADAPTIVE_LOW, 1 - ADAPTIVE_LOW], the margin blend once the win is
        # (nearly) out of reach or (nearly) certain, so the seat keeps playing for points.
        cdef double win[MAX_P]
        cdef double score[MAX_P]
        if not self.adaptive:
            return
        evaluate(&self.root, self.params.static_eval, self.params.eval_temperature, win, score)
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
        if self.tree.table == NULL:
            return False
        return self.tree.table[find_slot(&self.tree, self.key_for(state))] != EMPTY

    def fill(self):
        """The share of the tree's node capacity in use (0 before the first set_root)."""
        return self.tree.n_nodes / <double>self.tree.node_cap if self.tree.node_cap else 0.0

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
                total += edge_at(&self.tree, j).visits
            edge_visits += total
            if total != node.visits:
                bad_visits += 1
            if self.tree.table[find_slot(&self.tree, node.key)] != i:
                unfound += 1
        return {"nodes": self.tree.n_nodes, "edges": self.tree.n_edges, "edge_visits": edge_visits,
                "bad_visits": bad_visits, "bad_edges": bad_edges, "unfound": unfound}

    def seat_nodes(self):
        """The tree's shape by the seat that decides at a node: {"nodes": [per seat],
        "revisited": [per seat: nodes taken by two iterations or more]} (how far the tree
        reaches into the other seats' turns: bench/tree_shape.py, docs/search.md)."""
        cdef long long i
        cdef int n = self.tree.n_players
        nodes = [0] * n
        revisited = [0] * n
        for i in range(self.tree.n_nodes):
            nodes[self.tree.nodes[i].player] += 1
            if self.tree.nodes[i].visits >= 2:
                revisited[self.tree.nodes[i].player] += 1
        return {"nodes": nodes, "revisited": revisited}

    cdef void _center_margins(self):
        # reward=dynamic centres each seat's margin utility on the margin the static evaluation
        # expects from the root, so its slope is steepest where the game's outcome will fall
        # (a seat 40 VP behind still tells 30 from 50 behind); otherwise the centre is 0.
        cdef double est[MAX_P]
        cdef int p, n = self.root.n_players
        memset(self.params.margin_center, 0, sizeof(self.params.margin_center))
        if not self.dynamic_center:
            return
        estimate_scores(&self.root, self.params.static_eval, est)
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
        cdef pfp_saved fp_mode
        if self.tree.nodes == NULL:
            raise RuntimeError("set_root before run: the tree is allocated for the root's player count")
        with nogil:
            fp_mode = pfp_enter()       # flush-to-zero while the search runs (search/fp_mode.h)
            while not self.stop_flag:
                if max_iterations > 0 and done >= max_iterations:
                    break
                if max_visits > 0 and self.tree.node_visits >= max_visits:
                    break
                if deadline_ms > 0 and (done & 15) == 0 and now_ms() >= deadline_ms:
                    break
                iterate(&self.tree, &self.params, &self.root, self.seat, &self.rng, &self.gumbel)
                done += 1
            self.fp_mode_in_run = pfp_probe()
            pfp_leave(fp_mode)
        return done

    @staticmethod
    def clock_ms():
        return now_ms()

    def stats(self):
        """Counters: iterations, nodes, edges, node_visits, capacity, full, bytes per node
        (of this tree's layout: n_players, keeps_win; 0 before the first set_root), the bytes
        the Hash budget provisions (bytes_allocated: capacity x bytes per node) and the bytes
        the arrays really take (bytes_arrays: the hash table of table_slots, a power of 2 of
        at least 2 slots a node, may take more than its 2 provisioned slots a node)."""
        cdef long long per_node = 0
        if self.tree.n_players:
            per_node = TreeSearch.bytes_per_node(self.tree.priors != NULL, self.tree.n_players,
                                                 self.tree.keep_win)
        return {
            "n_players": self.tree.n_players, "keeps_win": bool(self.tree.keep_win),
            "iterations": self.tree.iterations, "nodes": self.tree.n_nodes,
            "edges": self.tree.n_edges, "node_visits": self.tree.node_visits,
            "node_capacity": self.tree.node_cap, "full": bool(self.tree.full),
            "bytes_per_node": per_node, "bytes_allocated": self.tree.node_cap * per_node,
            "table_slots": self.tree.table_mask + 1 if self.tree.table else 0,
            "bytes_arrays": (self.tree.node_cap * sizeof(Node) + (self.tree.table_mask + 1) * sizeof(int32_t)
                                + self.tree.edge_cap * (self.tree.edge_stride + self.tree.stat_stride * sizeof(float)
                                                        + (sizeof(float) if self.tree.priors != NULL else 0))
                                if self.tree.table else 0),
            "root_mismatch": self.gumbel.mismatch,
            "root_value": [self.tree.root_reward[p] / max(1, self.tree.iterations)
                           for p in range(self.root.n_players)],
            "root_win": [self.tree.root_win[p] / max(1, self.tree.iterations)
                         for p in range(self.root.n_players)],
            "root_score": [self.tree.root_score[p] / max(1, self.tree.iterations)
                           for p in range(self.root.n_players)],
        }

    def node_edges(self, unsigned long long key):
        """For the node with this key: its edges as [EdgeStats], or None if there is no such node."""
        cdef int32_t idx
        cdef Node* node
        cdef Edge* e
        cdef const float* c
        cdef int i, p, n = self.tree.n_players
        if self.tree.table == NULL:
            return None
        idx = self.tree.table[find_slot(&self.tree, key)]
        if idx == EMPTY:
            return None
        node = &self.tree.nodes[idx]
        out = []
        for i in range(node.n_edges):
            e = edge_at(&self.tree, node.first_edge + i)
            c = &self.tree.stats[<long long>(node.first_edge + i) * self.tree.stat_stride]
            reward = [e.reward[p] for p in range(n)]
            win = [c[p] for p in range(n)] if self.tree.keep_win else list(reward)
            if self.tree.keep_win:
                c += n
            out.append(EdgeStats(e.action, e.visits, e.avail, reward, win, [c[p] for p in range(n)]))
        return out

    def key_for(self, state):
        """The key this search gives a position (info key of the seat to move, or full key)."""
        cdef State s = <State?>state
        if self.params.determinize:
            return info_key(&s.st, s.st.to_move)
        return s.st.key

    def gumbel_start(self, long long budget):
        """With selection=gumbel, make the root a Gumbel root for this search (after set_root):
        expand it if the tree has no node for it, draw each root action's Gumbel noise
        (scale gumbel_scale) from the search's seeded stream, keep the gumbel_k best of
        noise + log prior (ties: the lower action) and plan sequential halving over `budget`
        iterations. Returns True if the root is a Gumbel root (not with uct/puct, at a chance
        point or the game's end, or with no room for the root node)."""
        cdef int buf[LEGAL_BUF]
        cdef int n, j, i, k, o, pos
        cdef uint64_t key
        cdef long long slot
        cdef int32_t idx
        cdef Node* node
        cdef double psum = 0.0, u, gj, pj
        cdef Gumbel* g = &self.gumbel
        cdef pfp_saved fp_mode
        memset(g, 0, sizeof(Gumbel))
        if (self.params.selection != SEL_GUMBEL or self.tree.table == NULL
                or self.root.stage == S_DRAW or self.root.stage == S_GAME_OVER):
            return False
        key = info_key(&self.root, self.root.to_move) if self.params.determinize else self.root.key
        slot = find_slot(&self.tree, key)
        n = legal_actions(&self.root, buf)
        idx = self.tree.table[slot]
        if idx == EMPTY:
            with nogil:
                fp_mode = pfp_enter()   # the root's priors (search/fp_mode.h)
                idx = expand(&self.tree, &self.params, key, slot, &self.root, buf, n)
                pfp_leave(fp_mode)
            if idx == EMPTY:
                return False
        node = &self.tree.nodes[idx]
        if node.n_edges < 1:
            return False
        g.root = idx
        g.player = node.player
        g.chosen = -1
        for j in range(node.n_edges):
            psum += self.tree.priors[node.first_edge + j]
        for j in range(node.n_edges):
            gj = 0.0
            if self.gumbel_scale > 0:
                u = ((rng_next(&self.rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0)   # in (0, 1)
                gj = -self.gumbel_scale * log(-log(u))
            pj = self.tree.priors[node.first_edge + j] / psum if psum > 0 else 1.0 / node.n_edges
            g.g[j] = gj + log(pj if pj > 1e-30 else 1e-30)
            # insertion into order[:j], descending by g (stable: ties keep the lower action first)
            k = j - 1
            while k >= 0 and g.g[g.order[k]] < g.g[j]:
                g.order[k + 1] = g.order[k]
                k -= 1
            g.order[k + 1] = j
        g.budget = budget if budget > 0 else 1
        # the paper's m = min(k, legal, budget): never more actions than iterations to try them
        g.m = min(node.n_edges, self.gumbel_k, <int>min(g.budget, <long long>LEGAL_BUF))
        if self.params.policy_first:
            # first_play=policy: the rollout policy's choice is always sampled (in place of the
            # m-th), as PUCT tries it first; the noise and the priors pick the others
            o = heuristic_choice(&self.root, &self.rng, buf, n)
            pos = 0
            while pos < node.n_edges and edge_at(&self.tree, node.first_edge + g.order[pos]).action != o:
                pos += 1
            if g.m <= pos < node.n_edges:
                k = g.order[pos]
                while pos > g.m - 1:
                    g.order[pos] = g.order[pos - 1]
                    pos -= 1
                g.order[g.m - 1] = k
        g.alive = g.m
        g.phases = <int>ceil(log2(<double>g.m)) if g.m > 1 else 0
        if g.m == 1:
            g.chosen = g.order[0]
        else:
            g.target = gumbel_increment(g)
        g.active = 1
        return True

    def gumbel_choice(self):
        """The Gumbel root's action now (the schedule's choice, or before its end the best
        survivor by the same score), or None without an active Gumbel root."""
        cdef int j = gumbel_current(&self.tree, &self.gumbel)
        if j < 0:
            return None
        return edge_at(&self.tree, self.tree.nodes[self.gumbel.root].first_edge + j).action

    def gumbel_state(self):
        """The Gumbel root's schedule, for tests and analysis: None if inactive, else a dict of
        budget, phases, k (actions sampled), sampled (their actions, best g + log prior first),
        g (action -> noise + log prior), visits (action -> this search's iterations), alive
        (the current survivors), choice (None before the schedule's end) and log: per phase
        ended, {"survivors": [(action, this search's visits, edge visits, reward sum of the
        root's mover)], "max_n": max_b N(b)}."""
        cdef Gumbel* g = &self.gumbel
        cdef Node* node
        cdef int i, ph
        if not g.active:
            return None
        node = &self.tree.nodes[g.root]
        act = [edge_at(&self.tree, node.first_edge + j).action for j in range(node.n_edges)]
        log_ = []
        for ph in range(min(g.phase, MAX_PHASES)):
            log_.append({"survivors": [(act[g.log_order[ph][i]], g.log_visits[ph][i], g.log_n[ph][i],
                                        g.log_reward[ph][i]) for i in range(g.log_alive[ph])],
                         "max_n": g.log_max_n[ph]})
        return {"budget": g.budget, "phases": g.phases, "k": g.m,
                "sampled": [act[g.order[i]] for i in range(g.m)] if g.phase == 0 else None,
                "g": {act[j]: g.g[j] for j in range(node.n_edges)},
                "visits": {act[j]: g.visits[j] for j in range(node.n_edges)},
                "alive": [act[g.order[i]] for i in range(g.alive)],
                "choice": act[g.chosen] if g.chosen >= 0 else None, "log": log_,
                "player": g.player}

    def priors_of(self, unsigned long long key):
        """The priors of the node with this key's edges (puct/gumbel), or None."""
        cdef int32_t idx
        cdef Node* node
        if self.tree.table == NULL or self.tree.priors == NULL:
            return None
        idx = self.tree.table[find_slot(&self.tree, key)]
        if idx == EMPTY:
            return None
        node = &self.tree.nodes[idx]
        return [self.tree.priors[node.first_edge + i] for i in range(node.n_edges)]


def puct_pick(int player, actions, visits, avail, rewards, priors, legal, double c,
              int preferred=-1, unsigned long long seed=1):
    """Test hook: the edge select_puct takes at one node whose edges have these statistics
    (actions sorted; rewards[i] the mover's reward sum; priors as stored), among the actions
    `legal` (sorted). Returns (the chosen action or None, the edges' avail after)."""
    cdef int n_edges = len(actions), n = len(legal), i, chosen
    cdef Tree t
    cdef Node node
    cdef Rng rng
    cdef int buf[LEGAL_BUF]
    if not 0 < n_edges <= LEGAL_BUF or n > LEGAL_BUF:
        raise ValueError("between 1 and LEGAL_BUF edges")
    if not 0 <= player < MAX_P:
        raise ValueError(f"the player {player} is not a seat")
    memset(&t, 0, sizeof(Tree))
    t.edge_stride = edge_bytes(MAX_P)
    t.edges = <char*>malloc(n_edges * t.edge_stride)
    t.priors = <float*>malloc(n_edges * sizeof(float))
    try:
        memset(t.edges, 0, n_edges * t.edge_stride)
        for i in range(n_edges):
            edge_at(&t, i).action = actions[i]
            edge_at(&t, i).visits = visits[i]
            edge_at(&t, i).avail = avail[i]
            edge_at(&t, i).reward[player] = rewards[i]
            t.priors[i] = priors[i]
        for i in range(n):
            buf[i] = legal[i]
        node.first_edge = 0
        node.n_edges = n_edges
        node.player = player
        node.visits = sum(visits)
        rng.state = seed
        chosen = select_puct(&t, &node, buf, n, c, &rng, preferred)
        return (edge_at(&t, chosen).action if chosen >= 0 else None,
                [edge_at(&t, i).avail for i in range(n_edges)])
    finally:
        free(t.edges)
        free(t.priors)
