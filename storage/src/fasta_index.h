// A FASTA's faidx index (samtools' .fai), read strictly and checked against the file it indexes
// before it is trusted, and the raw reads that fetch bases through it (plain files by pread,
// bgzip through htslib's BGZF with its .gzi). Used by ReferenceGenome (reference.h).
//
// Why not htslib's faidx_fetch: it trusts the index. A .fai that lies about a contig's length,
// offset or line layout, or that no longer matches an edited FASTA, makes it return other bases
// than the file holds, without a word. Here every window is read as raw bytes and each line
// break is checked where the index says it is, and at open every contig's header line, first and
// last lines and what follows them are checked (a few small reads per contig).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

struct BGZF;

namespace carbon::storage {

// One line of a .fai: NAME LENGTH OFFSET LINEBASES LINEWIDTH (a sixth column, FASTQ's, refused).
struct FaiEntry {
    std::string name;
    int64_t length = 0;      // bases
    int64_t offset = 0;      // byte of the first base
    int64_t line_bases = 0;  // bases on each full line
    int64_t line_bytes = 0;  // bytes of each full line, its line break included
};

// The entries of `fai`, which indexes `fasta`; Error "FAI:LINE: why" for a line that is not one
// (numbers out of range, a line break wider than 2 bytes... ).
std::vector<FaiEntry> read_fai_file(const std::string& fai, const std::string& fasta);

// Raw bytes of a FASTA at uncompressed offsets.
class RawFasta {
public:
    // bgzip: `gzi` is the BGZF index (htslib's .gzi) of `path`.
    RawFasta(const std::string& path, bool bgzip, const std::string& gzi);
    ~RawFasta();
    RawFasta(const RawFasta&) = delete;
    RawFasta& operator=(const RawFasta&) = delete;
    // Up to `n` bytes from `offset`; fewer at the end of the file. Safe from several threads.
    std::string read(int64_t offset, size_t n) const;

private:
    std::string path_;
    int fd_ = -1;
    BGZF* bgzf_ = nullptr;
    mutable std::mutex mutex_;  // one BGZF handle
};

// Why `entries` do not describe `fasta` as it is now, or nothing when they do: each contig's
// header line ('>' NAME, ending where its first base begins), its first and last lines (bases,
// then a line break where LINEBASES and LINEWIDTH put it), nothing but line breaks between a
// contig's last base and the next header, nothing after the last contig, and no contig named
// twice (htslib's indexer skips a second contig of the same name with only a warning). The reason
// names the contig and, for what the file holds, the line.
std::optional<std::string> check_fai_layout(const std::vector<FaiEntry>& entries, const RawFasta& fasta,
                                            const std::string& path);

// Bases [begin, end) of `e` (0 <= begin <= end <= e.length), as written; Error naming the byte
// and the line where a line break is not where the index says (the FASTA changed after it was
// indexed, or its lines are not all the same length).
std::string fetch_bases(const FaiEntry& e, const RawFasta& fasta, int64_t begin, int64_t end,
                        const std::string& path);

}  // namespace carbon::storage
