# Rollout policies and the static evaluation, in C over engine/_state.pxd's GameState.
# The search cimports these; search/_policy.pyx explains each heuristic.

from engine._state cimport GameState, Rng

cdef enum:
    POLICY_UNIFORM = 0
    POLICY_HEURISTIC = 1

cdef int heuristic_action(const GameState* s, Rng* rng, int* buf) noexcept nogil
# The same choice among the decision's legal actions `buf[:n]`, already listed by the caller.
cdef int heuristic_choice(const GameState* s, Rng* rng, const int* buf, int n) noexcept nogil
cdef int policy_action(int policy, const GameState* s, Rng* rng, int* buf) noexcept nogil
# The static evaluations, by their index in _policy.pyx STATIC_EVALS (the `static_eval` knob).
cdef enum:
    EVAL_PLAYOUT = 0
    EVAL_V26 = 1

cdef void estimate_scores(const GameState* s, int model, double* out) noexcept nogil
cdef void evaluate(const GameState* s, int model, double temperature, double* reward, double* score) noexcept nogil
