# The floating-point mode of the search's arithmetic (search/fp_mode.h): flush-to-zero and
# denormals-are-zero set at the entry of each search run and each evaluation called from
# Python, inside the nogil region, and restored at its exit.

cdef extern from "fp_mode.h" nogil:
    ctypedef unsigned long long pfp_saved
    pfp_saved pfp_enter()
    void pfp_leave(pfp_saved old)
    int pfp_probe()
    int pfp_supported()
    const char* pfp_name()
