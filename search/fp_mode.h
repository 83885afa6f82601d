/* The floating-point mode of the search's arithmetic: flush-to-zero (FTZ) and
 * denormals-are-zero (DAZ), so that no float below the normal range (|x| < 1.18e-38 in
 * float32) can send a sum down the processor's slow path. On x86 a multiply-add that reads
 * or yields a subnormal costs about a hundred cycles instead of a few: the value weights
 * shipped before issue 36 held such values and ran the search at an eighth of its speed.
 *
 * pfp_enter() sets the mode for the calling thread and returns the mode before; pfp_leave()
 * puts that back. search/_ismcts.pyx, search/_value.pyx and search/_prior.pyx call them once
 * at the entry and the exit of each search run and of each evaluation called from Python,
 * inside the nogil region, so no Python code (numpy included) ever runs under the changed
 * mode. The mode is per thread, so other threads are untouched.
 *
 *   x86-64, and x86 with SSE   MXCSR bits FTZ (15) and DAZ (6), through _mm_getcsr/_mm_setcsr
 *                              (GCC, clang, MSVC); AVX/FMA instructions obey MXCSR too
 *   aarch64 (GCC, clang)       FPCR.FZ (bit 24), which flushes subnormal inputs and results
 *   anything else              nothing is changed (PFP_SUPPORTED 0): the weights are still
 *                              flushed when they are loaded (search/weights_file.py), but an
 *                              activation may become subnormal
 *
 * pfp_probe() reports, by what the arithmetic does rather than by reading a register, which
 * of the two the calling thread has now: bit 1 a subnormal input is read as zero, bit 2 a
 * result below the normal range is flushed to zero (tests/test_fp_mode.py).
 */
#ifndef PALAIS_FP_MODE_H
#define PALAIS_FP_MODE_H

#include <string.h>

#if defined(_MSC_VER) && !defined(__cplusplus)
#define PFP_INLINE __inline                 /* MSVC's C compiler spells it so */
#else
#define PFP_INLINE inline
#endif

#if defined(__x86_64__) || defined(_M_X64) || defined(__SSE__) || (defined(_M_IX86_FP) && _M_IX86_FP >= 1)
#include <xmmintrin.h>
#define PFP_SUPPORTED 1
#define PFP_NAME "x86 MXCSR FTZ+DAZ"
typedef unsigned long long pfp_saved;
#define PFP_MXCSR_BITS 0x8040u            /* FTZ (1 << 15) | DAZ (1 << 6) */
static PFP_INLINE pfp_saved pfp_enter(void)
{
    unsigned int old = _mm_getcsr();
    if ((old & PFP_MXCSR_BITS) != PFP_MXCSR_BITS)
        _mm_setcsr(old | PFP_MXCSR_BITS);
    return (pfp_saved)old;
}
static PFP_INLINE void pfp_leave(pfp_saved old)
{
    if ((unsigned int)old != _mm_getcsr())
        _mm_setcsr((unsigned int)old);
}

#elif defined(__aarch64__) && defined(__GNUC__)
#define PFP_SUPPORTED 1
#define PFP_NAME "aarch64 FPCR.FZ"
typedef unsigned long long pfp_saved;
#define PFP_FPCR_FZ (1ull << 24)
static PFP_INLINE pfp_saved pfp_read_fpcr(void)
{
    unsigned long long r;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(r));
    return r;
}
static PFP_INLINE void pfp_write_fpcr(pfp_saved r)
{
    __asm__ __volatile__("msr fpcr, %0" : : "r"(r));
}
static PFP_INLINE pfp_saved pfp_enter(void)
{
    pfp_saved old = pfp_read_fpcr();
    if (!(old & PFP_FPCR_FZ))
        pfp_write_fpcr(old | PFP_FPCR_FZ);
    return old;
}
static PFP_INLINE void pfp_leave(pfp_saved old)
{
    if (old != pfp_read_fpcr())
        pfp_write_fpcr(old);
}

#else
#define PFP_SUPPORTED 0
#define PFP_NAME "unchanged (no flush-to-zero control for this target)"
typedef unsigned long long pfp_saved;
static PFP_INLINE pfp_saved pfp_enter(void) { return 0; }
static PFP_INLINE void pfp_leave(pfp_saved old) { (void)old; }
#endif

static PFP_INLINE int pfp_supported(void) { return PFP_SUPPORTED; }
static PFP_INLINE const char* pfp_name(void) { return PFP_NAME; }

/* Bit 1: a subnormal input reads as zero (DAZ); bit 2: a subnormal result is flushed (FTZ).
 * The results are looked at as bits, since a comparison with zero obeys DAZ itself. */
static PFP_INLINE int pfp_probe(void)
{
    volatile float subnormal = 1e-39f, one = 1.0f, least_normal = 1.5e-38f, half = 0.5f;
    float in = subnormal * one, out = least_normal * half;
    unsigned int in_bits, out_bits;
    int mode = 0;
    memcpy(&in_bits, &in, sizeof in_bits);
    memcpy(&out_bits, &out, sizeof out_bits);
    if ((in_bits & 0x7fffffffu) == 0)
        mode |= 1;
    if ((out_bits & 0x7fffffffu) == 0)
        mode |= 2;
    return mode;
}

#endif /* PALAIS_FP_MODE_H */
