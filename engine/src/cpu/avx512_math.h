// AVX-512 helpers shared by the fp32 AVX-512 kernels (matmul's SiLU, attention's softmax): the
// target attribute their functions carry and a 16-lane exp. x86-64 only.
#pragma once

#if defined(__x86_64__)
#include "x86_intrinsics.h"

#define CARBON_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma,f16c")))
// The same with AVX-512 BF16 (vcvtne2ps2bf16, vdpbf16ps), for the bf16 paths.
#define CARBON_AVX512BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16,avx2,fma,f16c")))

namespace carbon::cpu::detail {

// exp(x) for 16 lanes: x = n ln2 + r with |r| <= ln2 / 2, a degree-7 Taylor polynomial for e^r
// (relative error under 2e-7 there), scaled by 2^n with vscalefps (which gives 0 and inf past
// the float range). x is first clamped to +-100, which keeps the reduction exact and NaN a NaN.
CARBON_AVX512 inline __m512 exp16(__m512 x) {
    x = _mm512_max_ps(_mm512_set1_ps(-100.f), _mm512_min_ps(_mm512_set1_ps(100.f), x));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);  // ln2 in two parts: exact n * hi
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.f / 5040);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f / 720));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f / 120));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f / 24));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f / 6));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f));
    return _mm512_scalef_ps(p, n);
}

}  // namespace carbon::cpu::detail

#endif
