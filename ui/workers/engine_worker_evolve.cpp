// EngineWorker::evolve: directed evolution of the design region on the engine thread, with the
// engine's evolve() (what carbon-cli evolve runs) under the Generation panel's constraints.
#include <QThread>
#include <algorithm>
#include <optional>
#include <set>

#include "carbon/model.h"
#include "carbon/predict/evolution.h"
#include "carbon/predict/objective.h"
#include "carbon/predict/plausibility.h"
#include "carbon/predict/probe.h"
#include "carbon/predict/regressor.h"
#include "carbon/runs/run_settings.h"
#include "engine_worker.h"

namespace carbon::ui {

namespace {

// The settings an evolution stores: the request's constraints and tags (not its sampling or
// count: evolution does not sample designs), then the optimiser's.
runs::RunSettings evolutionSettings(const DesignRequest& request, const EvolutionRequest& er, const ObjectiveOrder& order) {
    static const std::set<std::string> kept = {"tags", "template", "max_homopolymer", "forbid", "gc_min", "gc_max",
                                               "forbidden_matrices", "required_matrices"};
    runs::RunSettings s;
    for (auto& [k, v] : runs::generation_settings(request))
        if (kept.count(k)) s.emplace_back(k, v);
    s.emplace_back("max_rounds", std::to_string(er.max_rounds));
    s.emplace_back("batch", std::to_string(er.batch));
    s.emplace_back("proposals", std::to_string(er.proposals));
    s.emplace_back("seed", std::to_string(er.seed));
    s.emplace_back("plausibility_weight", std::to_string(order.plausibility));
    return s;
}

}  // namespace

void EngineWorker::evolve(quint64 requestId, const DesignRequest& request, const QByteArray& start, const ObjectiveOrder& order) {
    if (!model_) return emit failed(requestId, tr("No model is loaded: open a model folder first."));
    if (requestId <= cancelledUpTo_.load()) return emit finished(requestId, true, {});  // cancelled while still queued
    try {
        std::unique_ptr<ProbePredictor> fitted;
        ActivityPredictor& predictor = activityPredictor(order.ref(), fitted);
        const std::vector<std::string> outputs = predictor.outputs();
        const Objective objective = Objective::parse(order.objective.toStdString(), outputs, "objective");
        DesignRequest dr = request;
        if (!dr.template_iupac.empty() && dr.template_iupac.size() != size_t(start.size()))
            return emit failed(requestId, tr("The template is %1 bases long but the region to evolve is %2: clear the template or "
                                             "mark a design region of its length.")
                                              .arg(dr.template_iupac.size()).arg(start.size()));
        dr.length = dr.template_iupac.empty() ? size_t(start.size()) : 0;
        dr.context_tokens = size_t(std::max(0, model_->config().max_position_embeddings));
        const DesignChecker checker(model_->tokenizer(), dr);
        EvolutionRequest er;
        er.start = start.toUpper().toStdString();
        er.budget = size_t(std::max(1, order.budget));
        er.max_rounds = size_t(std::max(0, order.rounds));
        er.proposals = size_t(std::max(0, order.proposals));
        er.seed = request.sampling.seed;
        // The plausibility term (and the proposals) under the run's tags, by the loaded model.
        std::optional<Plausibility> plausible;
        if (order.plausibility != 0 || er.proposals > 0) {
            plausible.emplace(*model_, dr.tags, order.plausibility);
            er.plausibility = &*plausible;
        }
        SignalThrottle throttle;
        EvolutionResult r = carbon::evolve(predictor, objective, checker, er, [&](size_t round, size_t done, size_t total) {
            if (throttle.due(done, total)) emit evolutionProgress(requestId, qint64(round), qint64(done), qint64(total));
            return runGoesOn(requestId);
        });
        if (r.cancelled) return emit finished(requestId, true, {});
        auto run = std::make_shared<EvolutionRun>();
        run->record.predictor = order.predictor.toStdString();
        run->record.outputs = outputs;
        run->record.held_out = r.held_out;
        run->record.objective = order.objective.toStdString();
        run->record.objective_described = objective.describe(outputs);
        run->record.budget = er.budget;
        if (plausible && order.plausibility != 0) run->record.plausibility_model = model_->checkpoint().dir().string();
        run->modelDir = model_->checkpoint().dir().string();
        run->backend = model_->backend().describe();
        run->settings = evolutionSettings(dr, er, order);
        const QString stopped = QString::fromStdString(r.stopped);
        const size_t rounds = r.rounds.empty() ? 0 : r.rounds.size() - 1;
        QStringList notices;
        notices << tr("evolved by %1 of predictor %2 (%3): %n round(s), objective %4 -> %5; stopped: %6", nullptr, int(rounds))
                       .arg(order.objective, order.predictor, QString::fromStdString(run->record.objective_described))
                       .arg(r.rounds.front().objective, 0, 'g', 6)
                       .arg(r.rounds.back().objective, 0, 'g', 6)
                       .arg(stopped);
        for (const std::string& n : checker.notices()) notices << QString::fromStdString(n);
        run->result = std::move(r);
        emit evolved(requestId, run);
        emit finished(requestId, false, notices);
    } catch (const std::exception& e) {
        emit failed(requestId, QString::fromUtf8(e.what()));
    }
}

}  // namespace carbon::ui
