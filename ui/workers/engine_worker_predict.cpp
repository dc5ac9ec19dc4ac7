// EngineWorker::fitPredictor: a predictor fitted to the user's measurements on the engine thread,
// with runs::fit_predictor (what carbon-cli predictor fit runs), so the application's predictor is
// the command line's for the same table, model and settings.
#include <algorithm>
#include <string_view>

#include "carbon/model.h"
#include "carbon/predict/design_map.h"
#include "carbon/predict/embedder.h"
#include "carbon/predict/probe.h"
#include "carbon/predict/regressor.h"
#include "carbon/support/common.h"
#include <filesystem>
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

ActivityPredictor& EngineWorker::activityPredictor(const PredictorRef& ref, std::unique_ptr<ProbePredictor>& holder) {
    if (!ref.checkpoint.isEmpty()) {
        if (!regressor_ || regressorDir_ != ref.checkpoint) {
            regressor_.reset();  // one checkpoint kept at a time: the one before is freed first
            regressorModel_.reset();
            regressorDir_.clear();
            ModelOptions o;
            o.backend = backend_;
            std::unique_ptr<Model> m = Model::load(ref.checkpoint.toStdString(), o);
            auto r = std::make_unique<SequenceRegressor>(*m);  // Error when it is not a regression checkpoint
            regressorModel_ = std::move(m);
            regressor_ = std::move(r);
            regressorDir_ = ref.checkpoint;
        }
        return *regressor_;
    }
    if (!ref.probe) throw Error("no activity predictor was chosen");
    if (!model_) throw Error("no model is loaded: open the model the predictor was fitted on first");
    holder = std::make_unique<ProbePredictor>(*model_, *ref.probe);
    return *holder;
}

void EngineWorker::loadCheckpointPredictor(quint64 requestId, const QString& dir) {
    if (isAnalysisCancelled(requestId, false)) return emit analysisCancelled(requestId);
    try {
        std::unique_ptr<ProbePredictor> unused;
        SequenceRegressor& r = static_cast<SequenceRegressor&>(activityPredictor(PredictorRef{nullptr, dir}, unused));
        if (isAnalysisCancelled(requestId, false)) return emit analysisCancelled(requestId);  // cancelled while it loaded
        StoredPredictor p;
        const std::filesystem::path path = dir.toStdString();
        // The recipes save to OUTPUT/best_model: named by OUTPUT then.
        p.name = QString::fromStdString(path.filename() == "best_model" && path.has_parent_path() ? path.parent_path().filename().string()
                                                                                                   : path.filename().string());
        p.checkpoint = dir;
        for (const std::string& o : r.outputs()) p.labels << QString::fromStdString(o);
        const RegressionRecipe& recipe = r.recipe();
        QStringList units;
        for (size_t k = 0; k < recipe.unscale.size(); ++k)
            if (recipe.unscale[k]) units << QString::fromStdString(recipe.unscale[k]->target);
        p.note = recipe.file.empty()
                     ? tr("No run_config.json beside it or above: the outputs as the checkpoint gives them (scaled), <dna>SEQUENCE</dna>, "
                          "forward strand.")
                     : tr("Its recipe %1: %2, %3%4.")
                           .arg(QString::fromStdString(recipe.file.string()), QString::fromStdString(recipe.dna_mode),
                                recipe.rc_average ? tr("averaged with the reverse complement") : tr("forward strand"),
                                units.isEmpty() ? QString() : tr(", in the measured units of %1").arg(units.join(QStringLiteral(", "))));
        emit checkpointPredictorLoaded(requestId, p);
    } catch (const std::exception& e) {
        emit analysisFailed(requestId, QString::fromUtf8(e.what()));
    }
}

void EngineWorker::predictSequences(quint64 requestId, const PredictorRef& ref, const QList<QByteArray>& sequences) {
    if (!model_ && ref.checkpoint.isEmpty())
        return emit analysisFailed(requestId, tr("No model is loaded: open the model the predictor was fitted on first."));
    if (isAnalysisCancelled(requestId, false)) return emit analysisCancelled(requestId);
    try {
        std::unique_ptr<ProbePredictor> fitted;
        ActivityPredictor& predictor = activityPredictor(ref, fitted);
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
    try {
        const Clustering c = cluster_designs(*embeddings, size_t(std::max(1, k)));
        emit designsClustered(requestId, QList<int>(c.cluster.begin(), c.cluster.end()));
    } catch (const std::exception& e) {
        emit analysisFailed(requestId, QString::fromUtf8(e.what()));
    }
}

}  // namespace carbon::ui
