// The work of whole-VCF variant effect scoring, shared by every form of it (carbon-cli vep, its Ray
// worker, the desktop application's Score Variants): the settings, the '##' header that records
// them, and the scorer that turns a VCF record into its rows (one per alternative allele), each
// alternative forking the reference window's cache before its first change (score_site). A
// record's rows depend only on the record and the settings, which is what makes a resumed run and
// a sharded run the same bytes as one run.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "carbon/model.h"
#include "carbon/runs/run_settings.h"
#include "carbon/scoring/variants.h"
#include "carbon/storage/reference.h"
#include "carbon/storage/vcf.h"
#include "carbon/storage/vep_result.h"

namespace carbon::runs {

using storage::GenomeSource;
using storage::VcfReader;
using storage::VcfRecord;
using storage::VcfRegion;
using storage::VepRow;

struct VepSettings {
    std::string model, reference, vcf, regions_text, yarn;
    std::string weights;  // "", "native", or the 8-bit weights the model runs with (Model::weights())
    VariantOptions options;  // context_tokens set by VepScorer from the model
    bool share_prefix = true;
    std::vector<VcfRegion> regions;
};

// The '##' lines that start every output, and its column line: the build and every setting that
// decides the rows.
std::string vep_header(const VepSettings& s);

// The first five columns of a record's row i (CHROM POS ID REF ALT, as the rows write them):
// what identifies a row when a partial output is resumed. The second form: row i of a site's rows.
std::string vep_row_key(const VcfRecord& record, size_t i);
std::string vep_row_key(std::span<const VcfRecord> site, size_t i);

// The records of a VCF a site at a time: consecutive records with the same CHROM, POS and REF (a
// multi-allelic record split into several, as `bcftools norm -m-` writes and ClinVar publishes)
// have the same window, so VepScorer scores all their alleles against one reference pass.
class VepSiteReader {
public:
    explicit VepSiteReader(VcfReader& in) : in_(in) {}
    bool next(std::vector<VcfRecord>& site);  // one or more records; false at the end

private:
    VcfReader& in_;
    VcfRecord pending_;
    bool has_pending_ = false;
};

// Error for a region the reference cannot hold: a contig it does not have, or one that starts past
// the contig's end (a region for another assembly, or a typo such as "chr1:1000-2000x", which is
// read as a contig name, as htslib reads it).
void check_vep_regions(const std::vector<VcfRegion>& regions, const GenomeSource& genome);

class VepScorer {
public:
    // Takes the settings with the model's context (max_position_embeddings) for the windows.
    // Refuses regions the reference cannot hold (check_vep_regions).
    VepScorer(VepSettings settings, Model& model, const GenomeSource& genome);
    // The rows of a site's records (VepSiteReader), in order: one per alternative, one no_alt row
    // for a record without any; Error naming the record's FILE:LINE when its POS lies past the end
    // of its contig in the reference (the VCF is for another assembly: no row of it can be trusted); every alternative of the site against one reference pass (the
    // same numbers as each record alone: the engine is batch-invariant). `progress` is handed to
    // the engine (returning false stops it: the rows are then incomplete, see cancelled()).
    std::vector<VepRow> score(std::span<const VcfRecord> site, const ScoreProgress& progress = {});
    std::vector<VepRow> score(const VcfRecord& record, const ScoreProgress& progress = {}) {
        return score(std::span(&record, 1), progress);
    }
    // The same, formatted as TSV lines.
    std::string rows(std::span<const VcfRecord> site);
    std::string rows(const VcfRecord& record) { return rows(std::span(&record, 1)); }
    // Rows a record (a site) gives, without scoring it.
    static size_t row_count(const VcfRecord& record) { return record.alts.empty() ? 1 : record.alts.size(); }
    static size_t row_count(std::span<const VcfRecord> site);
    size_t tokens() const { return tokens_; }
    // Whether the last score() was stopped by its progress callback (its scores are then NaN).
    bool cancelled() const { return cancelled_; }
    const VepSettings& settings() const { return s_; }

private:
    VepSettings s_;
    Model& model_;
    const GenomeSource& genome_;
    size_t tokens_ = 0;
    bool cancelled_ = false;
};

// Stores the complete result of a vep run (the TSV at `tsv`) as one "vep" run with every row and
// the model's identity (`identity`, make_run), in one transaction of the caller's: `status`
// "finished", or "cancelled" for the rows of a stopped run; `extra` settings besides the TSV's
// '##' lines; `sequence_ids` maps a CHROM to a stored sequence when the run scored the project's
// own sequences. carbon-cli vep --project and the application's Score Variants both store this way.
storage::VepStored write_vep_run(storage::Project& project, const std::string& tsv, storage::Run identity,
                                 const std::string& status, const RunSettings& extra = {},
                                 const std::vector<std::pair<std::string, int64_t>>& sequence_ids = {});

}  // namespace carbon::runs
