# Rollout policies and the static evaluation used by every search.
#
# Uniformly random play is a poor model of Palais Royal: it drains STAIRS and PARADE until a
# player has every servant on the GATE and stalls to the round cap. The heuristic policy
# keeps a working economy with cheap rules (no search, no allocation, a few hundred ns a
# decision):
#   - setup: place where servants work (OFFICE, MINT, KING, MADAME, STAIRS, PARADE), by weight;
#   - step 1: put the most allowed on the GATE (usually);
#   - moves: move a servant where its marginal worth rises most (each room's worth falls
#     with the servants already there), never off a room into a worse one; stop when no move
#     gains, or now and then at random;
#   - bonuses: always take; recruitment: the affordable tile with the most points (plus a
#     bonus for a privilege), never "end" while one is affordable;
#   - cards: play those that only help (GOLD, HONOUR, the step cards in their window,
#     FOOTMAN while the general supply lasts), INTRIGUE when a tie is at stake;
#   - source rooms: take from the room where a servant is worth least.
# The evaluation turns a position into expected final scores and a reward vector.

from engine._state cimport (
    GameState, State, Rng, rng_below, rng_next, legal_actions, apply_action, final_scores, random_action,
    LEGAL_BUF, N_R, N_C, MAX_P,
    GATE, PARADE, STAIRS, MINT, KING, MADAME, OFFICE, BACKDOOR, CARDINAL,
    C_GOLD, C_MOVES, C_GUARDS, C_KINGSEAL, C_MADAMESEAL, C_LETTER, C_INTRIGUE, C_FOOTMAN, C_HONOUR,
    P_NONE, P_INCOME, P_SUPPLY, P_FAVOUR, N_PRIV,
    A_ROOM, A_GATE, A_MOVE, A_RECRUIT, A_PLAY, A_TAKE, A_CONTINUE, A_END, A_DECLINE,
    S_SETUP, S_STEP1, S_SOURCE, S_MOVES, S_KING_BONUS, S_MADAME_BONUS, S_RECRUIT, S_DRAW,
    S_WINDOW1, S_WINDOW2, S_WINDOW3, S_WINDOW4, S_WINDOW5, S_GAME_OVER,
)
from libc.math cimport exp

from engine.rng import Rng as SeededRng     # the Python generator (Rng above is its C state)

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil

# Worth of the first servant in each room, and how much each further one loses (x10).
cdef int ROOM_BASE[9]
cdef int ROOM_DECAY[9]
ROOM_BASE[:] = [0, 30, 32, 26, 26, 26, 34, 14, 12]
ROOM_DECAY[:] = [0, 6, 6, 7, 8, 8, 10, 8, 8]
cdef int SETUP_WEIGHT[9]
SETUP_WEIGHT[:] = [0, 2, 2, 3, 2, 2, 3, 1, 1]


cdef inline int worth(int room, int count) noexcept nogil:
    """Worth (x10) of one more servant in `room` that already holds `count` of the seat's."""
    cdef int v = ROOM_BASE[room] - ROOM_DECAY[room] * count
    return v if v > 0 else 0


cdef int choose_move(const GameState* s, Rng* rng, const int* buf, int n) noexcept nogil:
    cdef int p = s.to_move, i, a, b, gain, best_gain = 0, best = A_END, ties = 0
    cdef int arrive[N_R]        # worth of one more servant in each room, once per decision
    cdef int leave[N_R]         # worth of the last servant of each room (rooms left hold one)
    if rng_below(rng, 16) == 0:
        return buf[rng_below(rng, n)]
    for a in range(N_R):
        arrive[a] = worth(a, s.rooms[p][a])
        leave[a] = worth(a, s.rooms[p][a] - 1)
    for i in range(n):
        if buf[i] == A_END:
            continue
        a = (buf[i] - A_MOVE) // N_R
        b = (buf[i] - A_MOVE) % N_R
        gain = arrive[b] - leave[a]
        if gain > best_gain:
            best_gain = gain
            best = buf[i]
            ties = 1
        elif gain == best_gain and gain > 0:
            ties += 1
            if rng_below(rng, ties) == 0:
                best = buf[i]
    return best


cdef int choose_recruit(const GameState* s, const int* buf, int n) noexcept nogil:
    cdef int i, t, value, best_value = -1, best = A_END
    for i in range(n):
        if buf[i] == A_END:
            continue
        t = s.tile_at[buf[i] - A_RECRUIT]
        value = 10 * s.rules.tile_vp[t]
        if s.rules.tile_priv[t] == P_INCOME:
            value += 15 * s.rules.tile_amount[t]
        elif s.rules.tile_priv[t] == P_SUPPLY:
            value += 5 * s.rules.tile_amount[t]
        elif s.rules.tile_priv[t] != P_NONE:
            value += 20
        if value > best_value:
            best_value = value
            best = buf[i]
    return best


