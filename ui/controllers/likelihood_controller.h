// LikelihoodController: keeps the per-base likelihood of the edited sequence up to date. After an
// edit it waits briefly (typing coalesces), then sends a rescore request with a fresh id to the
// EngineWorker; older requests are superseded there and their late results dropped here
// ("latest request wins"). GUI thread only.
#pragma once

#include <QObject>
#include <QTimer>
#include <QVector>

#include "workers/analysis_types.h"

namespace carbon::ui {

class EngineWorker;
class SequenceDocument;

class LikelihoodController : public QObject {
    Q_OBJECT
public:
    LikelihoodController(SequenceDocument* doc, EngineWorker* worker, QObject* parent = nullptr);

    bool isEnabled() const { return enabled_; }
    bool isBusy() const { return pending_ != 0; }
    // The newest result and whether it still matches the document (no edit since it was asked).
    const ScoreTrack& score() const { return score_; }
    bool isCurrent() const { return score_ && current_; }
    quint64 latestRequest() const { return latest_; }
    quint64 latestDelivered() const { return delivered_; }
    void setDebounceMs(int ms) { debounce_.setInterval(ms); }

public slots:
    void setEnabled(bool on);
    void setModelReady(bool ready);
    void requestNow();  // skips the debounce
    void cancel();

signals:
    void trackReady(quint64 requestId);     // score() is new and current
    void logpChanged(const QVector<float>& logp);  // for the editor's band (empty: none)
    void busyChanged(bool busy);
    void progress(qint64 done, qint64 total);
    void message(const QString& text);

private:
    void onDocumentChanged();
    void onRescored(quint64 id, const ScoreTrack& track, qint64 recomputedTokens);
    void onEnded(quint64 id);  // cancelled or failed

    SequenceDocument* doc_;
    EngineWorker* worker_;
    QTimer debounce_;
    bool enabled_ = true, modelReady_ = false, current_ = false;
    quint64 latest_ = 0, delivered_ = 0, pending_ = 0;
    ScoreTrack score_;
};

// The ids of analysis requests: one sequence for rescoring, variants and mutagenesis, so that
// every request a worker sees is unique.
quint64 nextAnalysisId();

}  // namespace carbon::ui
