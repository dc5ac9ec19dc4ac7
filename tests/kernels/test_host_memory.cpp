// Host layer tests, memory: atomics of every CUDA type under contention (and a fenced spin lock across
// threads and blocks), static shared memory per block, dynamic shared memory junk-filled per block,
// the launch and shared-memory limits reported with the kernel named, cache-hinted loads/stores.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "check.h"
#include "cuda_portable.cuh"

using carbon::kern::launch;

struct AtomicCounters {
    int i = 0;
    unsigned u = 0;
    unsigned long long ull = 0;
    float f = 0;
    double d = 0;
    __nv_bfloat16 bf = __float2bfloat16(0.0f);
    __nv_bfloat162 bf2 = __floats2bfloat162_rn(0.0f, 0.0f);
    __half h = __float2half(0.0f);
    __half2 h2 = __floats2half2_rn(0.0f, 0.0f);
    int sub = 100000;
    int min_i = 0, max_i = 0;
    unsigned min_u = ~0u, max_u = 0;
    long long min_ll = 0, max_ll = 0;
    unsigned long long min_ull = ~0ull, max_ull = 0;
    unsigned and_u = ~0u, or_u = 0, xor_u = 0;
    int cas_count = 0;
    unsigned short cas_short = 0;
    unsigned exch = 0;
    unsigned long long exch_sum = 0;
};

__global__ void memory_atomics_kernel(AtomicCounters* c) {
    const int g = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    atomicAdd(&c->i, 1);
    atomicAdd(&c->u, 2u);
    atomicAdd(&c->ull, 1ull << 33);
    atomicAdd(&c->f, 1.0f);
    atomicAdd(&c->d, 0.5);
    atomicSub(&c->sub, 3);
    atomicMin(&c->min_i, 50 - g);
    atomicMax(&c->max_i, g - 50);
    atomicMin(&c->min_u, static_cast<unsigned>(g + 7));
    atomicMax(&c->max_u, static_cast<unsigned>(g * 3));
    atomicMin(&c->min_ll, -(static_cast<long long>(g) << 40));
    atomicMax(&c->max_ll, static_cast<long long>(g) << 40);
    atomicMin(&c->min_ull, static_cast<unsigned long long>(g + 11) << 36);
    atomicMax(&c->max_ull, static_cast<unsigned long long>(g) << 36);
    atomicAnd(&c->and_u, ~(1u << (g % 32)) | (g % 2 == 0 ? 0u : ~0u));
    atomicOr(&c->or_u, 1u << (g % 17));
    atomicXor(&c->xor_u, static_cast<unsigned>(g));
    // Increment through compare-and-swap loops, as code without a native atomic does. The first guess
    // is a constant: a plain read of the counter would race with the other threads' CAS (TSan says so).
    int old = 0, assumed;
    do {
        assumed = old;
        old = atomicCAS(&c->cas_count, assumed, assumed + 1);
    } while (old != assumed);
    unsigned short s_old = 0, s_assumed;
    do {
        s_assumed = s_old;
        s_old = atomicCAS(&c->cas_short, s_assumed, static_cast<unsigned short>(s_assumed + 1));
    } while (s_old != s_assumed);
    atomicAdd(&c->exch_sum, static_cast<unsigned long long>(atomicExch(&c->exch, static_cast<unsigned>(g + 1))));
    if (g < 64) {  // exact in bf16/half up to 256
        atomicAdd(&c->bf, __float2bfloat16(1.0f));
        atomicAdd(&c->bf2, __floats2bfloat162_rn(1.0f, 2.0f));
        atomicAdd(&c->h, __float2half(1.0f));
        atomicAdd(&c->h2, __floats2half2_rn(1.0f, 2.0f));
    }
}

TEST(atomics_of_every_type_under_contention) {
    const int blocks = 8, threads = 256, n = blocks * threads;
    AtomicCounters c;
    launch(memory_atomics_kernel, dim3(blocks), dim3(threads), 0, nullptr, &c);
    CHECK_EQ(c.i, n);
    CHECK_EQ(c.u, 2u * n);
    CHECK_EQ(c.ull, static_cast<unsigned long long>(n) << 33);
    CHECK_EQ(c.f, static_cast<float>(n));
    CHECK_EQ(c.d, 0.5 * n);
    CHECK_EQ(c.sub, 100000 - 3 * n);
    CHECK_EQ(c.min_i, 50 - (n - 1));
    CHECK_EQ(c.max_i, n - 1 - 50);
    CHECK_EQ(c.min_u, 7u);
    CHECK_EQ(c.max_u, 3u * (n - 1));
    CHECK_EQ(c.min_ll, -(static_cast<long long>(n - 1) << 40));
    CHECK_EQ(c.max_ll, static_cast<long long>(n - 1) << 40);
    CHECK_EQ(c.min_ull, 11ull << 36);
    CHECK_EQ(c.max_ull, static_cast<unsigned long long>(n - 1) << 36);
    CHECK_EQ(c.and_u, 0xAAAAAAAAu);  // even g clear their (even) bit, odd g keep everything
    CHECK_EQ(c.or_u, (1u << 17) - 1);
    CHECK_EQ(c.xor_u, 0u);  // 0 ^ 1 ^ ... ^ 2047
    CHECK_EQ(c.cas_count, n);
    CHECK_EQ(static_cast<int>(c.cas_short), n);
    // Every value written by atomicExch but the last was returned to exactly one thread.
    CHECK_EQ(c.exch_sum + c.exch, static_cast<unsigned long long>(n) * (n + 1) / 2);
    CHECK_EQ(__bfloat162float(c.bf), 64.0f);
    CHECK_EQ(__low2float(c.bf2), 64.0f);
    CHECK_EQ(__high2float(c.bf2), 128.0f);
    CHECK_EQ(__half2float(c.h), 64.0f);
    CHECK_EQ(__low2float(c.h2), 64.0f);
    CHECK_EQ(__high2float(c.h2), 128.0f);
}

// A global spin lock (atomicCAS to take, __threadfence + atomicExch to give back) around plain
// read-modify-writes: every thread of every block must get the lock in turn without hanging.
__global__ void memory_spin_lock_kernel(int* lock, int* counter, int rounds) {
    for (int r = 0; r < rounds; ++r) {
        while (atomicCAS(lock, 0, 1) != 0) __nanosleep(100);
        __threadfence();
        *counter = *counter + 1;
        __threadfence();
        atomicExch(lock, 0);
    }
}

TEST(a_fenced_spin_lock_across_threads_and_blocks) {
    int lock = 0, counter = 0;
    launch(memory_spin_lock_kernel, dim3(4), dim3(64), 0, nullptr, &lock, &counter, 3);
    CHECK_EQ(counter, 4 * 64 * 3);
    CHECK_EQ(lock, 0);
}

// Thread 0 reads the block's static shared memory before anyone writes it, then every thread sees
// what thread 0 wrote: one copy per block, junk at the start of every block (not the last block's).
template <int kTag>
__global__ void memory_static_smem_kernel(int* first_read, int* seen, float* float_read) {
    CARBON_SHARED(int[4], values);
    CARBON_SHARED(float, scalar);
    static_assert(sizeof(values) == 4 * sizeof(int));
    if (threadIdx.x == 0) {
        first_read[blockIdx.x] = values[3];
        float_read[blockIdx.x] = scalar;
        values[3] = static_cast<int>(blockIdx.x) * 100 + kTag;
        scalar = 1.5f;
    }
    __syncthreads();
    seen[blockIdx.x * blockDim.x + threadIdx.x] = values[3];
}

TEST(static_shared_memory_is_per_block_and_junk_until_written) {
    const int blocks = 3, threads = 40;
    std::vector<int> first(blocks), seen(blocks * threads), seen2(blocks * threads);
    std::vector<float> fl(blocks);
    launch(memory_static_smem_kernel<1>, dim3(blocks), dim3(threads), 0, nullptr, first.data(), seen.data(), fl.data());
    for (int b = 0; b < blocks; ++b) {
        CHECK_EQ(first[b], -1);  // 0xFFFFFFFF
        CHECK(std::isnan(fl[b]));
        for (int t = 0; t < threads; ++t) CHECK_EQ(seen[b * threads + t], b * 100 + 1);
    }
    // Another instantiation has its own variables.
    launch(memory_static_smem_kernel<2>, dim3(blocks), dim3(threads), 0, nullptr, first.data(), seen2.data(),
           fl.data());
    CHECK_EQ(first[1], -1);
    CHECK_EQ(seen2[2 * threads + 5], 202);
}

// Reads the dynamic shared memory before writing it, then exchanges values through it.
__global__ void memory_dynamic_smem_kernel(int* before, float* before_f, int* after) {
    CARBON_DYNAMIC_SMEM(int, words);
    CARBON_DYNAMIC_SMEM(float, floats);  // the same memory, seen as floats
    const unsigned t = threadIdx.x, n = blockDim.x;
    before[blockIdx.x * n + t] = words[t];
    before_f[blockIdx.x * n + t] = floats[n + t];
    __syncthreads();
    words[t] = static_cast<int>(t + 1000 * blockIdx.x);
    __syncthreads();
    after[blockIdx.x * n + t] = words[n - 1 - t];
}

TEST(dynamic_shared_memory_is_junk_filled_for_every_block) {
    const unsigned blocks = 2, n = 64;
    std::vector<int> before(blocks * n), after(blocks * n);
    std::vector<float> before_f(blocks * n);
    launch(memory_dynamic_smem_kernel, dim3(blocks), dim3(n), 2 * n * sizeof(float), nullptr, before.data(),
           before_f.data(), after.data());
    for (unsigned b = 0; b < blocks; ++b)
        for (unsigned t = 0; t < n; ++t) {
            CHECK_EQ(before[b * n + t], -1);  // block 1 does not see block 0's writes either
            CHECK(std::isnan(before_f[b * n + t]));
            CHECK_EQ(after[b * n + t], static_cast<int>(n - 1 - t + 1000 * b));
        }
}

__global__ void memory_empty_kernel() {}
__global__ void memory_dynamic_only_kernel(int* out) {
    CARBON_DYNAMIC_SMEM(unsigned char, bytes);
    bytes[0] = 1;
    out[0] = bytes[0];
}
__global__ void memory_big_static_kernel(int* out) {
    CARBON_SHARED(char[49 * 1024], big);
    big[0] = 1;
    out[0] = big[0];
}
__global__ void memory_static_plus_dynamic_kernel(int* out) {
    CARBON_SHARED(char[16 * 1024], fixed);
    fixed[0] = 1;
    out[0] = fixed[0];
}

TEST(launch_limits_are_reported) {
    using carbon::host::KernelFault;
    CHECK_THROWS_WITH(launch(memory_empty_kernel, dim3(1), dim3(512, 3), 0, nullptr), "memory_empty_kernel()",
                      "1536 threads per block; the limit is 1024", "(cudaErrorInvalidConfiguration)");
    CHECK_THROWS_WITH(launch(memory_empty_kernel, dim3(1), dim3(32, 32, 2), 0, nullptr), "2048 threads per block");
    CHECK_THROWS_WITH(launch(memory_empty_kernel, dim3(1), dim3(1, 1, 65), 0, nullptr), "at most (1024,1024,64)");
    CHECK_THROWS_WITH(launch(memory_empty_kernel, dim3(1), dim3(2048, 1, 1), 0, nullptr), "at most (1024,1024,64)");
    CHECK_THROWS_WITH(launch(memory_empty_kernel, dim3(0), dim3(32), 0, nullptr), "grid (0,1,1)", "at least 1");
    CHECK_THROWS_WITH(launch(memory_empty_kernel, dim3(1), dim3(0), 0, nullptr), "at least 1");
    CHECK_THROWS_WITH(launch(memory_empty_kernel, dim3(1, 65536), dim3(32), 0, nullptr),
                      "at most (2147483647,65535,65535)");
}

TEST(shared_memory_limits_and_opt_in) {
    int out = 0;
    const std::size_t kib = 1024;
    launch(memory_dynamic_only_kernel, dim3(1), dim3(1), 48 * kib, nullptr, &out);
    CHECK_EQ(out, 1);
    CHECK_THROWS_WITH(launch(memory_dynamic_only_kernel, dim3(1), dim3(1), 48 * kib + 1, nullptr, &out),
                      "memory_dynamic_only_kernel(int*)", "49153 bytes of dynamic shared memory exceed",
                      "limit of 49152 bytes (the default without opt-in");
    CHECK_THROWS_WITH(carbon::kern::set_max_dynamic_smem(memory_dynamic_only_kernel, 227 * kib + 1),
                      "exceed the device's opt-in maximum of 232448 bytes");
    carbon::kern::set_max_dynamic_smem(memory_dynamic_only_kernel, 100 * kib);
    out = 0;
    launch(memory_dynamic_only_kernel, dim3(1), dim3(1), 100 * kib, nullptr, &out);
    CHECK_EQ(out, 1);
    CHECK_THROWS_WITH(launch(memory_dynamic_only_kernel, dim3(1), dim3(1), 100 * kib + 1, nullptr, &out),
                      "limit of 102400 bytes (set by set_max_dynamic_smem)");
    // A smaller GPU (sm_86: 99 KiB per block).
    const carbon::host::DeviceLimits saved = carbon::host::device_limits();
    carbon::host::set_device_limits({48 * kib, 99 * kib, 48 * kib});
    CHECK_THROWS_WITH(carbon::kern::set_max_dynamic_smem(memory_dynamic_only_kernel, 100 * kib),
                      "opt-in maximum of 101376 bytes");
    carbon::host::set_device_limits(saved);
    // Static shared memory: at most 48 KiB, and with the dynamic part within the kernel's total.
    CHECK_THROWS_WITH(launch(memory_big_static_kernel, dim3(1), dim3(1), 0, nullptr, &out), "memory_big_static_kernel",
                      "CARBON_SHARED 'big'", "static shared memory to 50176 bytes", "the limit is 49152");
    launch(memory_static_plus_dynamic_kernel, dim3(1), dim3(1), 32 * kib, nullptr, &out);
    CHECK_THROWS_WITH(launch(memory_static_plus_dynamic_kernel, dim3(1), dim3(1), 40 * kib, nullptr, &out),
                      "16384 static + 40960 dynamic bytes; this kernel may use 49152 in all");
}

__global__ void memory_cache_hints_kernel(const float* in, float* out) {
    const unsigned t = threadIdx.x;
    __stcs(out + t, __ldg(in + t) + __ldcs(in + t));
    __stcg(out + 32 + t, __ldcg(in + t) * 3.0f);
    __threadfence_block();
    __threadfence_system();
}

TEST(cache_hinted_loads_and_stores) {
    std::vector<float> in(32), out(64);
    std::iota(in.begin(), in.end(), 1.0f);
    launch(memory_cache_hints_kernel, dim3(1), dim3(32), 0, nullptr, in.data(), out.data());
    for (int t = 0; t < 32; ++t) {
        CHECK_EQ(out[t], 2.0f * in[t]);
        CHECK_EQ(out[32 + t], 3.0f * in[t]);
    }
}
