# Timing hooks for bench/rollouts.py: ns per legal_actions and per apply, measured on a
# sample of real positions in tight nogil loops (Python overhead excluded). Nothing else
# uses this module; it exists so the benchmark can time the C functions themselves.

from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from time import perf_counter

from engine._state cimport GameState, State, legal_actions, apply_action, LEGAL_BUF


def time_operations(list states, list actions, int repeats):
    """(ns per legal_actions, ns per apply) over `states`, applying actions[i] to states[i].

    apply is timed on a fresh copy each time; the copy's own cost is measured apart and
    subtracted.
    """
    cdef int n = len(states), i, r
    cdef long long sink = 0
    cdef int buf[LEGAL_BUF]
    cdef GameState tmp
    cdef GameState* arr = <GameState*>malloc(n * sizeof(GameState))
    cdef int* act = <int*>malloc(n * sizeof(int))
    if arr == NULL or act == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            memcpy(&arr[i], &(<State>states[i]).st, sizeof(GameState))
            act[i] = actions[i]
        t0 = perf_counter()
        with nogil:
            for r in range(repeats):
                for i in range(n):
                    sink += legal_actions(&arr[i], buf)
        t1 = perf_counter()
        with nogil:
            for r in range(repeats):
                for i in range(n):
                    memcpy(&tmp, &arr[i], sizeof(GameState))
                    apply_action(&tmp, act[i])
                    sink += tmp.stage
        t2 = perf_counter()
        with nogil:
            for r in range(repeats):
                for i in range(n):
                    memcpy(&tmp, &arr[i], sizeof(GameState))
                    sink += tmp.stage
        t3 = perf_counter()
    finally:
        free(arr)
        free(act)
    calls = float(n) * repeats
    if sink == -1:
        print(sink)  # keeps the loops from being optimised away
    return (t1 - t0) / calls * 1e9, max(0.0, (t2 - t1) - (t3 - t2)) / calls * 1e9
