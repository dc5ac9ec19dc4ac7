// The result of whole-VCF variant effect scoring (`carbon-cli vep`, `carbon-cluster vep`, the
// desktop application's Score Variants): one row per (variant, alternative allele), the TSV that
// holds them ('##' lines with the version and every setting, a '#chrom...' column line, the rows)
// and its place in a project (a run of kind "vep" whose rows are in the vep_results table).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "carbon/storage/project.h"

namespace carbon::storage {

// The column line (with its leading '#' and line feed), and the number of columns.
extern const char* const kVepColumnLine;
constexpr size_t kVepColumns = 12;

// One row as its TSV line (line feed included); numbers with 9 significant digits, NaN as NA.
std::string format_vep_row(const VepRow& row);

// Reads a vep TSV row by row (any size, bounded memory). Errors name the file and line: a first
// line that is not '##carbon-cli vep VERSION', another column line, a row with a wrong number
// of fields or a field that is not what vep writes there.
class VepResultReader {
public:
    explicit VepResultReader(const std::string& path);
    ~VepResultReader();
    VepResultReader(const VepResultReader&) = delete;
    VepResultReader& operator=(const VepResultReader&) = delete;

    const std::string& version() const { return version_; }
    // The '##key=value' lines, in order (model, reference, vcf, window_bp, ...).
    const std::vector<std::pair<std::string, std::string>>& settings() const { return settings_; }
    std::optional<std::string> setting(const std::string& key) const;
    bool next(VepRow& row);  // false at the end
    size_t line() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string path_, version_;
    std::vector<std::pair<std::string, std::string>> settings_;
};

// Stores the vep result in `tsv` as one run of kind "vep" with all its rows, in one transaction:
// everything or nothing. `identity` gives the model's identity when the caller has it (make_run:
// folder, config and tokenizer hashes, backend); its settings are added to the TSV's '##' lines,
// and its model_path defaults to the ##model line. `sequence_ids` maps a chrom to a stored
// sequence when the run scored the project's own sequences. `status` is the run's ("finished",
// or "cancelled" for the rows of a stopped run). Returns the run id and its number of rows;
// Error (file and line) for a TSV that is not a vep result.
struct VepStored {
    int64_t run_id = 0, rows = 0;
};
VepStored store_vep_result(Project& project, const std::string& tsv, Run identity, const std::string& status,
                           const std::vector<std::pair<std::string, int64_t>>& sequence_ids = {});

// Writes vep run `run_id` of the project as the TSV it was stored from, byte for byte (the '##'
// lines in their order, the rows in theirs). Error when there is no such vep run.
void export_vep_tsv(Project& project, std::ostream& out, int64_t run_id);

}  // namespace carbon::storage
