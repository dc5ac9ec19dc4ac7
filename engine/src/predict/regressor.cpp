// SequenceRegressor and the recipe it follows (carbon/predict/regressor.h).
#include "carbon/predict/regressor.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <optional>

#include "carbon/fns/fns.h"
#include "carbon/support/common.h"
#include "forked_pass.h"
#include "hidden_pass.h"
#include "carbon/support/input_file.h"
#include "carbon/support/visible_text.h"

namespace carbon {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// A label's target: "K562_scaled" -> "K562" (the recipes name their outputs TARGET_scaled).
std::string target_of(const std::string& label) {
    const std::string suffix = "_scaled";
    return label.size() > suffix.size() && label.compare(label.size() - suffix.size(), suffix.size(), suffix) == 0
               ? label.substr(0, label.size() - suffix.size())
               : label;
}

double finite_number(const json& v, const std::string& where) {
    if (!v.is_number()) throw Error(where + " must be a number, got " + v.dump());
    const double x = v.get<double>();
    if (!std::isfinite(x)) throw Error(where + " is not finite");
    return x;
}

RegressionRecipe read_recipe(const fs::path& file, const std::vector<std::string>& labels) {
    const std::string text = read_regular_file(file, "run_config.json", size_t(16) << 20);
    json root;
    try {
        root = json::parse(text);
    } catch (const json::exception& e) {
        throw Error(file.string() + ": malformed JSON: " + e.what());
    }
    if (!root.is_object()) throw Error(file.string() + ": expected a JSON object at the top level");
    RegressionRecipe r;
    r.file = file;
    auto key = [&](const char* k) { return file.string() + ": " + k; };
    if (root.contains("dna_mode") && !root["dna_mode"].is_null()) {
        if (!root["dna_mode"].is_string()) throw Error(key("dna_mode") + " must be a string");
        r.dna_mode = root["dna_mode"].get<std::string>();
        if (r.dna_mode != "auto_dna_tags" && r.dna_mode != "dna_tags" && r.dna_mode != "plain")
            throw Error(key("dna_mode") + " is \"" + visible_text(r.dna_mode, 40) + "\"; the recipes write auto_dna_tags, dna_tags or plain");
    }
    if (root.contains("rc_eval_average") && !root["rc_eval_average"].is_null()) {
        if (!root["rc_eval_average"].is_boolean()) throw Error(key("rc_eval_average") + " must be true or false");
        r.rc_average = root["rc_eval_average"].get<bool>();
    }
    auto count = [&](const char* k, int& out) {
        if (!root.contains(k) || root[k].is_null()) return;
        if (!root[k].is_number_integer() || root[k].get<int64_t>() < 0 || root[k].get<int64_t>() > (int64_t(1) << 30))
            throw Error(key(k) + " must be a whole number from 0, got " + root[k].dump());
        out = int(root[k].get<int64_t>());
    };
    count("max_length", r.max_length);
    count("truncate_to_multiple_of", r.truncate_to_multiple_of);
    // deepstarr's prepare_sequences keeps the case; malinois' and promoter_activity's upper-case.
    r.upper_case = !root.contains("truncate_to_multiple_of");
    r.unscale.assign(labels.size(), std::nullopt);
    const json* transform = root.contains("label_transform") && root["label_transform"].is_object() ? &root["label_transform"] : nullptr;
    const json* stats = root.contains("label_stats") && root["label_stats"].is_object() ? &root["label_stats"] : nullptr;
    for (size_t i = 0; i < labels.size(); ++i) {
        const std::string t = target_of(labels[i]);
        if (transform && transform->contains(t)) {  // malinois: {"K562": {"column", "center", "scale"}}
            const json& spec = (*transform)[t];
            const std::string where = file.string() + ": label_transform." + t;
            if (!spec.is_object() || !spec.contains("center") || !spec.contains("scale"))
                throw Error(where + " must hold center and scale");
            RegressionRecipe::Unscale u{t, finite_number(spec["center"], where + ".center"), finite_number(spec["scale"], where + ".scale")};
            if (!(u.scale > 0)) throw Error(where + ".scale must be positive, got " + spec["scale"].dump());
            r.unscale[i] = u;
        } else if (stats && stats->contains(t + "_mean") && stats->contains(t + "_std")) {  // promoter_activity
            const std::string where = file.string() + ": label_stats." + t;
            RegressionRecipe::Unscale u{t, finite_number((*stats)[t + "_mean"], where + "_mean"),
                                        finite_number((*stats)[t + "_std"], where + "_std")};
            if (!(u.scale > 0)) throw Error(where + "_std must be positive");
            r.unscale[i] = u;
        }
    }
    return r;
}

}  // namespace

