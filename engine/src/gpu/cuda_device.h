// The real device seam over the CUDA runtime and cuBLASLt (built only with CARBON_HAVE_CUDA, target
// carbon_gpu_cuda). Plain C++: callers need no CUDA headers.
#pragma once

#include <memory>
#include <string>

#include "gpu/device.h"

namespace carbon::gpu {

// Empty when device `ordinal` can be used, else why not, in words a user can act on: the driver's
// own reason ("CUDA driver version is insufficient for CUDA runtime version
// (cudaErrorInsufficientDriver)"), no device, no such ordinal, or a GPU older than the kernels'
// sm_80. Never aborts: a program linked with cudart runs without a driver, and this is how it asks.
std::string cuda_unavailable_reason(int ordinal = 0);

// Opens device `ordinal`: makes it current, creates the cuBLASLt handle. Throws Error (call
// "open CUDA device") with cuda_unavailable_reason when it cannot be used.
std::unique_ptr<Device> make_cuda_device(int ordinal = 0);

}  // namespace carbon::gpu
