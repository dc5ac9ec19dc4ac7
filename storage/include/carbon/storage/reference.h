// A reference genome for random access to any window (variant effect scoring reads an 8 kb
// window around each variant): FASTA, plain or bgzip-compressed, through htslib's faidx, the
// index every genomics tool shares (`samtools faidx`).
//
// An index beside the FASTA (PATH.fai, and PATH.gzi for bgzip) is used when it is at least as new
// as the FASTA; otherwise one is built into `index_dir` (keyed by the FASTA's path, size and time),
// never beside the user's file. Every failure is a carbon::Error naming the file and what is wrong.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace carbon::storage {

struct ReferenceContig {
    std::string name;
    int64_t length = 0;
};

class ReferenceGenome {
public:
    // Opens `path`; builds an index into `index_dir` when the FASTA has no current one of its own.
    // Refused: not a regular file, gzip that is not bgzip ("recompress it with bgzip"), a FASTA
    // htslib cannot index (lines of one sequence of different lengths, no '>' header), no
    // sequences.
    static std::unique_ptr<ReferenceGenome> open(const std::string& path, const std::string& index_dir);
    // The default place for built indexes: $XDG_CACHE_HOME/carbon-studio/faidx (or ~/.cache/...).
    static std::string default_index_dir();

    ~ReferenceGenome();
    ReferenceGenome(const ReferenceGenome&) = delete;
    ReferenceGenome& operator=(const ReferenceGenome&) = delete;

    const std::string& path() const { return path_; }
    // In the FASTA's order.
    const std::vector<ReferenceContig>& contigs() const { return contigs_; }
    // The contig's length, or -1 when the reference has no such contig.
    int64_t length(const std::string& contig) const;
    // Bases [begin, end) of `contig` (0-based), upper-cased, every other letter kept as it is (N,
    // IUPAC codes). Requires 0 <= begin <= end <= length(contig); otherwise, or for a contig that
    // is not there, a carbon::Error that says so. Safe to call from several threads.
    std::string fetch(const std::string& contig, int64_t begin, int64_t end) const;

private:
    ReferenceGenome() = default;
    std::string path_;
    std::vector<ReferenceContig> contigs_;
    struct Index;
    std::unique_ptr<Index> index_;
    mutable std::mutex mutex_;  // htslib's faidx_t reads through one file handle
};

}  // namespace carbon::storage