RegressionRecipe find_regression_recipe(const fs::path& checkpoint_dir, const std::vector<std::string>& labels) {
    std::error_code ec;
    for (const fs::path& dir : {checkpoint_dir, checkpoint_dir.parent_path()}) {
        const fs::path file = dir / "run_config.json";
        if (!dir.empty() && fs::is_regular_file(file, ec)) return read_recipe(file, labels);
    }
    RegressionRecipe r;
    r.unscale.assign(labels.size(), std::nullopt);
    return r;
}

SequenceRegressor::SequenceRegressor(Model& model) : model_(model) {
    const ModelConfig& c = model.config();
    if (!c.sequence_head() || !model.checkpoint().weights().score)
        throw Error(c.path.parent_path().string() + ": not a sequence-regression checkpoint (its config.json's architectures are not "
                    "LlamaForSequenceClassification): a language model generates and scores; predictors are the fine-tuned "
                    "checkpoints of Carbon's recipes");
    recipe_ = find_regression_recipe(model.checkpoint().dir(), c.labels);
    const TensorView& s = *model.checkpoint().weights().score;
    const size_t H = size_t(c.hidden_size);
    score_.resize(c.labels.size() * H);
    for (size_t i = 0; i < score_.size(); ++i) score_[i] = double(load_as_f32(s.data, s.dtype, i));
}

size_t SequenceRegressor::pooled_index(std::span<const int32_t> ids, std::optional<int> pad_token_id) {
    // transformers: (arange(len) * (ids != pad)).argmax(-1): the last token that is not the pad,
    // 0 when every token is.
    if (!pad_token_id) return ids.empty() ? 0 : ids.size() - 1;
    for (size_t i = ids.size(); i-- > 0;)
        if (ids[i] != *pad_token_id) return i;
    return 0;
}

