"""Which static evaluation a search reads (the `static_eval` knob), set for the search's thread.

The C loop of search/_ismcts.pyx calls search/_policy.pyx estimate_scores with no room for a
choice, so the choice is a thread-local switch in _policy.pyx: a search sets it from its own
params around its work and puts the previous one back after, so searches in other threads,
and a later search with other params in this one, are not affected.
"""

from __future__ import annotations

from contextlib import contextmanager

from ._policy import use_static_eval


@contextmanager
def static_eval_of(params):
    """Within the block, this thread's static evaluation is params.static_eval."""
    previous = use_static_eval(params.static_eval)
    try:
        yield
    finally:
        use_static_eval(previous)