cdef int tie_at_stake(const GameState* s) noexcept nogil:
    """1 if the seat to move is tied for the most servants in a room with a bonus."""
    cdef int p = s.to_move, q, r, own, best
    for r in range(1, 6):          # PARADE, STAIRS, MINT, KING, MADAME
        own = s.rooms[p][r]
        if own == 0:
            continue
        best = 0
        for q in range(s.n_players):
            if q != p and s.rooms[q][r] > best:
                best = s.rooms[q][r]
        if best == own:
            return 1
    return 0


cdef int choose_card(const GameState* s, const int* buf, int n) noexcept nogil:
    cdef int i, c, p = s.to_move
    for i in range(n):
        if buf[i] == A_CONTINUE:
            continue
        c = buf[i] - A_PLAY
        if c == C_INTRIGUE:
            if s.stage == S_WINDOW1 and tie_at_stake(s):
                return buf[i]
        elif c == C_FOOTMAN:
            if s.supply[p] > 0:
                return buf[i]
        else:
            return buf[i]
    return A_CONTINUE


cdef int choose_source(const GameState* s, const int* buf, int n) noexcept nogil:
    cdef int i, r, p = s.to_move, w, best_w = 1 << 30, best = buf[0]
    for i in range(n):
        r = buf[i] - A_ROOM
        w = worth(r, s.rooms[p][r] - 1)
        if w < best_w:
            best_w = w
            best = buf[i]
    return best


cdef int heuristic_action(const GameState* s, Rng* rng, int* buf) noexcept nogil:
    if s.stage == S_DRAW:
        return random_action(s, rng, buf)
    return heuristic_choice(s, rng, buf, legal_actions(s, buf))


cdef int heuristic_choice(const GameState* s, Rng* rng, const int* buf, int n) noexcept nogil:
    cdef int st = s.stage, i, total, r
    if n == 1:
        return buf[0]
    if st == S_SETUP:
        total = 0
        for i in range(n):
            total += SETUP_WEIGHT[buf[i] - A_ROOM]
        r = rng_below(rng, total)
        for i in range(n):
            r -= SETUP_WEIGHT[buf[i] - A_ROOM]
            if r < 0:
                return buf[i]
        return buf[n - 1]
    if st == S_STEP1:
        if rng_below(rng, 5) == 0:
            return buf[rng_below(rng, n)]
        return buf[n - 1]
    if st == S_MOVES:
        return choose_move(s, rng, buf, n)
    if st == S_KING_BONUS or st == S_MADAME_BONUS:
        return A_TAKE
    if st == S_RECRUIT:
        return choose_recruit(s, buf, n)
    if st == S_SOURCE:
        return choose_source(s, buf, n)
    if st >= S_WINDOW1 and (st == S_WINDOW1 or st == S_WINDOW2 or st == S_WINDOW3
                            or st == S_WINDOW4 or st == S_WINDOW5):
        return choose_card(s, buf, n)
    return buf[rng_below(rng, n)]


cdef int policy_action(int policy, const GameState* s, Rng* rng, int* buf) noexcept nogil:
    if policy == POLICY_HEURISTIC:
        return heuristic_action(s, rng, buf)
    return random_action(s, rng, buf)


# The static evaluations estimate_scores computes, in the order of the EVAL_* codes of
# _policy.pxd: playout (weights measured against heuristic playouts; the default), v26 (the
# hand-set weights before issue 27's item 4). A search passes its own code (its Params), so
# searches in other threads, or with other params, never see each other's choice.
STATIC_EVALS = ("playout", "v26")


def static_eval_code(str name):
    """The EVAL_* code of `name` (one of STATIC_EVALS); ValueError for an unknown name."""
    return STATIC_EVALS.index(name)


# The v26 evaluation: the score if the game ended now, plus what the seat should
# still earn (gold and seals turn into tiles, roughly 1 VP per 2.5 gold; a servant in a
# working room is worth a little), scaled by how much of the game is left.
cdef void estimate_v26(const GameState* s, double* out) noexcept nogil:
    cdef int now[MAX_P]
    cdef int p, sq, tiles = 0
    cdef double left, economy
    final_scores(s, now)
    tiles = __builtin_popcountll(s.park_mask)     # the park's tiles (park_mask caches them)
    left = (tiles - s.rules.end_trigger_tiles) / 24.0
    if left < 0.0:
        left = 0.0
    for p in range(s.n_players):
        economy = (0.4 * s.gold[p] + 1.2 * s.rooms[p][OFFICE] + 0.8 * (s.rooms[p][KING] + s.rooms[p][MADAME])
                   + 0.6 * (s.rooms[p][STAIRS] + s.rooms[p][PARADE] + s.rooms[p][MINT]))
        out[p] = now[p] + economy * (0.3 + left)


