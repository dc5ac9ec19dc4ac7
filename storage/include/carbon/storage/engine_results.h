// Engine results as project records: the one mapping that carbon-cli and the desktop application
// share (a run with the model's identity, a design with its regions, per-base score tracks).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "carbon/generation/fns_generate.h"
#include "carbon/scoring/scoring.h"
#include "carbon/storage/project.h"

namespace carbon {
class Model;
}

namespace carbon::storage {

using RunSettings = std::vector<std::pair<std::string, std::string>>;

// FNV-1a over a file's bytes ("fnv1a64:<hex>"; "" when the file cannot be read): identifies the
// exact config / tokenizer a run used.
std::string file_hash(const std::filesystem::path& path);

// A run of `kind` by `model`: its folder, config and tokenizer hashes, backend, seed, engine
// version and the settings given.
Run make_run(const Model& model, const std::string& kind, uint64_t seed, RunSettings settings);
// The same from the model folder and the backend's description (for a writer without the Model).
Run make_run(const std::filesystem::path& model_dir, const std::string& backend, const std::string& kind, uint64_t seed,
             RunSettings settings);

// Every setting of a design request that changes its output (left context and flank included),
// as stored with the run.
RunSettings generation_settings(const DesignRequest& request);
// The speculative decoding figures of a run (nothing when no draft was used).
RunSettings speculative_settings(const SpeculativeStats& stats);

// The regions of a generated design, in design coordinates: the design region with its template,
// and one pinned-motif region per stretch of fixed bases (A/C/G/T) in the template.
std::vector<Region> design_regions(const std::string& template_iupac, size_t length);

// Per-base tracks from engine scores: "logp" (f32), "dist_acgt" (f16, 4 values per base in
// A, C, G, T order) and "entropy_bits" (f32). Empty input gives no tracks.
std::vector<Track> base_score_tracks(const std::vector<BaseScore>& scores);

// The record of design `d` of run `run_id` (context sequence `sequence_id`, 0 = none), named
// "run<R>_design_<N>" with N its 1-based stream.
DesignRecord design_record(const Design& d, int64_t run_id, int64_t sequence_id);

}  // namespace carbon::storage
