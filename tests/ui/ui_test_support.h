// Small fixtures shared by the UI tests, the screenshot tool and the GUI benchmark.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QString>
#include <cmath>
#include <stdexcept>
#include <string>

#include "carbon/model.h"
#include "carbon/predict/probe.h"
#include "carbon/runs/predictor_fit.h"
#include "carbon/runs/predictor_records.h"
#include "carbon/storage/measurements.h"
#include "carbon/storage/project.h"
#include "carbon/test_support/test_model.h"

namespace ui_test {

// The start of a window test: settings in test mode (the user's own are never read or written)
// and a tiny random checkpoint (make_test_model's defaults) made in `dir`/`name`; its folder, or
// "" when `dir` could not be made.
inline QString startWithTinyModel(const QTemporaryDir& dir, const char* name = "tiny") {
    QStandardPaths::setTestModeEnabled(true);
    if (!dir.isValid()) return {};
    const QString model = dir.filePath(QString::fromLatin1(name));
    carbon::make_test_model(model.toStdString(), {});
    return model;
}

// n random A/C/G/T bases from a fixed seed.
inline QByteArray randomBases(qsizetype n, quint32 seed) {
    QRandomGenerator rng(seed);
    QByteArray s(n, 'A');
    for (auto& c : s) c = "ACGT"[rng.bounded(4)];
    return s;
}

// Writes `data` to `path` (replacing it); false when the file cannot be written.
inline bool writeFile(const QString& path, const QByteArray& data) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(data) == data.size();
}

// A project file at `path` holding one sequence, `name`, of n random bases from `seed`; returns path.
inline QString projectWithSequence(const QString& path, const char* name, qsizetype n, quint32 seed) {
    auto p = carbon::storage::Project::open(path.toStdString());
    carbon::storage::SequenceRecord s;
    s.name = name;
    s.bases = randomBases(n, seed).toStdString();
    p->add_sequence(s);
    return path;
}

// A predictor of two conditions (K562: GC count / 10, HepG2: cos(i)) fitted on the model at
// `modelDir` to 30 random 60-bp sequences (the table written to `tablePath`), stored in the
// project at `projectPath` under `name` as carbon-cli predictor fit --project stores one; returned.
inline carbon::Probe storeFittedPredictor(const QString& projectPath, const QString& modelDir, const QString& tablePath,
                                          const std::string& name) {
    QByteArray text = "sequence\tK562\tHepG2\n";
    for (int i = 0; i < 30; ++i) {
        const QByteArray s = randomBases(60, quint32(300 + i));
        text += s + "\t" + QByteArray::number(double(s.count('G') + s.count('C')) / 10.0) + "\t" + QByteArray::number(std::cos(double(i))) +
                "\n";
    }
    if (!writeFile(tablePath, text)) throw std::runtime_error("cannot write " + tablePath.toStdString());
    const carbon::storage::MeasurementTable table = carbon::storage::read_measurement_table(tablePath.toStdString());
    auto model = carbon::Model::load(modelDir.toStdString());
    carbon::runs::PredictorFitRequest r;
    r.recipe.pool = carbon::EmbeddingPool::Both;
    const carbon::runs::PredictorFit fit = carbon::runs::fit_predictor(*model, table, r);
    if (!fit.probe) throw std::runtime_error("the fit was cancelled");
    auto p = carbon::storage::Project::open(projectPath.toStdString());
    p->add_predictor(carbon::runs::predictor_record(*fit.probe, name));
    return *fit.probe;
}

}  // namespace ui_test
