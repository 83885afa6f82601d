/* The value model's arithmetic kernels (search/_value.pyx calls them): the first layer summed
 * from the rows of the nonzero inputs, and the rest of the MLP (ReLU, second layer, ReLU,
 * output; or, for a vector head, the outputs of every seat). Two versions of each:
 *
 *   portable   plain C for the baseline instruction set; its summation order is the one the
 *              value model has always used (inputs in ascending index order, one product
 *              added at a time), so its results are the same bits as before the kernels.
 *   avx2+fma   AVX2 and fused multiply-add intrinsics, compiled for that target per function
 *              (__attribute__((target))) and chosen at run time (pv_avx2_supported), so a
 *              wheel built for the baseline instruction set still runs everywhere. Fused
 *              products and another summation order: results agree with the portable ones
 *              to about 1e-6 (tests/test_value_kernel.py checks 1e-5).
 *
 * The AVX2 versions exist only where the compiler is GCC-compatible (GCC >= 5 or clang) and
 * the target x86 (PV_HAVE_AVX2 below); elsewhere, or when PALAIS_NO_AVX2 is defined, only
 * the portable kernels are compiled and pv_avx2_supported() is 0.
 */
#ifndef PALAIS_VALUE_KERNEL_H
#define PALAIS_VALUE_KERNEL_H

#include <stddef.h>

#if !defined(PALAIS_NO_AVX2) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) \
    && (defined(__clang__) || __GNUC__ >= 5)
#define PV_HAVE_AVX2 1
#include <immintrin.h>
#else
#define PV_HAVE_AVX2 0
#endif

#define PV_MAX_HIDDEN 256   /* search/_value.pxd's MAX_HIDDEN */
#define PV_MAX_OUT 8        /* a vector head's outputs: a share and a score for each of 4 seats */

#if defined(__GNUC__)
#define PV_RESTRICT __restrict__
#elif defined(_MSC_VER)
#define PV_RESTRICT __restrict
#else
#define PV_RESTRICT
#endif

/* ---------------------------------------------------------------- portable */

/* h[j] += val[k] * w1[idx[k] * n1 + j] for every k in order, every j. */
static void pv_add_rows_portable(float* PV_RESTRICT h, int n1, const float* PV_RESTRICT w1,
                                 const int* idx, const float* val, int nnz)
{
    int k, j;
    for (k = 0; k < nnz; k++) {
        const float x = val[k];
        const float* row = w1 + (size_t)idx[k] * (size_t)n1;
        if (x != 0.0f)       /* never false for a built list; it keeps GCC -O3 from fusing */
            for (j = 0; j < n1; j++)  /* two rows' loops into scalar code (4x slower) */
                h[j] += x * row[j];
    }
}

/* The second layer's sums h2 (before its ReLU) from the first layer's sums h1 (ReLU applied
 * here). */
static void pv_layer2_portable(const float* h1, int n1, int n2, const float* w2,
                               const float* b2, float* h2)
{
    int i, j;
    for (j = 0; j < n2; j++)
        h2[j] = b2[j];
    for (i = 0; i < n1; i++) {
        const float x = h1[i];
        if (x > 0.0f) {                      /* ReLU: a unit at or below zero adds nothing */
            const float* row = w2 + (size_t)i * (size_t)n2;
            for (j = 0; j < n2; j++)
                h2[j] += x * row[j];
        }
    }
}

/* The output before the sigmoid, from the first layer's sums h1 (ReLU applied here). */
static float pv_tail_portable(const float* h1, int n1, int n2, const float* w2,
                              const float* b2, const float* w3, float b3)
{
    float h2[PV_MAX_HIDDEN];
    float out = b3;
    int j;
    pv_layer2_portable(h1, n1, n2, w2, b2, h2);
    for (j = 0; j < n2; j++)
        if (h2[j] > 0.0f)
            out += h2[j] * w3[j];
    return out;
}

/* A vector head's n_out outputs (n_out <= PV_MAX_OUT) from the second layer's sums h2 (ReLU
 * applied here): out[k] = b3[k] + sum over units j of ReLU(h2[j]) w3[j * n_out + k]. */
static void pv_heads_portable(const float* h2, int n2, const float* w3, const float* b3,
                              int n_out, float* out)
{
    int j, k;
    for (k = 0; k < n_out; k++)
        out[k] = b3[k];
    for (j = 0; j < n2; j++) {
        const float x = h2[j];
        if (x > 0.0f) {
            const float* row = w3 + (size_t)j * (size_t)n_out;
            for (k = 0; k < n_out; k++)
                out[k] += x * row[k];
        }
    }
}

/* ---------------------------------------------------------------- avx2+fma */
#if PV_HAVE_AVX2

static int pv_avx2_supported(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

__attribute__((target("avx2,fma")))
static void pv_add_rows_avx2(float* h, int n1, const float* w1,
                             const int* idx, const float* val, int nnz)
{
    int k, j = 0;
    for (; j + 32 <= n1; j += 32) {          /* 32 sums in four registers over every input */
        __m256 a0 = _mm256_loadu_ps(h + j), a1 = _mm256_loadu_ps(h + j + 8);
        __m256 a2 = _mm256_loadu_ps(h + j + 16), a3 = _mm256_loadu_ps(h + j + 24);
        for (k = 0; k < nnz; k++) {
            const __m256 x = _mm256_set1_ps(val[k]);
            const float* row = w1 + (size_t)idx[k] * (size_t)n1 + j;
            a0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(row), a0);
            a1 = _mm256_fmadd_ps(x, _mm256_loadu_ps(row + 8), a1);
            a2 = _mm256_fmadd_ps(x, _mm256_loadu_ps(row + 16), a2);
            a3 = _mm256_fmadd_ps(x, _mm256_loadu_ps(row + 24), a3);
        }
        _mm256_storeu_ps(h + j, a0);
        _mm256_storeu_ps(h + j + 8, a1);
        _mm256_storeu_ps(h + j + 16, a2);
        _mm256_storeu_ps(h + j + 24, a3);
    }
    for (; j + 8 <= n1; j += 8) {
        __m256 a = _mm256_loadu_ps(h + j);
        for (k = 0; k < nnz; k++)
            a = _mm256_fmadd_ps(_mm256_set1_ps(val[k]),
                                _mm256_loadu_ps(w1 + (size_t)idx[k] * (size_t)n1 + j), a);
        _mm256_storeu_ps(h + j, a);
    }
    for (; j < n1; j++)                      /* a width that is not a multiple of 8 */
        for (k = 0; k < nnz; k++)
            h[j] += val[k] * w1[(size_t)idx[k] * (size_t)n1 + j];
}

