// The writers of runs into a project: each writes one run and all its results inside the caller's
// transaction (storage's store_or_keep: everything or nothing, and kept in a recovery project when
// the project cannot take it). carbon-cli and the application store every kind of run through
// these, so a run is stored the same way whichever program made it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carbon/model.h"
#include "carbon/predict/evolution.h"
#include "carbon/runs/evolution_record.h"
#include "carbon/runs/generation_run.h"
#include "carbon/runs/named_sequence.h"
#include "carbon/runs/run_settings.h"
#include "carbon/scoring/scoring.h"
#include "carbon/scoring/variants.h"
#include "carbon/storage/project.h"

namespace carbon::runs {

// The stored sequence a generation's designs were made in: `sequence_id` when the project holds
// it (the application's edited sequence); otherwise, with `context_origin` set, the left context
// itself, found by name ("context") and bases or added with that origin (carbon-cli); otherwise
// none.
struct DesignedIn {
    int64_t sequence_id = 0;
    std::string context_origin;
};

struct StoredGeneration {
    int64_t run_id = 0;
    std::vector<int64_t> design_ids;  // in result order
};

// A generation run: every setting of its request, the draft and its figures, `extra` (the
// caller's own: threads, the edited region), each design with its track and regions; status
// "cancelled" for a cancelled run, else "finished". `notes` gets what the user should know
// (a context stored under a name another sequence has).
StoredGeneration write_generation_run(storage::Project& project, const GenerationRun& run, const DesignedIn& in,
                                      const RunSettings& extra, std::vector<std::string>& notes);

// A scoring run: each record's per-base tracks on its stored sequence (sequence_id_for).
int64_t write_scores(storage::Project& project, const Model& model, const std::vector<NamedSequence>& records,
                     const std::vector<SequenceScore>& scores, const RunSettings& settings, double bases_per_second,
                     std::vector<std::string>& notes);
// One variant's score on its stored sequence.
int64_t write_variant(storage::Project& project, const Model& model, const NamedSequence& record, const VariantScore& score,
                      const RunSettings& settings, std::vector<std::string>& notes);
// Saturation mutagenesis: one row per (position, alternative).
int64_t write_ism(storage::Project& project, const Model& model, const NamedSequence& record, const IsmResult& result,
                  const RunSettings& settings, std::vector<std::string>& notes);

// What an evolution run left in the project: its run and its designs (the start first).
struct StoredEvolution {
    int64_t run_id = 0;
    std::vector<int64_t> design_ids;
};

// A directed-evolution run (kind "evolve"): the start on its stored sequence (sequence_id_for),
// then one design per round, the start first ("start", then "round N: POS FROM>TO", rank = the
// round), each with its objective, every output (design_predictions; with the plausibility term
// also "plausibility S" by its language model) and an annotation region
// on every base that differs from the start ("A>G, round N"); settings: the caller's, the
// predictor, objective, budget and why it stopped. Status "cancelled" for a cancelled run.
int64_t write_evolution(storage::Project& project, const Model& model, const NamedSequence& start, const EvolutionResult& result,
                        const EvolutionRecord& what, const RunSettings& settings, std::vector<std::string>& notes);

// Where an evolution run's designs go when the start was a region of a stored sequence (the
// application evolves the design region of the sequence it edits).
struct EvolvedRegion {
    int64_t sequence_id = 0;  // the stored sequence (0: not stored)
    size_t region_start = 0;  // 0-based; the region is as long as the start
};
// The same run written for a region: the designs are that region's bases (settings sequence_id,
// region_start, region_length), the run's identity the model folder and backend description.
StoredEvolution write_evolution(storage::Project& project, const std::filesystem::path& model_dir, const std::string& backend,
                                const EvolvedRegion& region, const EvolutionResult& result, const EvolutionRecord& what,
                                const RunSettings& settings);

}  // namespace carbon::runs
