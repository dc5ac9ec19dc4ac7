// <immintrin.h> for the files whose functions carry x86 target attributes (AVX-512, AMX). GCC 12's
// AVX-512 headers trip -W(maybe-)uninitialized on their own _mm512_undefined_* (GCC bug 105593), so
// the warning is silenced for the header only.
#pragma once

#if defined(__x86_64__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif
