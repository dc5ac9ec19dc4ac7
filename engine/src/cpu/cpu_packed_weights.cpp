// pack_weights (cpu_packed_weights.h).
#include "cpu_packed_weights.h"

#include <sys/mman.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

namespace carbon::cpu {

PackedWeights::PackedWeights(PackedWeights&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}

PackedWeights& PackedWeights::operator=(PackedWeights&& o) noexcept {
    if (this != &o) {
        if (data_) ::munmap(data_, bytes_);
        data_ = std::exchange(o.data_, nullptr);
        bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
}

PackedWeights::~PackedWeights() {
    if (data_) ::munmap(data_, bytes_);
}

PackedWeights pack_weights(ThreadPool& pool, const WeightMatrix& w, const int32_t* rows, size_t n, const char* name) {
    if (w.dtype != DType::BF16) throw Error(std::string("pack_weights: ") + name + " is not bf16");
    const size_t k = w.cols, groups = (n + kPackedGroupRows - 1) / kPackedGroupRows;
    const size_t group_words = packed_group_words(k);
    PackedWeights p;
    p.bytes_ = std::max<size_t>(1, groups * group_words * sizeof(uint32_t));
    void* mem = ::mmap(nullptr, p.bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        const int err = errno;
        p.bytes_ = 0;
        throw Error(std::string("CPU backend: cannot allocate ") + std::to_string(groups * group_words * 4 >> 20) +
                    " MiB for the packed copy of " + name + ": " + std::strerror(err));
    }
#ifdef MADV_HUGEPAGE
    (void)::madvise(mem, p.bytes_, MADV_HUGEPAGE);  // advice: fewer TLB misses while streaming
#endif
    p.data_ = static_cast<uint32_t*>(mem);
    const uint16_t* base = static_cast<const uint16_t*>(w.data);
    uint32_t* out = p.data_;
    pool.parallel_for(groups, 1, [&](size_t g0, size_t g1, int) {
        for (size_t g = g0; g < g1; ++g) {
            uint32_t* dst = out + g * group_words;
            for (size_t l = 0; l < kPackedGroupRows; ++l) {
                const size_t j = g * kPackedGroupRows + l;
                if (j >= n) continue;  // a padding row: the anonymous mapping is zero already
                const uint16_t* src = base + (rows ? size_t(rows[j]) : j) * k;
                for (size_t q = 0; q < k / 2; ++q)
                    dst[q * kPackedGroupRows + l] = uint32_t(src[2 * q]) | uint32_t(src[2 * q + 1]) << 16;
                if (k % 2) dst[k / 2 * kPackedGroupRows + l] = src[k - 1];
            }
        }
    });
    return p;
}

}  // namespace carbon::cpu
