// A reference genome for random access to any window (variant effect scoring reads an 8 kb
// window around each variant): FASTA, plain or bgzip-compressed, through htslib's faidx, the
// index every genomics tool shares (`samtools faidx`).
//
// An index beside the FASTA (PATH.fai, and PATH.gzi for bgzip) is used when it is at least as new
// as the FASTA and describes the file as it is (each contig's header line, first and last lines
// and what follows them, checked at open; each window's line breaks checked as it is read);
// otherwise one is built into `index_dir` (keyed by the FASTA's path, size and time), never beside
// the user's file, and checked the same way. Every failure is a carbon::Error naming the file and
// what is wrong.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace carbon::storage {

struct ReferenceContig {
    std::string name;
    int64_t length = 0;
};

// Where variant effect scoring reads its windows: a reference genome file, or named sequences
// held in memory (the project's own). Contig lengths and bases; upper-cased bases.
class GenomeSource {
public:
    virtual ~GenomeSource() = default;
    // What the source is, for messages and the result's header (a path, "project FILE").
    virtual const std::string& path() const = 0;
    // The contig's length, or -1 when there is no such contig.
    virtual int64_t length(const std::string& contig) const = 0;
    // Bases [begin, end) of `contig`, upper-cased; Error outside the contig or for a missing one.
    virtual std::string fetch(const std::string& contig, int64_t begin, int64_t end) const = 0;
};

class ReferenceGenome : public GenomeSource {
public:
    // Opens `path`; builds an index into `index_dir` when the FASTA has no current one of its own.
    // Refused: not a regular file, gzip that is not bgzip ("recompress it with bgzip"), a FASTA
    // htslib cannot index (lines of one sequence of different lengths, no '>' header), two contigs
    // of one name, no sequences.
    static std::unique_ptr<ReferenceGenome> open(const std::string& path, const std::string& index_dir);
    // The default place for built indexes: $XDG_CACHE_HOME/carbon-studio/faidx (or ~/.cache/...).
    static std::string default_index_dir();

    ~ReferenceGenome() override;
    ReferenceGenome(const ReferenceGenome&) = delete;
    ReferenceGenome& operator=(const ReferenceGenome&) = delete;

    const std::string& path() const override { return path_; }
    // Why the FASTA's own index was not used, when it was there but did not describe the file
    // (for a warning); empty otherwise.
    const std::string& index_note() const { return index_note_; }
    // In the FASTA's order.
    const std::vector<ReferenceContig>& contigs() const { return contigs_; }
    // The contig's length, or -1 when the reference has no such contig.
    int64_t length(const std::string& contig) const override;
    // Bases [begin, end) of `contig` (0-based), upper-cased, every other letter kept as it is (N,
    // IUPAC codes). Requires 0 <= begin <= end <= length(contig); otherwise, for a contig that is
    // not there, or where the file does not hold bases where its index says (it changed since), a
    // carbon::Error that says so. Safe to call from several threads.
    std::string fetch(const std::string& contig, int64_t begin, int64_t end) const override;

private:
    ReferenceGenome() = default;
    static std::unique_ptr<ReferenceGenome> finish(std::unique_ptr<ReferenceGenome> g);
    std::string path_, index_note_;
    std::vector<ReferenceContig> contigs_;
    struct Index;
    std::unique_ptr<Index> index_;
};

// Named sequences as a genome (the desktop application scores a VCF against the project's own
// sequences). Names must be unique: Error naming the duplicates otherwise, as a VCF's CHROM could
// not tell them apart.
class SequenceSetGenome : public GenomeSource {
public:
    SequenceSetGenome(std::string description, std::vector<std::pair<std::string, std::string>> named_bases);
    const std::string& path() const override { return description_; }
    int64_t length(const std::string& contig) const override;
    std::string fetch(const std::string& contig, int64_t begin, int64_t end) const override;

private:
    std::string description_;
    std::map<std::string, std::string> bases_;  // upper-cased
};

}  // namespace carbon::storage
