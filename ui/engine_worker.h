// EngineWorker: owns the carbon::Model and runs every engine call on its own QThread. The GUI
// reaches it only through queued signals; results come back as queued signals tagged with the
// request id, and the GUI drops those whose id is no longer current ("latest request wins").
#pragma once

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QPair>
#include <QString>
#include <QStringList>
#include <atomic>
#include <memory>

#include "carbon/fns_generate.h"

namespace carbon {
class Model;
}

Q_DECLARE_METATYPE(carbon::DesignRequest)
Q_DECLARE_METATYPE(carbon::Design)

namespace carbon::ui {

// What the model panel shows about a loaded model (built on the worker, read on the GUI thread).
struct ModelSummary {
    QString dir;
    QList<QPair<QString, QString>> rows;  // label, value; in display order
    QString notice;                       // the engine's one-time backend notice, if any
    qint64 contextBases = 0;              // max_position_embeddings * 6
};

class EngineWorker : public QObject {
    Q_OBJECT
public:
    explicit EngineWorker(QObject* parent = nullptr);
    ~EngineWorker() override;

    // Thread-safe (called directly from the GUI thread while a run blocks the worker's event
    // loop): every request with an id <= upTo stops at its next progress callback.
    void cancel(quint64 upTo);

public slots:
    void loadModel(const QString& dir);
    void generate(quint64 requestId, const carbon::DesignRequest& request);

signals:
    void modelLoaded(const carbon::ui::ModelSummary& summary);
    void modelFailed(const QString& dir, const QString& error);
    void progress(quint64 requestId, qint64 basesDone, qint64 basesTotal, double basesPerSecond);
    void designReady(quint64 requestId, const carbon::Design& design);
    void finished(quint64 requestId, bool cancelled, const QStringList& notices);
    void failed(quint64 requestId, const QString& error);

private:
    std::unique_ptr<carbon::Model> model_;
    std::atomic<quint64> cancelledUpTo_{0};
};

// Registers the engine types used in queued signals (call once before connecting).
void registerEngineMetaTypes();

}  // namespace carbon::ui

Q_DECLARE_METATYPE(carbon::ui::ModelSummary)
