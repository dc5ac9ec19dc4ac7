// The portability header every kernel includes: plain CUDA under nvcc; under g++ (the tests) it pulls
// in the host execution layer (tests/kernels/host), which runs the same source on the CPU.
// API (kernels/README.md has the details and an example):
//   carbon::kern::launch(kernel, grid, block, dynamic_smem_bytes, stream, args...)  instead of <<<>>>
//   carbon::kern::set_max_dynamic_smem(kernel, bytes)        opt in to more than 48 KiB of dynamic smem
//   CARBON_SHARED(T, name);        a static __shared__ variable, T may be an array type: float[32]
//   CARBON_DYNAMIC_SMEM(T, name);  T* name pointing at the dynamic shared memory (16-byte aligned)
//   CARBON_KERNEL_ON_HOST          1 under the host layer, 0 under nvcc
//   CARBON_UNROLL                  #pragma unroll in nvcc's device pass, nothing elsewhere (g++ warns on it)
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace carbon::kern::detail {
// Lets CARBON_SHARED take an array type (float[32]) where a declaration needs the name in between.
template <class T>
struct type_identity {
    using type = T;
};
template <class T>
using type_identity_t = typename type_identity<T>::type;
}  // namespace carbon::kern::detail

// Only nvcc's device pass: its host pass hands _Pragma("unroll") to the host compiler, which warns.
#ifndef CARBON_UNROLL
#if defined(__CUDA_ARCH__)
#define CARBON_UNROLL _Pragma("unroll")
#define CARBON_UNROLL_PRAGMA(x) _Pragma(#x)
#define CARBON_UNROLL_BY(n) CARBON_UNROLL_PRAGMA(unroll n)
#else
#define CARBON_UNROLL
#define CARBON_UNROLL_BY(n)
#endif
#endif

#if defined(__CUDACC__)

#define CARBON_KERNEL_ON_HOST 0
#define CARBON_SHARED(T, name) __shared__ ::carbon::kern::detail::type_identity_t<T> name
#define CARBON_DYNAMIC_SMEM(T, name)                                            \
    extern __shared__ __align__(16) unsigned char carbon_dynamic_smem_##name[]; \
    T* const name = reinterpret_cast<T*>(carbon_dynamic_smem_##name)

namespace carbon::kern {

// kernel<<<grid, block, dynamic_smem_bytes, stream>>>(args...); returns the launch's error (a bad
// configuration), not the kernel's: those appear at the next synchronisation.
template <class... P, class... A>
inline cudaError_t launch(void (*kernel)(P...), dim3 grid, dim3 block, std::size_t dynamic_smem_bytes,
                          cudaStream_t stream, A&&... args) {
    static_assert(sizeof...(P) == sizeof...(A), "carbon::kern::launch: wrong number of kernel arguments");
    kernel<<<grid, block, dynamic_smem_bytes, stream>>>(std::forward<A>(args)...);
    return cudaGetLastError();
}

// Allows launches of `kernel` with up to `bytes` of dynamic shared memory (above the 48 KiB default).
template <class... P>
inline cudaError_t set_max_dynamic_smem(void (*kernel)(P...), std::size_t bytes) {
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
}

}  // namespace carbon::kern

#else  // g++: the host execution layer

#if !__has_include("host_layer.h")
#error "kernel code built without nvcc needs the host execution layer: link carbon_kernel_host_layer (tests/kernels)"
#endif
#include "host_layer.h"

#define CARBON_KERNEL_ON_HOST 1
#define CARBON_SHARED(T, name) CARBON_HOST_SHARED(::carbon::kern::detail::type_identity_t<T>, name)
#define CARBON_DYNAMIC_SMEM(T, name) CARBON_HOST_DYNAMIC_SMEM(T, name)

namespace carbon::kern {

// Runs the whole grid before returning (blocks in turn, each block's threads as fibers). Every error
// (bad configuration, divergent barrier, deadlock, ...) is thrown as carbon::host::KernelFault. On a
// deferring stream (the host device seam's, tests/gpu) the configuration is checked now and the grid
// runs, with its own copy of the arguments, when the stream's work is drained.
template <class... P, class... A>
inline cudaError_t launch(void (*kernel)(P...), dim3 grid, dim3 block, std::size_t dynamic_smem_bytes,
                          cudaStream_t stream, A&&... args) {
    static_assert(sizeof...(P) == sizeof...(A), "carbon::kern::launch: wrong number of kernel arguments");
    using Bound = ::carbon::host::detail::BoundKernel<P...>;
    ::carbon::host::detail::launch_bound(kernel, grid, block, dynamic_smem_bytes, stream,
                                         typename Bound::Params(std::forward<A>(args)...));
    return cudaSuccess;
}

template <class... P>
inline cudaError_t set_max_dynamic_smem(void (*kernel)(P...), std::size_t bytes) {
    ::carbon::host::detail::set_max_dynamic_smem(reinterpret_cast<::carbon::host::detail::KernelId>(kernel), bytes);
    return cudaSuccess;
}

}  // namespace carbon::kern

#endif
