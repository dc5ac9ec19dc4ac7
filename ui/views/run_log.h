// RunLog: the read-only "Run Log" dock text; one timestamped line per run start (settings),
// memory plan, progress milestone (every 25 %), finish (designs, bp/s, notices) and error.
#pragma once

#include <QPlainTextEdit>

namespace carbon::ui {

class RunLog : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit RunLog(QWidget* parent = nullptr);

    void runStarted(quint64 id, const QString& settings);
    // The run's memory plan as it starts (bytes its caches need, bytes available).
    void runPlanned(quint64 id, double need, double available);
    // Logs only when the run crosses the next 25 % milestone.
    void runProgress(quint64 id, qint64 done, qint64 total, double bps);
    void runFinished(quint64 id, bool cancelled, int designs, const QStringList& notices);
    void runFailed(quint64 id, const QString& error);
    void note(const QString& text);  // project events: opened, imported, stored, exported, errors

private:
    void log(const QString& line);

    int nextMilestone_ = 25;
    double lastBps_ = 0;
};

// "its caches take about 1.20 GiB of the 20.00 GiB of memory available" (the available part left
// out when the backend cannot tell).
QString memoryPlanText(double need, double available);

}  // namespace carbon::ui
