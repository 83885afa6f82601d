# The policy head's forward pass in C (search/_prior.pxd says what it is for).
# STUB (contract for issue 27 item 3): uniform priors only; the learned head replaces it.

from engine._state cimport GameState


cdef void policy_priors(const PolicyNet* net, const GameState* s, const int* buf, int n,
                        float* out) noexcept nogil:
    cdef int i
    for i in range(n):
        out[i] = 1.0 / n


cdef class PolicyModel:
    """Placeholder until the learned head lands: holds no weights (net.hidden 0)."""

    def __cinit__(self):
        self.net.hidden = 0
        self.net.n_action_features = 0
        self.net.w1 = NULL
        self.net.b1 = NULL
        self.net.u = NULL
        self.net.c = NULL
        self.digest = ""
        self.source = ""
