// Which instruction sets the CPU backend's matmul uses, chosen at run time from what this CPU and
// its operating system support, so one binary runs everywhere and uses the best it finds.
//
//   portable     plain C++; fp32 activations
//   avx2         AVX2 + FMA (+F16C); fp32 activations, 8-lane accumulators
//   avx512       AVX-512 F/BW; fp32 activations, 16-lane accumulators
//   avx512-bf16  AVX-512 BF16 pair products (vdpbf16ps): activations rounded to bf16 at each matmul
//                input, products summed in fp32, pair by pair; bf16 weights only
//   amx          AMX-BF16 tiles (tdpbf16ps), the same numbers class as avx512-bf16; bf16 weights;
//                attention too on the tiles (bf16 scores and weighted sums, fp32 softmax)
//
// Every path is batch-invariant on its own (a row's result does not depend on the other rows of
// the call), which identity-verified speculative decoding relies on; two paths give different
// roundings of the same sums. The bf16 paths apply only to bf16 weight matrices: a path that does
// not apply to a matrix's dtype falls back to the best fp32-activation path for it.
#pragma once

#include <string>
#include <vector>

#include "carbon/support/common.h"

namespace carbon::cpu {

enum class Isa { Portable, Avx2, Avx512, Avx512Bf16, Amx };

const char* isa_name(Isa isa);

// The CPU flags a path needs, as /proc/cpuinfo names them (for skip messages and errors).
const char* isa_required_flags(Isa isa);

// True when this CPU and operating system can run the path (for AMX, after the kernel granted
// this process the tile state: arch_prctl(ARCH_REQ_XCOMP_PERM)).
bool isa_supported(Isa isa);

// AVX-512 (as the avx512 path needs it) with VNNI (vpdpbusd): the int8 weights' kernel.
bool cpu_has_avx512_vnni();

// AMX-INT8 tiles (tdpbssd) with AVX-512, the OS granting tile state: the int8 weights' prefill kernel.
bool cpu_has_amx_int8();

// Every path.
std::vector<Isa> all_isas();

// The path "auto" takes: amx, else avx512-bf16, else best_fp32_isa().
Isa best_isa();

// The fp32-activation path "auto" and "fp32" take: avx2 (faster at prefill than avx512 where
// both were measured; avx512 is chosen only by name), else portable.
Isa best_fp32_isa();

// The path for a request: "" or "auto" takes CARBON_CPU_KERNELS from the environment when set,
// else the best supported path; "fp32" the best path with fp32 activations (the numbers closest to
// transformers in float32); a name takes that path. Throws Error naming the path, the flags it
// needs and this CPU's when the CPU cannot run it, or listing the names when the name is unknown.
Isa choose_isa(const std::string& request);

// The path a matmul over weights of this dtype takes under `isa` (bf16 paths fall back to
// best_fp32_isa() for f32/f16 weights).
Isa isa_for_dtype(Isa isa, DType weights);

// Whether the path rounds matmul inputs to bf16.
inline bool isa_rounds_activations(Isa isa) { return isa == Isa::Avx512Bf16 || isa == Isa::Amx; }

// Whether the path's CPU has AVX-512 (so the elementwise kernels may use it too).
inline bool isa_has_avx512(Isa isa) { return isa == Isa::Avx512 || isa_rounds_activations(isa); }

// The relevant flags this CPU has, space-separated (recorded with benchmark figures).
std::string cpu_flags_summary();

}  // namespace carbon::cpu
