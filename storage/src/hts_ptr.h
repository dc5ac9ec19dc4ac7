// Owning pointers for htslib's objects (files, headers, records, indexes, iterators), each freed
// by its own htslib function. Private to storage/.
#pragma once

#include <htslib/hts.h>
#include <htslib/tbx.h>
#include <htslib/vcf.h>

#include <memory>

namespace carbon::storage {

struct HtsFree {
    void operator()(htsFile* f) const { hts_close(f); }
    void operator()(bcf_hdr_t* h) const { bcf_hdr_destroy(h); }
    void operator()(bcf1_t* r) const { bcf_destroy(r); }
    void operator()(tbx_t* t) const { tbx_destroy(t); }
    void operator()(hts_idx_t* i) const { hts_idx_destroy(i); }
    void operator()(hts_itr_t* i) const { hts_itr_destroy(i); }
};
template <class T>
using HtsPtr = std::unique_ptr<T, HtsFree>;

}  // namespace carbon::storage