# The playout evaluation. Why the v26 one was replaced (bench/recruit_credit.py, 4 players,
# positions of games of the v26 search): it valued a gold piece at a third to two thirds of a
# servant on STAIRS, in KING, MADAME or OFFICE, where full heuristic playouts from the same
# positions, with one gold piece or one servant added, measure a servant there at 5-12 gold.
# So it paid for gold piled up, and counted a recruit (gold and seals turned into a tile) as
# hardly a gain or as a large one by accident: its credit for a recruit tracked the recruit's measured worth
# (recruiting now against not this turn) at a correlation of 0.24, 6.1 VP off on average. It
# also took park majorities at their face value while most of the park is still to be filled
# (a border tile's servant gained 8 VP that the end rarely keeps), and gave a noble's
# privilege nothing.
# Here each unit of the economy is worth what the playouts measured it to add to the seat's
# final score (interpolated between the game's start and its end by the share of tiles left):
# gold; a servant in each room (on top of what any servant in the castle or the play area is
# worth); a permanent privilege as the servant in the room it stands in for (INCOME(g) as g in
# the MINT, FAVOUR as 2 on the CARDINAL). In the last round a seat's economy counts only while
# its last turn is still to be played, at the last round's (smaller) weights. A seat's park
# points count in proportion to how full the park will be: shrunk towards the seats' mean by
# 0.7 x the share of tiles left (measured: what the park scores at the end regresses on what
# it scores now with slope 0.34 early, 0.97 in the last round).
# Measured on 257 recruit decisions: credit against worth off by 3.9 VP on average, correlated
# 0.53; seats' differences in final score (mean of playouts) correlated 0.86 against 0.77.
# The weights are the measured ones rounded, in three regimes (whole game left, no tile left
# above the trigger, last round), except: PARADE and the GATE get 0 (the playouts measured a
# servant on PARADE below one in the play area early, the rollout policy's own way of emptying
# its play area onto the GATE, which a search should not learn to avoid); KING and MADAME
# share one weight (measured 1.4-2.1 and 1.2-2.1 VP).
# Rooms in their index order: GATE PARADE STAIRS MINT KING MADAME OFFICE BACKDOOR CARDINAL.
cdef double ROOM_EARLY[9]     # a servant there, rather than in the play area, with the whole game left
cdef double ROOM_MID[9]       # ... with no tile left above the end trigger (the last rounds)
cdef double ROOM_LAST[9]      # ... in the last round, the seat's last turn to come
ROOM_EARLY[:] = [0.0, 0.0, 2.8, 1.5, 2.0, 2.0, 3.0, 2.1, 1.3]
ROOM_MID[:] = [0.0, 0.0, 2.5, 0.5, 1.8, 1.8, 2.2, 0.8, 0.7]
ROOM_LAST[:] = [0.0, 0.0, 1.1, 0.0, 1.0, 1.0, 1.0, 0.2, 0.2]
cdef double SERVANT_EARLY = 1.8, SERVANT_MID = 0.2     # any servant in the castle or the play area
cdef double GOLD_EARLY = 0.4, GOLD_MID = 0.2, GOLD_LAST = 0.19
cdef double PARK_SHRINK = 0.7
# The room each permanent privilege stands in for (-1: none), by privilege index.
cdef int PRIV_ROOM[N_PRIV]
PRIV_ROOM[:] = [-1, MINT, -1, STAIRS, PARADE, KING, MADAME, OFFICE, BACKDOOR, CARDINAL]


