// EngineWorker::fitPredictor: a predictor fitted to the user's measurements on the engine thread,
// with runs::fit_predictor (what carbon-cli predictor fit runs), so the application's predictor is
// the command line's for the same table, model and settings.
#include <algorithm>
#include <string_view>

#include "carbon/model.h"
#include "carbon/predict/design_map.h"
#include "carbon/predict/embedder.h"
#include "carbon/predict/probe.h"
#include "engine_worker.h"

#if defined(CARBON_HAVE_LAPACK)
#include "carbon/runs/predictor_fit.h"
#endif

namespace carbon::ui {

void EngineWorker::fitPredictor(quint64 requestId, const MeasurementTablePtr& table, const QString& pool, bool reverseComplement,
                                int folds) {
    if (!model_) return emit analysisFailed(requestId, tr("No model is loaded: open the model to fit on first."));
    if (isAnalysisCancelled(requestId, false)) return emit analysisCancelled(requestId);
#if defined(CARBON_HAVE_LAPACK)
    try {
        runs::PredictorFitRequest r;
        r.recipe.pool = EmbeddingRecipe::parse_pool(pool.toStdString(), "embedding");
        r.recipe.rc_average = reverseComplement;
        r.options.folds = size_t(std::max(2, folds));
        const ScoreProgress report = analysisCallback(requestId, false);
        const runs::PredictorFit fit = runs::fit_predictor(*model_, *table, r, [&](const char* stage, size_t done, size_t total) {
            // Progress in sequences embedded; the ridge fits after them take a moment more.
            return std::string_view(stage) == "embedding" ? report(done, total) : !isAnalysisCancelled(requestId, false);
        });
        if (fit.cancelled || !fit.probe) return emit analysisCancelled(requestId);
        emit predictorFitted(requestId, std::make_shared<const Probe>(*fit.probe), fit.embedding_seconds, fit.fitting_seconds);
    } catch (const std::exception& e) {
        emit analysisFailed(requestId, QString::fromUtf8(e.what()));
    }
#else
    (void)table, (void)pool, (void)reverseComplement, (void)folds;
    emit analysisFailed(requestId, tr("This build has no LAPACK, which fitting a predictor needs (Debian: libopenblas-dev)."));
#endif
}

void EngineWorker::predictSequences(quint64 requestId, const ProbePtr& probe, const QList<QByteArray>& sequences) {
    if (!model_) return emit analysisFailed(requestId, tr("No model is loaded: open the model the predictor was fitted on first."));
    if (isAnalysisCancelled(requestId, false)) return emit analysisCancelled(requestId);
    try {
        ProbePredictor predictor(*model_, *probe);
        std::vector<std::string> seqs, names;
        for (qsizetype i = 0; i < sequences.size(); ++i) {
            seqs.push_back(sequences[i].toStdString());
            names.push_back("design " + std::to_string(i + 1));
        }
        const Predictions p = predictor.predict(seqs, names, 16, analysisCallback(requestId, false));
        if (p.cancelled) return emit analysisCancelled(requestId);
        QList<QList<double>> values;
        for (const std::vector<double>& row : p.values) values.append(QList<double>(row.begin(), row.end()));
        emit sequencesPredicted(requestId, values);
    } catch (const std::exception& e) {
        emit analysisFailed(requestId, QString::fromUtf8(e.what()));
    }
}

void EngineWorker::mapDesigns(quint64 requestId, const QList<QByteArray>& sequences, int k) {
    if (!model_) return emit analysisFailed(requestId, tr("No model is loaded: open the model to embed the designs with first."));
    if (isAnalysisCancelled(requestId, false)) return emit analysisCancelled(requestId);
    try {
        SequenceEmbedder embedder(*model_, EmbeddingRecipe{});
        std::vector<std::string> seqs, names;
        for (qsizetype i = 0; i < sequences.size(); ++i) {
            seqs.push_back(sequences[i].toStdString());
            names.push_back("design " + std::to_string(i + 1));
        }
        auto e = std::make_shared<Embeddings>(embedder.embed(seqs, names, 16, analysisCallback(requestId, false)));
        if (e->cancelled) return emit analysisCancelled(requestId);
        auto out = std::make_shared<DesignMapResult>();
        out->map = project_designs(*e);
        out->clusters = cluster_designs(*e, size_t(std::max(1, k)));
        out->embedding = tr("%1 embeddings, %2 strand, of %3")
                             .arg(QString::fromStdString(embedder.recipe().pool_name()), QString::fromStdString(embedder.recipe().strands_name()),
                                  QString::fromStdString(model_->checkpoint().dir().filename().string()));
        out->embeddings = std::move(e);
        emit designsMapped(requestId, out);
    } catch (const std::exception& e) {
        emit analysisFailed(requestId, QString::fromUtf8(e.what()));
    }
}

void EngineWorker::clusterDesigns(quint64 requestId, const EmbeddingsPtr& embeddings, int k) {
    if (isAnalysisCancelled(requestId, false)) return emit analysisCancelled(requestId);
    const Clustering c = cluster_designs(*embeddings, size_t(std::max(1, k)));
    emit designsClustered(requestId, QList<int>(c.cluster.begin(), c.cluster.end()));
}

}  // namespace carbon::ui
