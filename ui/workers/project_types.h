// Value types that carry project contents between the project store's thread and the GUI in
// queued signals (the GUI never touches SQLite itself, so a large write cannot freeze it).
#pragma once

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>
#include <cmath>
#include <memory>
#include <vector>

#include "carbon/generation/fns_generate.h"
#include "carbon/runs/generation_run.h"
#include "carbon/scoring/scoring.h"
#include "document/sequence_document.h"

namespace carbon::ui {

struct StoredSequence {
    qint64 id = 0;
    QString name, description, origin, modified;
    qint64 length = 0;
};

struct StoredRun {
    qint64 id = 0;
    QString kind, status, started, modelPath, backend;
    double basesPerSecond = 0;
    quint64 seed = 0;
    int designCount = 0;
    QList<QPair<QString, QString>> settings;
    QString setting(const QString& key) const {
        for (const auto& [k, v] : settings)
            if (k == key) return v;
        return {};
    }
};

struct StoredDesign {
    qint64 id = 0, runId = 0, sequenceId = 0;
    QString name, flag;  // flag: "", "starred" or "discarded"
    carbon::Design design;
    double minBaseLogp = std::nan("");
};

// A variant of a stored sequence as imported (a VCF panel); scored variants are run results.
struct StoredVariant {
    qint64 id = 0, sequenceId = 0;
    qint64 position = 0;  // 0-based
    char ref = 'N', alt = 'N';
    QString label;
};

// What the project browser and the designs table show of an open project.
struct ProjectSnapshot {
    QString path;
    QList<StoredSequence> sequences;
    QList<StoredRun> runs;
    QList<StoredDesign> designs;
    QList<StoredVariant> importedVariants;  // the first kMaxListedVariants of each sequence
    qint64 variants = 0;                    // every variant row, scored ones included
};
inline constexpr int kMaxListedVariants = 1000;

// A finished generation run (the engine thread's, shared: it crosses threads without a copy).
using GenerationRunPtr = std::shared_ptr<const carbon::runs::GenerationRun>;

// A finished generation to store (runs::write_generation_run, one transaction): the run, and
// where in the edited sequence its designs go.
struct RunToStore {
    quint64 requestId = 0;
    qint64 sequenceId = 0;  // the edited sequence the designs were made for (0: none stored)
    qint64 regionStart = 0, regionLength = 0;
    GenerationRunPtr run;
};

// Export formats offered by File > Export.
enum class ExportFormat { DesignsFasta, DesignsTsv, DesignsCsv, GenBank, BedGraph, Wig, SequencesFasta };

struct ExportRequest {
    ExportFormat format = ExportFormat::DesignsFasta;
    QString path;
    QList<qint64> designIds;  // designs to export (empty: all); GenBank/bedGraph/WIG use the first
    qint64 sequenceId = 0;    // bedGraph/WIG of a stored sequence's track instead of a design's
    QString trackKind = QStringLiteral("logp");
};

}  // namespace carbon::ui

Q_DECLARE_METATYPE(carbon::ui::ProjectSnapshot)
Q_DECLARE_METATYPE(carbon::ui::StoredSequence)
Q_DECLARE_METATYPE(carbon::ui::StoredRun)
Q_DECLARE_METATYPE(carbon::ui::StoredDesign)
Q_DECLARE_METATYPE(carbon::ui::StoredVariant)
Q_DECLARE_METATYPE(carbon::ui::RunToStore)
Q_DECLARE_METATYPE(carbon::ui::GenerationRunPtr)
Q_DECLARE_METATYPE(carbon::ui::ExportRequest)