std::vector<int32_t> SequenceRegressor::tokens(std::string_view sequence, const std::string& name) const {
    // prepare_sequences: strip, upper-case (malinois, promoter_activity), cut to a multiple (deepstarr).
    size_t a = 0, b = sequence.size();
    while (a < b && std::isspace(static_cast<unsigned char>(sequence[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(sequence[b - 1]))) --b;
    std::string s(sequence.substr(a, b - a));
    if (recipe_.upper_case)
        for (char& ch : s) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    if (recipe_.truncate_to_multiple_of > 0) s.resize(s.size() - s.size() % size_t(recipe_.truncate_to_multiple_of));
    if (s.empty()) throw Error(name + ": no bases to predict from" + (sequence.empty() ? "" : " (after the recipe's trimming)"));
    const Tokenizer& tok = model_.tokenizer();
    std::vector<int32_t> ids = recipe_.dna_mode == "plain" ? tok.encode_text(s) : tok.encode_prompt("", s, true).ids;
    const size_t context = size_t(std::max(1, model_.config().max_position_embeddings));
    if (recipe_.max_length > 0 && ids.size() > size_t(recipe_.max_length))
        throw Error(name + ": " + std::to_string(s.size()) + " bases make " + std::to_string(ids.size()) + " tokens, more than the " +
                    std::to_string(recipe_.max_length) + " the recipe (" + recipe_.file.string() +
                    ", max_length) gave the model; it cut longer inputs, which would predict from part of the sequence: "
                    "predict from windows of at most that length instead");
    if (ids.size() > context)
        throw Error(name + ": " + std::to_string(ids.size()) + " tokens, more than the model's context of " + std::to_string(context));
    return ids;
}

std::vector<std::string> SequenceRegressor::outputs() const {
    const ModelConfig& c = model_.config();
    std::vector<std::string> out;
    for (size_t j = 0; j < c.labels.size(); ++j) out.push_back(recipe_.unscale[j] ? recipe_.unscale[j]->target : c.labels[j]);
    return out;
}

Predictions SequenceRegressor::predict(std::span<const std::string> sequences, std::span<const std::string> names, size_t batch,
                                       const PredictProgress& progress) {
    return predict_impl(nullptr, sequences, names, batch, progress);
}

Predictions SequenceRegressor::predict_near(std::string_view reference, std::span<const std::string> sequences,
                                            std::span<const std::string> names, size_t batch, const PredictProgress& progress) {
    return predict_impl(&reference, sequences, names, batch, progress);
}

Predictions SequenceRegressor::predict_impl(const std::string_view* reference, std::span<const std::string> sequences,
                                            std::span<const std::string> names, size_t batch, const PredictProgress& progress) {
    const ModelConfig& c = model_.config();
    const size_t n_out = c.labels.size(), H = size_t(c.hidden_size);
    Predictions p;
    p.outputs = outputs();
    for (size_t j = 0; j < n_out; ++j) {
        p.measured_units.push_back(bool(recipe_.unscale[j]));
        p.held_out.emplace_back();  // the checkpoint carries no held-out figures
    }
    // Every input tokenized (and checked) before the first forward pass.
    const size_t views = recipe_.rc_average ? 2 : 1;
    std::vector<std::vector<int32_t>> inputs =
        strand_inputs(sequences, names, views, [&](const std::string& s, const std::string& name) { return tokens(s, name); });
    for (auto& ids : inputs) ids.resize(pooled_index(ids, c.pad_token_id) + 1);  // the head reads the last row
    std::vector<double> raw(inputs.size() * n_out);
    Backend& be = model_.backend();
    std::optional<ForkedPasses> forked;
    if (reference && !inputs.empty()) {
        const std::string ref(*reference);
        std::vector<std::vector<int32_t>> views_of_ref = strand_inputs(
            std::span<const std::string>(&ref, 1), {}, views, [&](const std::string& s, const std::string&) { return tokens(s, "the reference"); });
        for (auto& ids : views_of_ref) ids.resize(pooled_index(ids, c.pad_token_id) + 1);
        forked.emplace(be, std::move(views_of_ref), false);
    }
    batch = std::max<size_t>(1, batch) * views;
    for (size_t b0 = 0; b0 < inputs.size(); b0 += batch) {
        const size_t b1 = std::min(inputs.size(), b0 + batch);
        ForwardOutput out;
        if (forked) {
            forked->run(inputs, b0, b1, out);
            p.tokens_forwarded = forked->tokens();
        } else {
            hidden_pass(be, inputs, b0, b1, false, out);
            for (size_t k = b0; k < b1; ++k) p.tokens_forwarded += inputs[k].size();
        }
        for (size_t k = b0; k < b1; ++k) {
            const float* h = out.row(k - b0);
            for (size_t j = 0; j < n_out; ++j) {
                double v = 0;
                for (size_t e = 0; e < H; ++e) v += score_[j * H + e] * double(h[e]);
                raw[k * n_out + j] = v;
            }
        }
        if (progress && !progress(b1 / views, sequences.size())) {
            p.cancelled = true;
            return p;
        }
    }
    p.values.assign(sequences.size(), std::vector<double>(n_out));
    for (size_t i = 0; i < sequences.size(); ++i)
        for (size_t j = 0; j < n_out; ++j) {
            double v = raw[i * views * n_out + j];
            if (views == 2) v = 0.5 * (v + raw[(i * views + 1) * n_out + j]);
            if (recipe_.unscale[j]) v = v * recipe_.unscale[j]->scale + recipe_.unscale[j]->center;
            p.values[i][j] = v;
        }
    return p;
}

}  // namespace carbon
