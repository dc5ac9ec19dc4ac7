// Engine results as project records: the one mapping the runs' writers use (a run with the model's
// identity, a design with its regions, per-base score tracks, and the stored sequence a result
// refers to).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "carbon/generation/fns_generate.h"
#include "carbon/runs/named_sequence.h"
#include "carbon/runs/run_settings.h"
#include "carbon/scoring/scoring.h"
#include "carbon/storage/project.h"

namespace carbon {
class Model;
}

namespace carbon::runs {

// FNV-1a over a file's bytes ("fnv1a64:<hex>"; "" when the file cannot be read): identifies the
// exact config / tokenizer a run used.
std::string file_hash(const std::filesystem::path& path);

// A run of `kind` by `model`: its folder, config and tokenizer hashes, backend, seed, engine
// version and the settings given.
storage::Run make_run(const Model& model, const std::string& kind, uint64_t seed, RunSettings settings);
// The same from the model folder and the backend's description (for a writer without the Model).
storage::Run make_run(const std::filesystem::path& model_dir, const std::string& backend, const std::string& kind,
                      uint64_t seed, RunSettings settings);

// The regions of a generated design, in design coordinates: the design region with its template,
// and one pinned-motif region per stretch of fixed bases (A/C/G/T) in the template.
std::vector<storage::Region> design_regions(const std::string& template_iupac, size_t length);

// Per-base tracks from engine scores: "logp" (f32), "dist_acgt" (f16, 4 values per base in
// A, C, G, T order) and "entropy_bits" (f32). Empty input gives no tracks.
std::vector<storage::Track> base_score_tracks(const std::vector<BaseScore>& scores);

// The record of design `d` of run `run_id` (context sequence `sequence_id`, 0 = none), named
// "run<R>_design_<N>" with N its 1-based stream.
storage::DesignRecord design_record(const Design& d, int64_t run_id, int64_t sequence_id);
// The design a stored record holds (design_record's inverse: the engine's Design of its bases,
// scores, rank, stream and backtracks).
Design design_of(const storage::DesignRecord& record);

// The stored sequence a result refers to: one with the same name and bases is reused; otherwise
// it is added (with `origin`), and when other sequences already have its name a line in `notes`
// says which id this one got (names need not be unique; --sequence-id picks one).
int64_t sequence_id_for(storage::Project& project, const NamedSequence& sequence, const std::string& origin,
                        std::vector<std::string>& notes);

}  // namespace carbon::runs
