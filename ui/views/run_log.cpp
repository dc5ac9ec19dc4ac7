// RunLog: appends timestamped lines; the widget is read-only so the log is a record, not a note.
#include "run_log.h"

#include <QDateTime>
#include <cstdint>

#include "carbon/support/host_memory.h"

namespace carbon::ui {

RunLog::RunLog(QWidget* parent) : QPlainTextEdit(parent) {
    setReadOnly(true);
    setMaximumBlockCount(5000);
    setAccessibleName(tr("Run log"));
    // A log line wraps by words; narrower than about 30 characters it would wrap letter by letter.
    setMinimumWidth(fontMetrics().averageCharWidth() * 30);
}

void RunLog::log(const QString& line) {
    appendPlainText(QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) + QLatin1Char(' ') + line);
}

void RunLog::runStarted(quint64 id, const QString& settings) {
    nextMilestone_ = 25;
    lastBps_ = 0;
    log(tr("Run %1 started: %2").arg(id).arg(settings));
}

QString memoryPlanText(double need, double available) {
    const QString n = QString::fromStdString(human_bytes(need));
    if (available >= double(SIZE_MAX)) return RunLog::tr("its caches take about %1 of memory").arg(n);
    return RunLog::tr("its caches take about %1 of the %2 of memory available").arg(n, QString::fromStdString(human_bytes(available)));
}

void RunLog::runPlanned(quint64 id, double need, double available) {
    log(tr("Run %1: %2").arg(id).arg(memoryPlanText(need, available)));
}

void RunLog::runProgress(quint64 id, qint64 done, qint64 total, double bps) {
    if (total <= 0) return;
    lastBps_ = bps;
    const int percent = int(100 * done / total);
    if (percent < nextMilestone_ || nextMilestone_ > 100) return;
    while (nextMilestone_ <= percent) nextMilestone_ += 25;
    log(tr("Run %1: %2 % (%3 of %4 bp, %5 bp/s)").arg(id).arg(percent).arg(done).arg(total).arg(bps, 0, 'f', 1));
}

void RunLog::runFinished(quint64 id, bool cancelled, int designs, const QStringList& notices) {
    QString line = cancelled ? tr("Run %1 cancelled after %2 design(s): nothing stored; the next run takes its number").arg(id).arg(designs)
                   : lastBps_ > 0 ? tr("Run %1 finished: %2 design(s), %3 bp/s").arg(id).arg(designs).arg(lastBps_, 0, 'f', 1)
                                  : tr("Run %1 finished: %2 design(s)").arg(id).arg(designs);  // no bases generated (an evolution)
    if (!notices.isEmpty()) line += QStringLiteral("; ") + notices.join(QStringLiteral("; "));
    log(line);
}

void RunLog::runFailed(quint64 id, const QString& error) { log(tr("Run %1 ERROR: %2").arg(id).arg(error)); }

void RunLog::note(const QString& text) { log(text); }

}  // namespace carbon::ui
