// A bgzipped VCF's tabix or CSI index, or a BCF's CSI index, checked against the file it indexes
// before it is trusted (issue 31). Used by VcfReader (vcf.h) for region queries and by the
// distributed run's list of contigs.
//
// Why: htslib's iterators read wherever the index points. An index of another file, of an earlier
// version of this one, or one that was edited, gives other records than the file holds, or none,
// without a word. What is checked, from the index and a few small reads (no record is decoded
// but the first of each contig checked):
//  - each contig's records are one run of bytes (a whole-contig query is one piece);
//  - those runs tile the file: the first begins where the header ends, each next one where the
//    one before ends, the last at the end of the data; every offset is a BGZF block's start or
//    inside it;
//  - the record where a contig's run begins is that contig's (at the contigs asked for, or all);
//  - a BCF's index names no contig its header does not have.
// A file whose own index fails (or is older than the file) is read through an index htslib builds
// into a cache folder (never beside the user's file), checked the same way, with a note saying
// why; the user's index is left as it is.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hts_ptr.h"

namespace carbon::storage {

struct VcfIndex {
    HtsPtr<tbx_t> tbx;                   // a bgzipped text VCF's (tabix or CSI)
    HtsPtr<hts_idx_t> idx;               // a BCF's (CSI; the header maps its contig ids)
    std::string file;                    // the index file read
    std::string note;                    // why the file's own index was not used; empty when it was
    std::vector<std::string> contigs;    // the contigs with records, in the order the file holds them
};

// The checked index of `path` (a BCF when `bcf`, with its header `hdr`; else bgzipped text): its
// own (PATH.tbi or PATH.csi) when that is current and describes the file, else one built into
// `index_dir`. `check_contigs`: the contigs whose first record is read (all when empty). nullopt
// when the file has no index beside it. Error naming the file when htslib cannot index it.
std::optional<VcfIndex> open_vcf_index(const std::string& path, bool bcf, bcf_hdr_t* hdr,
                                       const std::vector<std::string>& check_contigs, const std::string& index_dir);

// $XDG_CACHE_HOME/carbon-studio/vcf-index (else the temporary folder's).
std::string default_vcf_index_dir();

}  // namespace carbon::storage
