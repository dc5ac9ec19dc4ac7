// The CUDA backend's KV cache: one pool of pages in device memory, each page holding kKvPageTokens
// consecutive positions of one sequence for every layer, [page][layer][k|v][kv_head][token][head_dim]
// (the layout kernels/include/carbon/kernels/paged_kv.h documents), so one page id serves every layer
// and forking a sequence copies whole pages. The pool grows by doubling (between steps: the caller
// has synchronized); page ids survive growth.
#pragma once

#include <cstddef>
#include <vector>

#include "carbon/support/common.h"
#include "gpu/device_memory.h"

namespace carbon::gpu {

class KvPages {
public:
    KvPages(Device& device, int layers, int kv_heads, int head_dim, int page_tokens, DType type);

    // A free page id, growing the pool (copying it on `stream`, then synchronizing) when none is left.
    // Throws carbon::Error with the sizes when the device cannot hold a larger pool.
    int take(Stream stream);
    void give_back(int page) { free_.push_back(page); }
    // The pool freed when no page is in use (it grows again from its first size on demand); the
    // caller has synchronized. Returns whether it was freed.
    bool release_if_unused();
    // Copies page `src` to page `dst` (every layer) on `stream`.
    void copy(int dst, int src, Stream stream);

    void* pool() const { return pool_.get(); }
    long long page_elements() const { return page_elements_; }  // the kernels' page_stride
    std::size_t page_bytes() const { return std::size_t(page_elements_) * dtype_size(type_); }
    // Element offsets of layer l's keys and values inside a page.
    long long k_offset(int layer) const { return 2LL * layer * head_elements_; }
    long long v_offset(int layer) const { return k_offset(layer) + head_elements_; }
    int page_tokens() const { return page_tokens_; }
    int capacity() const { return capacity_; }
    int in_use() const { return capacity_ - int(free_.size()); }
    DType type() const { return type_; }

private:
    Device& device_;
    DeviceMemory pool_;
    long long head_elements_ = 0;  // kv_heads * page_tokens * head_dim: one layer's keys in a page
    long long page_elements_ = 0;
    int page_tokens_ = 0;
    DType type_;
    int capacity_ = 0;
    std::vector<int> free_;
};

}  // namespace carbon::gpu
