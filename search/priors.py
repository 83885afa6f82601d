"""The policy priors a search uses (selection=puct or gumbel): the one place that turns the
policy_weights knob into a PolicyModel, for the tree (search/_ismcts.pyx) and the protocol's
check of the `Policy Weights` option.

"uniform" needs no file (1/n priors: the tree passes no net). Any other value is a weights
file for the learned policy head, read by search/policy.py (load_policy_model).
"""

from __future__ import annotations

from engine.constants import PLAYER_COUNTS

from .params import UNIFORM_PRIORS
from .policy import load_policy_model


def load_priors(policy_weights: str):
    """The PolicyModel of `policy_weights` ("" = the shipped file), or None for uniform priors."""
    if policy_weights == UNIFORM_PRIORS:
        return None
    return load_policy_model(policy_weights)


def priors_identity(policy_weights: str = "") -> str:
    """What `id name` shows of the priors: "uniform", a file's digest, or for the shipped
    weights ("") the digest of each player count's file, 2/3/4 players, joined by "/"."""
    if policy_weights == UNIFORM_PRIORS:
        return UNIFORM_PRIORS
    if policy_weights:
        return load_policy_model(policy_weights).digest
    return "/".join(load_policy_model("", n).digest for n in PLAYER_COUNTS)