/* The second layer's sums h2 (before its ReLU), as pv_layer2_portable. */
__attribute__((target("avx2,fma")))
static void pv_layer2_avx2(const float* h1, int n1, int n2, const float* w2,
                           const float* b2, float* h2)
{
    const int n32 = n2 - n2 % 32, n8 = n2 - n2 % 8;
    int i, j;
    for (j = 0; j < n32; j += 32) {          /* 32 sums in four registers over every unit */
        __m256 a0 = _mm256_loadu_ps(b2 + j), a1 = _mm256_loadu_ps(b2 + j + 8);
        __m256 a2 = _mm256_loadu_ps(b2 + j + 16), a3 = _mm256_loadu_ps(b2 + j + 24);
        for (i = 0; i < n1; i++) {
            if (h1[i] > 0.0f) {              /* ReLU: a unit at or below zero adds nothing */
                const __m256 x = _mm256_set1_ps(h1[i]);
                const float* row = w2 + (size_t)i * (size_t)n2 + j;
                a0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(row), a0);
                a1 = _mm256_fmadd_ps(x, _mm256_loadu_ps(row + 8), a1);
                a2 = _mm256_fmadd_ps(x, _mm256_loadu_ps(row + 16), a2);
                a3 = _mm256_fmadd_ps(x, _mm256_loadu_ps(row + 24), a3);
            }
        }
        _mm256_storeu_ps(h2 + j, a0);
        _mm256_storeu_ps(h2 + j + 8, a1);
        _mm256_storeu_ps(h2 + j + 16, a2);
        _mm256_storeu_ps(h2 + j + 24, a3);
    }
    for (j = n32; j < n8; j += 8) {
        __m256 a = _mm256_loadu_ps(b2 + j);
        for (i = 0; i < n1; i++)
            if (h1[i] > 0.0f)
                a = _mm256_fmadd_ps(_mm256_set1_ps(h1[i]),
                                    _mm256_loadu_ps(w2 + (size_t)i * (size_t)n2 + j), a);
        _mm256_storeu_ps(h2 + j, a);
    }
    for (j = n8; j < n2; j++) {              /* a width that is not a multiple of 8 */
        float x = b2[j];
        for (i = 0; i < n1; i++)
            if (h1[i] > 0.0f)
                x += h1[i] * w2[(size_t)i * (size_t)n2 + j];
        h2[j] = x;
    }
}

__attribute__((target("avx2,fma")))
static float pv_tail_avx2(const float* h1, int n1, int n2, const float* w2,
                          const float* b2, const float* w3, float b3)
{
    float h2[PV_MAX_HIDDEN];
    float lanes[8];
    float out = b3;
    const int n8 = n2 - n2 % 8;
    int i, j;
    const __m256 zero = _mm256_setzero_ps();
    __m256 sum = zero;
    pv_layer2_avx2(h1, n1, n2, w2, b2, h2);
    for (j = 0; j < n8; j += 8)              /* ReLU, times w3, summed lane-wise */
        sum = _mm256_fmadd_ps(_mm256_max_ps(_mm256_loadu_ps(h2 + j), zero),
                              _mm256_loadu_ps(w3 + j), sum);
    _mm256_storeu_ps(lanes, sum);
    for (i = 0; i < 8; i++)
        out += lanes[i];
    for (j = n8; j < n2; j++)                /* a width that is not a multiple of 8 */
        if (h2[j] > 0.0f)
            out += h2[j] * w3[j];
    return out;
}

/* pv_heads_portable with every output in one register (n_out <= 8), its lanes past n_out
 * masked off. */
__attribute__((target("avx2,fma")))
static void pv_heads_avx2(const float* h2, int n2, const float* w3, const float* b3,
                          int n_out, float* out)
{
    static const int ones[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    const __m256i mask = _mm256_loadu_si256((const __m256i*)(ones + 8 - n_out));
    __m256 acc = _mm256_maskload_ps(b3, mask);
    float lanes[8];
    int j, k;
    for (j = 0; j < n2; j++)
        if (h2[j] > 0.0f)
            acc = _mm256_fmadd_ps(_mm256_set1_ps(h2[j]),
                                  _mm256_maskload_ps(w3 + (size_t)j * (size_t)n_out, mask), acc);
    _mm256_storeu_ps(lanes, acc);
    for (k = 0; k < n_out; k++)
        out[k] = lanes[k];
}

#else  /* no AVX2 kernels in this build: the portable ones stand in (never chosen) */

static int pv_avx2_supported(void) { return 0; }
#define pv_add_rows_avx2 pv_add_rows_portable
#define pv_tail_avx2 pv_tail_portable
#define pv_layer2_avx2 pv_layer2_portable
#define pv_heads_avx2 pv_heads_portable

#endif
#endif /* PALAIS_VALUE_KERNEL_H */
