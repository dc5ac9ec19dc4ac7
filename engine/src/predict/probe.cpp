// Predicting with a probe and its held-out report (carbon/predict/probe.h); the fit is
// probe_fit.cpp, the JSON form probe_json.cpp.
#include "carbon/predict/probe.h"

#include <cmath>

#include "carbon/support/common.h"
#include "report_number.h"

namespace carbon {


std::string Probe::held_out(size_t c) const {
    const ProbeCondition& k = conditions.at(c);
    return "held-out Pearson r " + report_fixed(k.pearson, 2) + " [" + report_fixed(k.pearson_ci.first, 2) + ", " + report_fixed(k.pearson_ci.second, 2) +
           "], Spearman " + report_fixed(k.spearman, 2) + ", n " + std::to_string(k.n) + " (" + std::to_string(folds) + "-fold)";
}

ProbePredictor::ProbePredictor(Model& model, Probe probe) : model_(model), probe_(std::move(probe)) {
    const std::string dir = model.checkpoint().dir().string();
    if (size_t(model.config().hidden_size) != probe_.hidden_size)
        throw Error("the predictor was fitted on embeddings of width " + std::to_string(probe_.hidden_size) + " (" + probe_.model_path +
                    "); the model at " + dir + " has hidden_size " + std::to_string(model.config().hidden_size));
    const std::string fp = model_fingerprint(model.checkpoint().dir());
    if (fp != probe_.model_fingerprint)
        throw Error("the predictor was fitted on the model at " + probe_.model_path + " (" + probe_.model_fingerprint + "); the model at " +
                    dir + " has other weights or tokenizer (" + fp +
                    "), whose embeddings mean something else: load the model it was fitted on, or fit it again on this one");
}

std::vector<std::string> ProbePredictor::outputs() const {
    std::vector<std::string> out;
    for (const ProbeCondition& c : probe_.conditions) out.push_back(c.name);
    return out;
}

Predictions ProbePredictor::predict(std::span<const std::string> sequences, std::span<const std::string> names, size_t batch,
                                    const PredictProgress& progress) {
    SequenceEmbedder embedder(model_, probe_.embedding);
    return from_embeddings(embedder.embed(sequences, names, batch, progress));
}

Predictions ProbePredictor::predict_near(std::string_view reference, std::span<const std::string> sequences,
                                         std::span<const std::string> names, size_t batch, const PredictProgress& progress) {
    SequenceEmbedder embedder(model_, probe_.embedding);
    return from_embeddings(embedder.embed_near(reference, sequences, names, batch, progress));
}

Predictions ProbePredictor::from_embeddings(const Embeddings& e) const {
    Predictions p;
    const std::string weights_note = model_.weights() == probe_.weights ? std::string()
                                                                          : ", measured with " + probe_.weights +
                                                                                " weights; these predictions use " + model_.weights();
    for (size_t c = 0; c < probe_.conditions.size(); ++c) {
        p.outputs.push_back(probe_.conditions[c].name);
        p.measured_units.push_back(true);
        p.held_out.push_back(probe_.held_out(c) + weights_note);
    }
    p.tokens_forwarded = e.tokens_forwarded;
    if (e.cancelled) {
        p.cancelled = true;
        return p;
    }
    const size_t n = e.width ? e.values.size() / e.width : 0;
    p.values.assign(n, std::vector<double>(probe_.conditions.size()));
    for (size_t i = 0; i < n; ++i)
        for (size_t c = 0; c < probe_.conditions.size(); ++c) p.values[i][c] = probe_.conditions[c].ridge.predict(e.row(i));
    return p;
}

}  // namespace carbon
