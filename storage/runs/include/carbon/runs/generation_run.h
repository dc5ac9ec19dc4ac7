// A generation run: the one implementation carbon-cli generate and the application's Run share.
// The request completed from the model (its context length), the speculative set-up of a paired
// draft model, the designs, and each design scored per base in its place (tags, left context, the
// design, the right flank: what the designs table's minimum column and the stored tracks show).
// Engine only; its writer into a project is in generation_run_writer.h.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "carbon/generation/fns_generate.h"
#include "carbon/model.h"
#include "carbon/scoring/scoring.h"

namespace carbon::runs {

// How a paired draft model proposes tokens (carbon-cli generate --draft-tokens, --draft-verify,
// --no-auto-disable; the application takes the defaults).
struct DraftOptions {
    size_t draft_tokens = 4;  // the first k; it adapts up to max(8, k)
    SpeculativeVerify verify = SpeculativeVerify::Distribution;
    bool auto_disable = true;  // switched off when it measurably does not pay
};

// The speculative set-up for `draft`: its own context is its window.
SpeculativeConfig speculative_config(Model& draft, const DraftOptions& options);

struct GenerationRunOptions {
    Model* draft = nullptr;  // speculative decoding with this draft when set
    DraftOptions draft_options;
    bool score_designs = true;  // the per-base tracks of every design, read in its place
};

// Generate-and-rank (rank_by_objective, objective_ranking.h): what ranked the designs, and what
// it said of each design kept.
struct ObjectiveRanking {
    std::string predictor;            // as the run names it: a predictor file, a stored predictor, a checkpoint
    std::string objective;            // as asked: "K562", "mingap:K562", "sum:K562=1,HepG2=-0.5"
    std::string objective_described;  // "K562 - max(HepG2, SKNSH)"
    std::vector<std::string> outputs;
    std::vector<std::string> held_out;  // per output: the predictor's held-out accuracy ("" when not known)
    size_t proposed = 0;                // designs generated; the best `kept` of them are the run's
    size_t kept = 0;
    double plausibility_weight = 0;           // the objective adds this x design_logp (0: no term)
    std::vector<std::vector<double>> values;  // per design of result.designs (best first), per output
    std::vector<double> objective_values;     // per design of result.designs, the plausibility term included
};

struct GenerationRun {
    DesignRequest request;  // as it ran: context_tokens from the model, the context fitted to it
    GenerationResult result;
    std::vector<std::vector<BaseScore>> tracks;  // per design of result.designs; empty when not scored
    double seconds = 0;           // generating (scoring not included)
    double bases_per_second = 0;  // designed bases per second of generating
    std::filesystem::path model_dir;  // the target's folder and backend: the run's identity
    std::string backend;
    std::string draft_dir;    // "" without a draft
    size_t draft_tokens = 0;  // the draft's first k, when speculative decoding was used
    std::optional<ObjectiveRanking> ranking;  // generate-and-rank: set by rank_by_objective
};

// Runs `request` on `model` (and the draft of `options`): the left context and right flank fitted
// to the model's context by the engine's rule (fit_to_context; its notices first among the
// result's), then progress and each design through
// `callbacks` as generate_designs gives them; then, unless the run was cancelled or
// options.score_designs is off, every design's per-base track (`scoring` sees that pass's
// progress and may stop it: the tracks are then empty). Errors as generate_designs.
GenerationRun run_generation(Model& model, DesignRequest request, const GenerationRunOptions& options,
                             const GenerationCallbacks& callbacks = {}, const ScoreProgress& scoring = {});

// The memory `request` would take as run_generation runs it on `model` (the context fitted the same
// way, the draft of `options` included), and what the backend has available: the window shows it
// and asks before a run that takes most of what is left. Errors as generate_designs, before any work.
GenerationMemory generation_run_memory(Model& model, DesignRequest request, const GenerationRunOptions& options);

// Per-base scores of designs read in their place: [tags]<dna>left context + design + right
// flank</dna>, cut to each design's own bases. A design whose track did not come back (a stopped
// pass) gets an empty one.
std::vector<std::vector<BaseScore>> score_designs_in_place(Model& model, const DesignRequest& request,
                                                           const std::vector<Design>& designs,
                                                           const ScoreProgress& progress = {});

}  // namespace carbon::runs
