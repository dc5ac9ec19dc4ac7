// Activity prediction with a sequence-regression checkpoint made by Carbon's fine-tuning recipes
// (huggingface/carbon finetuning/malinois, deepstarr, promoter_activity): LlamaForSequenceClassification
// with problem_type "regression", its linear head `score` (no bias) read at the last token that is
// not pad_token_id, as transformers pools; the backbone runs on the model's backend (CPU or CUDA,
// batched) through Head::Hidden, the head on the host in double.
//
// The recipe's run_config.json (in the checkpoint's folder, or the one above it: the recipes save
// the model to OUTPUT/best_model beside OUTPUT/run_config.json) says how sequences were given to
// the model and how the labels were scaled; it is followed to the letter where prediction needs it:
//  - dna_mode: "auto_dna_tags" (the default) and "dna_tags" both give <dna>SEQUENCE</dna>;
//    "plain" gives the sequence as BPE text, as the recipe trained it;
//  - sequences stripped of surrounding blanks and upper-cased (malinois, promoter_activity), cut
//    to a multiple of truncate_to_multiple_of bases when set (deepstarr);
//  - rc_eval_average: the prediction is the mean of the sequence's and its reverse complement's
//    (acgt_reverse_complement: A, C, G, T only, as the recipe's DNA_COMPLEMENT);
//  - label_transform (per target: center, scale): values are reported in the measured units,
//    scaled * scale + center, for the output whose label is TARGET_scaled or TARGET;
//  - max_length: the recipe truncated longer inputs to that many tokens; a longer sequence is
//    refused here, saying so, rather than cut without a word.
// Without a run_config.json the checkpoint's own outputs are reported as they are (scaled), with
// <dna>SEQUENCE</dna>, forward only, and the result says so.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "carbon/model.h"
#include "carbon/predict/activity_predictor.h"

namespace carbon {

struct RegressionRecipe {
    std::filesystem::path file;              // the run_config.json followed; empty when none was found
    std::string dna_mode = "auto_dna_tags";  // auto_dna_tags | dna_tags | plain
    bool upper_case = true;                  // the recipe upper-cases sequences
    int truncate_to_multiple_of = 0;         // bases; 0: none
    bool rc_average = false;
    int max_length = 0;                      // tokens; 0: no limit but the model's context
    struct Unscale {
        std::string target;  // the label_transform key
        double center = 0, scale = 1;
    };
    std::vector<std::optional<Unscale>> unscale;  // per output, in id2label order
};

// The recipe of the checkpoint `checkpoint_dir` with outputs `labels`: run_config.json in the
// folder or its parent, else the defaults above with no unscaling. Error naming the file and the
// key for a run_config.json whose fields are not what the recipes write.
RegressionRecipe find_regression_recipe(const std::filesystem::path& checkpoint_dir, const std::vector<std::string>& labels);

class SequenceRegressor : public ActivityPredictor {
public:
    // `model` must be a sequence-regression checkpoint (ModelConfig::sequence_head); Error otherwise.
    explicit SequenceRegressor(Model& model);
    const RegressionRecipe& recipe() const { return recipe_; }
    // The token ids the recipe gives the model for `sequence` (forward strand), and the index of
    // the token the head reads. Error naming the sequence when it is empty, longer than the
    // recipe's max_length or the model's context.
    std::vector<int32_t> tokens(std::string_view sequence, const std::string& name) const;
    static size_t pooled_index(std::span<const int32_t> ids, std::optional<int> pad_token_id);

    // Predictions for `sequences` (names for messages), `batch` sequences a forward pass.
    Predictions predict(std::span<const std::string> sequences, std::span<const std::string> names, size_t batch = 16,
                        const PredictProgress& progress = {}) override;
    Predictions predict_near(std::string_view reference, std::span<const std::string> sequences, std::span<const std::string> names,
                             size_t batch = 16, const PredictProgress& progress = {}) override;
    std::vector<std::string> outputs() const override;

private:
    Predictions predict_impl(const std::string_view* reference, std::span<const std::string> sequences, std::span<const std::string> names,
                             size_t batch, const PredictProgress& progress);
    Model& model_;
    RegressionRecipe recipe_;
    std::vector<double> score_;  // [outputs, hidden] in double
};

}  // namespace carbon