cdef void estimate_playout(const GameState* s, double* out) noexcept nogil:
    cdef int now[MAX_P]
    cdef double park[MAX_P]
    cdef double eq[N_R]
    cdef int p, r, t, sq, tiles = 0, n = s.n_players, held
    cdef double left, mean_park = 0.0, economy, w, servant, gold
    final_scores(s, now)
    tiles = __builtin_popcountll(s.park_mask)     # the park's tiles (park_mask caches them)
    left = (tiles - s.rules.end_trigger_tiles) / 24.0
    left = 0.0 if left < 0.0 else (1.0 if left > 1.0 else left)
    for p in range(n):          # the park's part of the score now: the rest are tiles and cards
        held = s.rules.honour_vp * s.honours[p] + (s.hand_size[p] if s.hand_size[p] < s.rules.hand_vp_cap
                                                   else s.rules.hand_vp_cap)
        for t in range(s.rules.n_tiles):
            if s.owner[t] == p:
                held += s.rules.tile_vp[t]
        park[p] = now[p] - held
        mean_park += park[p] / n
    for p in range(n):
        out[p] = now[p] - PARK_SHRINK * left * (park[p] - mean_park)
        if s.stage == S_GAME_OVER or (s.last_round and p < s.to_move):
            continue            # no turn left: gold and servants score nothing more
        for r in range(N_R):
            eq[r] = s.rooms[p][r]
        for t in range(1, N_PRIV):
            if PRIV_ROOM[t] >= 0:
                eq[PRIV_ROOM[t]] += (2 * s.priv[p][t]) if t == P_FAVOUR else s.priv[p][t]
        economy = 0.0
        if s.last_round:
            for r in range(N_R):
                economy += ROOM_LAST[r] * eq[r]
            economy += GOLD_LAST * s.gold[p]
        else:
            servant = s.area[p]
            for r in range(N_R):
                w = ROOM_MID[r] + (ROOM_EARLY[r] - ROOM_MID[r]) * left
                economy += w * eq[r]
                servant += s.rooms[p][r]
            economy += (SERVANT_MID + (SERVANT_EARLY - SERVANT_MID) * left) * servant
            economy += (GOLD_MID + (GOLD_EARLY - GOLD_MID) * left) * s.gold[p]
        out[p] += economy


# Expected final scores from here, by the evaluation `model` (an EVAL_* code).
cdef void estimate_scores(const GameState* s, int model, double* out) noexcept nogil:
    if model == EVAL_V26:
        estimate_v26(s, out)
    else:
        estimate_playout(s, out)


# Reward vector from estimated scores: a softmax of the scores over `temperature` (VP), so a
# clear lead approaches 1 and equal scores share evenly.
cdef void evaluate(const GameState* s, int model, double temperature, double* reward, double* score) noexcept nogil:
    cdef int p, n = s.n_players
    cdef double best, total = 0.0
    estimate_scores(s, model, score)
    best = score[0]
    for p in range(1, n):
        if score[p] > best:
            best = score[p]
    for p in range(n):
        reward[p] = exp((score[p] - best) / temperature)
        total += reward[p]
    for p in range(n):
        reward[p] /= total


def policy_playout(state, policies, rng, int until_round=0):
    """Play `state` (a State) in place, seat q following policies[q] ("uniform" or
    "heuristic"), to the end, or until round `until_round` begins (if > 0); `rng` is an
    engine.rng.Rng. Returns the actions applied."""

    cdef int kinds[MAX_P]
    cdef int buf[LEGAL_BUF]
    cdef Rng r
    cdef int steps = 0, q
    cdef GameState* s = &(<State>state).st
    for q in range(s.n_players):
        kinds[q] = POLICY_HEURISTIC if policies[q] == "heuristic" else POLICY_UNIFORM
    r.state = rng.state
    with nogil:
        while s.stage != S_GAME_OVER and not (until_round > 0 and s.round >= until_round):
            apply_action(s, policy_action(kinds[s.to_move], s, &r, buf))
            steps += 1
    rng.state = r.state
    return steps


def estimated_scores(state, str model="playout"):
    """The static evaluation's expected final score per seat for a State, by `model`
    (one of STATIC_EVALS)."""
    cdef double out[MAX_P]
    cdef int code = static_eval_code(model)
    cdef GameState* s = &(<State>state).st
    estimate_scores(s, code, out)
    return [out[p] for p in range(s.n_players)]


def mean_playout_scores(state, int playouts, int seed):
    """Each seat's mean final score over `playouts` heuristic playouts from `state` (left
    as it is), the k-th under Rng(7919 k + seed): what the bench probes measure a change by."""
    total = [0.0] * state.n_players
    for k in range(playouts):
        probe = state.copy()
        policy_playout(probe, ["heuristic"] * probe.n_players, SeededRng(7919 * k + seed))
        for p, score in enumerate(probe.scores()):
            total[p] += score
    return [t / playouts for t in total]


def finish_turn(state, rng):
    """Play the heuristic policy in place until the seat to move changes or the game ends
    (chance events follow the pile, or the unknown pool in a view). Returns actions applied."""
    cdef int buf[LEGAL_BUF]
    cdef Rng r
    cdef int steps = 0, seat
    cdef GameState* s = &(<State>state).st
    seat = s.to_move
    r.state = rng.state
    with nogil:
        while s.stage != S_GAME_OVER and s.to_move == seat:
            apply_action(s, heuristic_action(s, &r, buf))
            steps += 1
    rng.state = r.state
    return steps
