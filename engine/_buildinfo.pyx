"""Which build of the Cython extensions is loaded: the fast one or the checked one.

setup.py builds every extension either fast (the default) or checked (PALAIS_CHECKED=1:
boundscheck, wraparound and initializedcheck on, and the C macro PALAIS_CHECKED=1 defined).

CHECKED      read from the C macro, so it says which build this module was compiled in
BOUNDSCHECK  measured: does this module's own compiled code check buffer bounds?
WRAPAROUND   measured: does it wrap negative buffer indices?

The last two come from probes, not from the macro, so a stale build (C generated with one
build's directives, compiled with the other's macro) shows up as CHECKED disagreeing with
them. This file sets no directives of its own: it gets exactly what every extension gets.
"""

cdef extern from *:
    """
    #ifndef PALAIS_CHECKED
    #define PALAIS_CHECKED 0
    #endif
    """
    int PALAIS_CHECKED


cdef object _read(int[:] view, Py_ssize_t index):
    return view[index]


# Both probes read through a view onto part of a three-element buffer, so an unchecked
# index still lands inside the buffer: [10, 20, 30].
def _probe_boundscheck():
    """True if an index one past the end of a view raises IndexError (bounds are checked)."""
    from array import array
    cdef int[:] whole = array("i", [10, 20, 30])
    try:
        _read(whole[:2], 2)   # unchecked: reads the buffer's third element
    except IndexError:
        return True
    return False


def _probe_wraparound():
    """True if index -1 means the last element of a view (negative indices wrap around)."""
    from array import array
    cdef int[:] whole = array("i", [10, 20, 30])
    try:
        return _read(whole[1:], -1) == 30   # unwrapped: reads the element before the view, 10
    except IndexError:
        return False


CHECKED = bool(PALAIS_CHECKED)
BUILD = "checked" if CHECKED else "fast"
BOUNDSCHECK = _probe_boundscheck()
WRAPAROUND = _probe_wraparound()
