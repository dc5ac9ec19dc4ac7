// What every form of `carbon-cli vep` shares (the single run, the Ray worker, the shard list):
// the settings read from the command line, the '#' header that records them, and the scorer that
// turns a VCF record into its output rows. The rows of a record depend only on the record and the
// settings, which is what makes a resumed run and a sharded run the same bytes as one run.
// Needs storage/ (htslib); compiled only with CARBON_HAVE_STORAGE.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "carbon/model.h"
#include "carbon/storage/reference.h"
#include "carbon/storage/vcf.h"
#include "carbon/variants.h"
#include "cli_args.h"

namespace carbon::cli {

// The options every vep form takes (besides its own): with values, and flags.
std::set<std::string> vep_value_options();
std::set<std::string> vep_flag_options();

struct VepSettings {
    std::string model, reference, vcf, regions_text, yarn;
    VariantOptions options;  // context_tokens filled once the model is loaded
    bool share_prefix = true;
    std::vector<storage::VcfRegion> regions;
};

VepSettings vep_settings(const Args& a);
// The '#' lines that start every output: the build and every setting that decides the rows.
std::string vep_header(const VepSettings& s);

// The first five columns of a record's row i (CHROM POS ID REF ALT, as the rows write them):
// what identifies a row when a partial output is resumed.
std::string vep_row_key(const storage::VcfRecord& record, size_t i);

class VepScorer {
public:
    // Takes the settings with the model's context (max_position_embeddings) for the windows.
    VepScorer(VepSettings settings, Model& model, const storage::ReferenceGenome& genome);
    // The record's rows (one per alternative; one no_alt row without any), formatted.
    std::string rows(const storage::VcfRecord& record);
    // Rows a record gives, without scoring it.
    static size_t row_count(const storage::VcfRecord& record) { return record.alts.empty() ? 1 : record.alts.size(); }
    size_t tokens() const { return tokens_; }

private:
    VepSettings s_;
    Model& model_;
    const storage::ReferenceGenome& genome_;
    size_t tokens_ = 0;
};

// Writes all n bytes to fd (short writes and EINTR retried); Error "cannot write WHAT: reason".
void write_fully(int fd, const char* data, size_t n, const std::string& what);

// Closes a file descriptor when it goes out of scope.
class FdCloser {
public:
    explicit FdCloser(int fd) : fd_(fd) {}
    ~FdCloser();
    FdCloser(const FdCloser&) = delete;
    FdCloser& operator=(const FdCloser&) = delete;

private:
    int fd_;
};

// `carbon-cli vep --worker`: the long-lived engine process of a distributed run (cli_vep_worker.cpp).
int vep_worker(const Args& a, const VepSettings& settings);
// `carbon-cli vep --list-shards`: the run's header and shards as JSON (cli_vep_worker.cpp).
int vep_list_shards(const Args& a, const VepSettings& settings);

}  // namespace carbon::cli
