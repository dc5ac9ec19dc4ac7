// Small fixtures shared by the UI tests, the screenshot tool and the GUI benchmark.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QRandomGenerator>
#include <QString>

#include "carbon/storage/project.h"

namespace ui_test {

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

}  // namespace ui_test
