// EngineWorker: model loading and design generation on the worker thread, progress throttled to
// a few signals per second so a fast model cannot flood the GUI's event queue.
#include "engine_worker.h"

#include <QElapsedTimer>
#include <QLocale>
#include <QThread>
#include <optional>

#include "carbon/model.h"
#include "carbon/model_catalog.h"
#include "carbon/predict/objective.h"
#include "carbon/predict/probe.h"
#include "carbon/predict/regressor.h"
#include "carbon/runs/generation_run.h"
#include "carbon/runs/objective_ranking.h"
#include "carbon/scoring/scoring.h"
#include "carbon/support/common.h"

namespace carbon::ui {

void registerEngineMetaTypes() {
    qRegisterMetaType<carbon::DesignRequest>();
    qRegisterMetaType<carbon::Design>();
    qRegisterMetaType<carbon::ui::ModelSummary>();
    qRegisterMetaType<carbon::ui::ScoreTrack>();
    qRegisterMetaType<carbon::ui::VariantAnalysis>();
    qRegisterMetaType<carbon::IsmResult>();
    qRegisterMetaType<carbon::ui::GenerationRunPtr>();
    qRegisterMetaType<carbon::ui::EvolutionRunPtr>();
    qRegisterMetaType<carbon::ui::VepRunRequest>();
    qRegisterMetaType<carbon::ui::VepRunDone>();
    qRegisterMetaType<carbon::ui::MeasurementTablePtr>();
    qRegisterMetaType<carbon::ui::ProbePtr>();
    qRegisterMetaType<carbon::ui::DesignMapPtr>();
    qRegisterMetaType<QList<int>>();
    qRegisterMetaType<QList<QByteArray>>();
    qRegisterMetaType<QList<QList<double>>>();
}

EngineWorker::EngineWorker(QObject* parent) : QObject(parent) { registerEngineMetaTypes(); }
EngineWorker::~EngineWorker() = default;

bool EngineWorker::runGoesOn(quint64 id) const {
    return id > cancelledUpTo_.load() && !QThread::currentThread()->isInterruptionRequested();
}

void EngineWorker::cancel(quint64 upTo) {
    quint64 cur = cancelledUpTo_.load();
    while (cur < upTo && !cancelledUpTo_.compare_exchange_weak(cur, upTo)) {
    }
}

ModelSummary EngineWorker::summarize(const QString& dir, carbon::Model& model) const {
    const ModelConfig& c = model.config();
    const Tokenizer& t = model.tokenizer();
    const MemoryPlan plan = model.backend().memory_plan();
    QLocale loc;
    auto mib = [&](double bytes) { return loc.toString(bytes / (1024.0 * 1024.0), 'f', 1) + QStringLiteral(" MiB"); };
    ModelSummary s;
    s.dir = dir;
    s.contextBases = qint64(c.max_position_embeddings) * 6;
    s.rows = {
        {tr("Parameters"), loc.toString(double(c.parameter_count()) / 1e6, 'f', 1) + QStringLiteral(" M")},
        {tr("Layers / hidden"), QStringLiteral("%1 / %2").arg(c.num_hidden_layers).arg(c.hidden_size)},
        {tr("Heads (KV)"), QStringLiteral("%1 (%2)").arg(c.num_attention_heads).arg(c.num_key_value_heads)},
        {tr("Context"), tr("%1 tokens (%2 bp)").arg(c.max_position_embeddings).arg(loc.toString(s.contextBases))},
        {tr("Dtype"),
         QString::fromLatin1(dtype_name(model.checkpoint().weights().dtype))},  // as stored, not as declared
        {tr("Vocabulary"), loc.toString(c.vocab_size)},
        {tr("DNA token ids"), tr("<dna> %1, </dna> %2, <oov> %3, 6-mers %4..%5")
                                  .arg(t.dna_open_id()).arg(t.dna_close_id()).arg(t.oov_id())
                                  .arg(t.kmer_id(0)).arg(t.kmer_id(kNumKmers - 1))},
        {tr("Backend"), QString::fromStdString(model.backend().describe())},
        {tr("Weights in memory"), mib(double(plan.weights))},
        {tr("KV cache per 1 kbp"), mib(double(plan.kv_per_token) * 1000.0 / 6.0)},
    };
    s.notice = QString::fromStdString(model.notice());
    s.backend = QString::fromStdString(model.backend().describe());
    s.parameters = c.parameter_count();
    return s;
}

void EngineWorker::setBackend(const QString& kind) {
    try {
        backend_ = carbon::parse_backend_kind(kind.toStdString());
    } catch (const std::exception&) {
        backend_ = carbon::BackendKind::Auto;  // a stale setting: the default
    }
}

void EngineWorker::loadModel(const QString& dir, const QString& weights) {
    // A folder that is not a model (config, tensor headers and tokenizer checked, nothing
    // loaded) is refused with the loaded model still loaded; only then are its weights freed
    // before the new ones are mapped (two models at once would not fit where one barely does).
    const ModelFolderInfo info = inspect_model_folder(dir.toStdString());
    if (!info.ok) return emit modelFailed(dir, QString::fromStdString(info.error), model_ != nullptr);
    try {
        scorer_.reset();  // it refers to the old backend
        model_.reset();
        carbon::ModelOptions o;
        o.backend = backend_;
        o.weights = weights.toStdString();
        model_ = carbon::Model::load(dir.toStdString(), o);
        emit modelLoaded(summarize(dir, *model_));
    } catch (const std::exception& e) {
        scorer_.reset();
        model_.reset();
        emit modelFailed(dir, QString::fromStdString(e.what()), false);
        return;
    }
    if (draft_) {  // the paired draft must suit the new target too
        try {
            check_draft_compatible(model_->tokenizer(), draft_->tokenizer());
        } catch (const std::exception& e) {
            draft_.reset();
            emit draftFailed(std::exchange(draftDir_, QString()), QString::fromStdString(e.what()));
        }
    }
}

void EngineWorker::loadDraft(const QString& dir) {
    try {
        draft_.reset();
        draftDir_.clear();
        carbon::ModelOptions o;
        o.backend = backend_;
        auto d = carbon::Model::load(dir.toStdString(), o);
        if (model_) check_draft_compatible(model_->tokenizer(), d->tokenizer());
        draft_ = std::move(d);
        draftDir_ = dir;
        emit draftLoaded(summarize(dir, *draft_));
    } catch (const std::exception& e) {
        emit draftFailed(dir, QString::fromStdString(e.what()));
    }
}

void EngineWorker::clearDraft() {
    draft_.reset();
    draftDir_.clear();
    emit draftCleared();
}

void EngineWorker::releaseCachedMemory() {
    if (model_) model_->backend().release_cached_memory();
    if (draft_) draft_->backend().release_cached_memory();
}

void EngineWorker::generate(quint64 requestId, const carbon::DesignRequest& request, double askAbove, const ObjectiveOrder& ranking) {
    if (!model_) {
        emit failed(requestId, tr("No model is loaded: open a model folder first."));
        return;
    }
    if (requestId <= cancelledUpTo_.load()) {  // cancelled while still queued
        emit finished(requestId, true, {});
        return;
    }
    SignalThrottle throttle;
    GenerationCallbacks callbacks;
    callbacks.progress = [&](const GenerationProgress& p) {
        if (throttle.due(p.bases_done, p.bases_total))
            emit progress(requestId, qint64(p.bases_done), qint64(p.bases_total), p.bases_per_second);
        return runGoesOn(requestId);
    };
    callbacks.on_design = [&](const Design& d) { emit designReady(requestId, d); };
    runs::GenerationRunOptions options;
    options.draft = draft_.get();  // the defaults of carbon-cli generate --draft
    // The predictor that ranks the run is the loaded model's (its fingerprint) and the objective
    // names its conditions: checked before any design is made, not after.
    ActivityPredictor* ranker = nullptr;
    std::unique_ptr<ProbePredictor> fitted;
    std::optional<Objective> objective;
    GenerationMemory memory;
    try {
        if (ranking.active()) {
            ranker = &activityPredictor(ranking.ref(), fitted);
            objective = Objective::parse(ranking.objective.toStdString(), ranker->outputs(), "objective");
        }
        memory = runs::generation_run_memory(*model_, request, options);
    } catch (const std::exception& e) {
        emit failed(requestId, QString::fromStdString(e.what()));
        return;
    }
    if (!memory.fits()) return emit failed(requestId, QString::fromStdString(memory_refusal(memory)));
    if (memory.need > askAbove * double(memory.available))
        return emit confirmationNeeded(requestId, request, memory.need, double(memory.available));
    emit planned(requestId, memory.need, double(memory.available));
    bool completed = false;
    try {
        auto run = std::make_shared<runs::GenerationRun>(runs::run_generation(
            *model_, request, options, callbacks, [](size_t, size_t) { return !QThread::currentThread()->isInterruptionRequested(); }));
        GenerationResult& r = run->result;
        QStringList notices;
        if (ranker && !r.cancelled && !r.designs.empty()) {
            runs::RankingRequest rr;
            rr.predictor_name = ranking.predictor.toStdString();
            rr.keep = size_t(std::max(0, ranking.keep));
            rr.plausibility_weight = ranking.plausibility;
            SignalThrottle rankThrottle;
            const bool ranked = runs::rank_by_objective(*run, *ranker, *objective, rr, [&](size_t done, size_t total) {
                if (rankThrottle.due(done, total)) emit rankingProgress(requestId, qint64(done), qint64(total));
                return runGoesOn(requestId);
            });
            if (!ranked) r.cancelled = true;  // nothing of a run cancelled while ranking is kept
            else
                notices << tr("ranked by %1 of predictor %2 (%3): %4 of %5 design(s) kept")
                               .arg(QString::fromStdString(run->ranking->objective), ranking.predictor,
                                    QString::fromStdString(run->ranking->objective_described))
                               .arg(run->ranking->kept)
                               .arg(run->ranking->proposed)
                        + (ranking.plausibility > 0 ? tr(", plus %1 x each design's mean log p").arg(ranking.plausibility) : QString());
        }
        for (const std::string& n : r.notices) notices << QString::fromStdString(n);
        const SpeculativeStats& ss = r.speculative;
        if (ss.used) {
            // Verification: identical (greedy, constraints: the target's own designs) or
            // distribution (speculative sampling: designs distributed as the target's).
            QString line =
                tr("speculative decoding (%1 verification) with %6: %2% of %3 drafted tokens accepted, "
                   "%4 tokens per target pass, %5")
                    .arg(QString::fromLatin1(speculative_verify_name(ss.verify)))
                    .arg(100.0 * ss.acceptance_rate(), 0, 'f', 1)
                    .arg(ss.drafted)
                    .arg(ss.tokens_per_target_pass(), 0, 'f', 2)
                    .arg(ss.speedup() > 0 ? tr("measured speed-up %1x").arg(ss.speedup(), 0, 'f', 2)
                                          : tr("speed-up not measured (no plain decode steps to compare with)"))
                    .arg(draftDir_);  // last: a path may hold '%'
            if (ss.disabled) line += tr("; switched off during the run: %1").arg(QString::fromStdString(ss.disabled_reason));
            notices << line;
        }
        completed = !r.cancelled;
        if (!r.cancelled && !r.designs.empty()) emit generated(requestId, run);
        emit finished(requestId, r.cancelled, notices);
    } catch (const std::exception& e) {
        emit failed(requestId, QString::fromStdString(e.what()));
    }
    // What a run leaves in the backends' reuse pools is given back after it when it was large, or
    // stopped part-way (a cancelled run's caches are the largest a user is surprised to keep).
    constexpr double kKeepBelow = 256.0 * 1024 * 1024;
    if (!completed || memory.need > kKeepBelow) releaseCachedMemory();
}

}  // namespace carbon::ui
