// EvolutionView: one directed-evolution run as the user follows it (issue 32's "evolution view"):
// above, which run, sequence and region it evolved, the objective and why it stopped; a plot of
// the objective per round (round 0 the start); below, every round with the edit that made it, its
// objective and each predicted output. Activating a round opens it into the document, its edits
// marked in the editor (the generation controller does that: openRound). Filled from the rounds'
// designs, so a run made in the window and one stored by carbon-cli evolve --project show alike.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

class QChartView;
class QLabel;
class QTreeWidget;

namespace carbon::ui {

class EvolutionView : public QWidget {
    Q_OBJECT
public:
    struct Round {
        int round = 0;  // 0: the start
        QString edit;   // "57A>G" (1-based position in the region); empty for the start
        double objective = 0;
        QList<double> values;  // per output of the view
    };

    explicit EvolutionView(QWidget* parent = nullptr);

    // Run `run` (as the window numbers it), its heading naming the sequence and region.
    void showRun(quint64 run, const QString& heading, const QStringList& outputs, const QList<Round>& rounds);
    // Nothing shown; the heading says `why` (empty: how to make an evolution).
    void clear(const QString& why = {});
    quint64 run() const { return run_; }
    QString heading() const;
    int roundCount() const { return int(rounds_.size()); }
    const QList<Round>& rounds() const { return rounds_; }
    int plottedPoints() const { return plotted_; }
    QTreeWidget* table() const { return table_; }

signals:
    void openRound(quint64 run, int round);

private:
    quint64 run_ = 0;
    QList<Round> rounds_;
    int plotted_ = 0;
    QLabel* heading_;
    QChartView* plot_;
    QTreeWidget* table_;
};

}  // namespace carbon::ui
