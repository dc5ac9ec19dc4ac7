// carbon-cli's bridge to project files (storage/): `carbon-cli project ...` and the --project
// option of generate / score / variant / ism. Engine results are mapped to storage's plain
// structs here. Built without storage, every entry point throws a clear Error.
#pragma once

#include <string>
#include <vector>

#include "carbon/fns_generate.h"
#include "carbon/model.h"
#include "carbon/scoring.h"
#include "carbon/variants.h"

namespace carbon::cli {

struct NamedSequence {
    std::string name, description, bases;
};

// Key/value settings of a run as given on the command line (stored verbatim with the run).
using RunSettings = std::vector<std::pair<std::string, std::string>>;

int cmd_project(const std::vector<std::string>& args);

// Each stores one run and its results in one transaction per logical unit (a design with its
// regions lands whole). `bases_per_second` 0 when not measured.
// `design_tracks[i]` is the per-base track of result.designs[i] (scored in its context and
// flank); empty vectors store no tracks. store_generation stores every setting of the request and
// the speculative figures itself; `settings` adds the command line's own (threads, draft).
void store_generation(const std::string& project, const Model& model, const DesignRequest& request, const GenerationResult& result,
                      const std::vector<std::vector<BaseScore>>& design_tracks, const RunSettings& settings,
                      double bases_per_second);
void store_scores(const std::string& project, const Model& model, const std::vector<NamedSequence>& records,
                  const std::vector<SequenceScore>& scores, const RunSettings& settings, double bases_per_second);
void store_variant(const std::string& project, const Model& model, const NamedSequence& record, const VariantScore& score,
                   const RunSettings& settings);
void store_ism(const std::string& project, const Model& model, const NamedSequence& record, const IsmResult& result,
               const RunSettings& settings);

}  // namespace carbon::cli
