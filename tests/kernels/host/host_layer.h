// Host execution layer: what kernels/cuda_portable.cuh includes when g++ compiles kernel source, so
// that the tests run the same CUDA C++ on the CPU. Test infrastructure only: never in a product
// binary. The design, its limits and its cost are in kernels/README.md ("The host execution layer").
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "device_math.h"
#include "half_math.h"
#include "host_runtime.h"
#include "launch.h"
#include "memory_ops.h"
#include "shared_memory.h"
#include "warp_ops.h"

// CUDA's headers leave __launch_bounds__ undefined in host mode: it only guides nvcc's register use.
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif

// In host mode __shared__ expands to nothing, which would silently make every "shared" array a
// per-thread local. Kernel source declares shared memory with CARBON_SHARED / CARBON_DYNAMIC_SMEM
// instead, and a plain __shared__ fails to compile with this name in the message.
#undef __shared__
#define __shared__ use_CARBON_SHARED_or_CARBON_DYNAMIC_SMEM_instead_of_plain___shared__
