// A generation run: set-up, designs and their tracks (see generation_run.h).
#include "carbon/runs/generation_run.h"

#include <algorithm>
#include <chrono>

namespace carbon::runs {

SpeculativeConfig speculative_config(Model& draft, const DraftOptions& options) {
    SpeculativeConfig spec;
    spec.draft = &draft.backend();
    spec.draft_tokenizer = &draft.tokenizer();
    spec.draft_tokens = options.draft_tokens;
    spec.max_draft_tokens = std::max<size_t>(8, options.draft_tokens);
    spec.draft_context = size_t(draft.config().max_position_embeddings);
    spec.auto_disable = options.auto_disable;
    spec.verify = options.verify;
    return spec;
}

std::vector<std::vector<BaseScore>> score_designs_in_place(Model& model, const DesignRequest& request,
                                                           const std::vector<Design>& designs, const ScoreProgress& progress) {
    ScoreOptions o;
    o.tags = request.tags;
    o.token_score = false;  // base-level numbers only: skips the full-vocabulary head
    o.context_tokens = size_t(model.config().max_position_embeddings);
    std::vector<std::string> full;
    full.reserve(designs.size());
    for (const Design& d : designs) full.push_back(request.left_context + d.bases + request.right_flank);
    const std::vector<SequenceScore> scores = score_sequences(model.backend(), model.tokenizer(), full, o, progress);
    // Each design's own bases: its track starts after the left context.
    std::vector<std::vector<BaseScore>> tracks(designs.size());
    const size_t c = request.left_context.size();
    for (size_t i = 0; i < designs.size() && i < scores.size(); ++i) {
        const std::vector<BaseScore>& t = scores[i].track;
        const size_t n = designs[i].bases.size();
        if (t.size() >= c + n) tracks[i].assign(t.begin() + long(c), t.begin() + long(c + n));
    }
    return tracks;
}

namespace {

// The engine's one rule fits the context first, so that the run stores and scores what the model read.
std::vector<std::string> fit_to_model(Model& model, DesignRequest& request) {
    request.context_tokens = size_t(model.config().max_position_embeddings);
    return fit_to_context(model.tokenizer(), request);
}

}  // namespace

GenerationMemory generation_run_memory(Model& model, DesignRequest request, const GenerationRunOptions& options) {
    fit_to_model(model, request);
    SpeculativeConfig spec;
    if (options.draft) spec = speculative_config(*options.draft, options.draft_options);
    return generation_memory(model.backend(), model.tokenizer(), request, options.draft ? &spec : nullptr);
}

GenerationRun run_generation(Model& model, DesignRequest request, const GenerationRunOptions& options,
                             const GenerationCallbacks& callbacks, const ScoreProgress& scoring) {
    GenerationRun run;
    std::vector<std::string> fitted = fit_to_model(model, request);
    run.model_dir = model.checkpoint().dir();
    run.backend = model.backend().describe();
    SpeculativeConfig spec;
    if (options.draft) {
        spec = speculative_config(*options.draft, options.draft_options);
        run.draft_dir = options.draft->checkpoint().dir().string();
    }
    const auto t0 = std::chrono::steady_clock::now();
    run.result = generate_designs(model.backend(), model.tokenizer(), request, callbacks, options.draft ? &spec : nullptr);
    run.result.notices.insert(run.result.notices.begin(), fitted.begin(), fitted.end());
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const size_t length = request.template_iupac.empty() ? request.length : request.template_iupac.size();
    run.bases_per_second = double(run.result.designs.size()) * double(length) / std::max(run.seconds, 1e-9);
    if (run.result.speculative.used) run.draft_tokens = spec.draft_tokens;
    run.request = std::move(request);
    if (options.score_designs && !run.result.cancelled && !run.result.designs.empty())
        run.tracks = score_designs_in_place(model, run.request, run.result.designs, scoring);
    return run;
}

}  // namespace carbon::runs
