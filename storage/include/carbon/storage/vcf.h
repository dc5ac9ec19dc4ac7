// Reading VCF and BCF files through htslib: plain, gzip or bgzip VCF text and BCF, streamed with
// bounded memory, optionally restricted to regions (through the file's tabix or CSI index when it
// has a current one, else by reading past the rest). Text lines go through the project's line
// reader first (lines of at most kVcfMaxLine bytes, no binary bytes, FILE:LINE:COL messages) and
// the checks that name what is wrong with a column, then htslib's own parser (vcf_parse) on the
// columns the engine uses (CHROM POS ID REF ALT; QUAL, FILTER, INFO and the samples are not
// needed and not parsed). Also the panel reader for one stored sequence (project import).
// Independent of project files, so that it can be fuzzed on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace carbon::storage {

// The largest POS: VCF's and BCF's positions are 32-bit signed integers.
constexpr int64_t kVcfMaxPos = 2147483647;

// The longest VCF line accepted (a data line of 100,000 samples is a few MiB).
constexpr size_t kVcfMaxLine = size_t(64) << 20;

struct VcfRecord {
    std::string chrom;
    int64_t pos = 0;                // 0-based
    std::string id;                 // the ID column, "" for '.'
    std::string ref;                // upper-cased
    std::vector<std::string> alts;  // as written (symbolic <...>, breakends, '*'); '.' gives none
    std::string where;              // "FILE:LINE" (text), "FILE: record N" (BCF), "FILE: CHROM:POS" (index query)
};

// A region of records by POS: contig, [begin, end) 0-based.
struct VcfRegion {
    std::string contig;
    int64_t begin = 0, end = INT64_MAX;
};
// A comma-separated list of CONTIG, CONTIG:POS, CONTIG:FROM- or CONTIG:FROM-TO (1-based,
// inclusive; "chr1:1000-2000,chr2"); a contig whose name ends in ':digits' is written in braces,
// as htslib does ("{HLA-A*01:01}:1-100"). Error naming the region that is not one.
std::vector<VcfRegion> parse_vcf_regions(const std::string& text);

class VcfReader {
public:
    // path: VCF (plain, gzip, bgzip) or BCF. With regions: only records whose POS lies in one,
    // each once, in file order.
    explicit VcfReader(const std::string& path, std::vector<VcfRegion> regions = {});
    // VCF text in memory (tests, fuzzing); `display_name` stands for the file in messages.
    VcfReader(std::string_view text, const std::string& display_name);
    ~VcfReader();
    VcfReader(const VcfReader&) = delete;
    VcfReader& operator=(const VcfReader&) = delete;

    // The next record; false at the end. Anything that is not VCF is a carbon::Error naming the
    // file, the line (or record) and what is wrong.
    bool next(VcfRecord& record);
    bool is_bcf() const;
    // True when the regions are read through the file's index (else by streaming past the rest).
    bool uses_index() const;
    // Why the file's own index was not used (older than the file, or not describing it) and one
    // built into the cache folder was; empty when its own was, or none.
    const std::string& index_note() const;

    // The contigs a bgzipped VCF or a BCF has records on, in the order the records come in the
    // file, from its tabix/CSI index checked against the file (the shards of a distributed run
    // concatenate in this order to the file's order); `note` as index_note(). Error naming the
    // file when it has no index beside it.
    static std::vector<std::string> indexed_contigs(const std::string& path, std::string* note = nullptr);

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

struct VcfSnv {
    int64_t position = 0;  // 0-based
    char ref = 'N', alt = 'N';
    std::string label;  // the ID column, "" for '.'
};

struct VcfPanel {
    std::vector<VcfSnv> snvs;
    std::vector<std::string> skipped;  // "FILE:LINE: why" for each record not taken
};

// SNVs of the VCF on `chrom`, whose bases are `bases`: CHROM must be `chrom`, POS 1-based within
// it, REF its base there; multi-allelic ALTs are split. Indels, symbolic alleles, other CHROMs
// and REF mismatches are reported in `skipped`. Anything that is not VCF is a carbon::Error
// naming file, line and (where it helps) column.
VcfPanel read_vcf_panel(const std::string& path, const std::string& chrom, std::string_view bases);
// The same over text in memory (tests, fuzzing); `display_name` stands for the file in messages.
VcfPanel read_vcf_panel_text(std::string_view text, const std::string& display_name, const std::string& chrom, std::string_view bases);

}  // namespace carbon::storage
