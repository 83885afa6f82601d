# The policy head in C (search/_prior.pyx): prior probabilities over a decision's legal
# actions, from the mover's observation (engine/_features.pxd) and each action's own
# features. The tree (search/_ismcts.pyx) asks for them once, when it expands a node, with no
# Python call; search/policy.py loads and checks a weights file and builds a PolicyModel.

from engine._state cimport GameState

cdef enum:
    # the rows of the action-feature table (action_features; docs/train.md lists them): a
    # weights file's u and c have exactly this many rows
    ACTION_FEATURES = 223
    # the most entries action_features writes for one action
    MAX_ACTION_ENTRIES = 12

# The weights, copied out of numpy arrays once when a PolicyModel is made. The fields are
# search/_prior.pyx's business; the tree only passes a pointer (NULL: uniform priors).
cdef struct PolicyNet:
    int hidden                # units of the state's hidden layer (0: no weights, uniform priors)
    int n_action_features     # rows of the action-feature embedding (ACTION_FEATURES)
    float* w1                 # FEATURE_SIZE x hidden, input-major
    float* b1                 # hidden
    float* u                  # n_action_features x hidden
    float* c                  # n_action_features

cdef class PolicyModel:
    cdef PolicyNet net
    cdef readonly str digest      # short sha256 of the weights file's bytes
    cdef readonly str source      # where the weights came from (a path)
    cdef readonly long long flushed   # weights below float32's normal range, read as zero

# The priors of the actions buf[:n] (legal at `s`, a full or determinized state, for its
# mover s.to_move) into out[:n]: each >= 0, summing to 1. net NULL: 1/n each.
cdef void policy_priors(const PolicyNet* net, const GameState* s, const int* buf, int n,
                        float* out) noexcept nogil

# The sparse features of `action` for s.to_move in `s` (nonzero entries only, ascending
# index) into idx/val (room for MAX_ACTION_ENTRIES); returns how many.
cdef int action_features(const GameState* s, int action, int* idx, float* val) noexcept nogil
