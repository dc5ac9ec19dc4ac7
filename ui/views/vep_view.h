// VepView: a whole-VCF variant effect result (carbon-cli vep) in the desktop application: a
// sortable table of every (variant, alt) with its scores and status, filtered by status and by
// text (contig, ID, alleles or CHROM:POS), and a plot of the window deltas along the contig of the
// selected row (not-scored variants are not plotted). Activating a row (double-click, Enter) or a
// point asks for the variant's window in the editor. While the application scores a VCF against
// the project (Score Variants) a progress bar with a Stop button shows above the table.
#pragma once

#include <QWidget>

#include "vep_result.h"

class QChartView;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QScatterSeries;
class QTableView;

namespace carbon::ui {

class VepView : public QWidget {
    Q_OBJECT
public:
    explicit VepView(QWidget* parent = nullptr);
    void setResult(VepResult result);
    // What an action says (progress, a failure, an export's files): a line of its own under the
    // summary, which keeps saying which result is shown; "" hides it. A new result clears it.
    void setMessage(const QString& text);
    QString summary() const;
    QString message() const;
    // A Score Variants run in progress: the bar and its Stop button show while `running`.
    void setRunning(bool running);
    void setProgress(qint64 done, qint64 total);
    bool isRunning() const;
    const VepTableModel* model() const { return model_; }
    VepFilterProxy* proxy() const { return proxy_; }
    QTableView* table() const { return table_; }
    QComboBox* statusFilter() const { return status_; }
    // The contig the plot shows, and how many points it holds.
    QString plottedContig() const { return plotted_; }
    int plottedPoints() const;
    // Selects the row (source index) in the table and the plot.
    void selectRow(int sourceRow);

signals:
    void variantActivated(const carbon::storage::VepRow& row);
    void stopRequested();
    // Export for a Genome Browser: the shown stored run's scores as bigWig with an IGV session.
    void browserExportRequested(qint64 runId);

private:
    void plotContig(const QString& contig);
    void onCurrentChanged();

    VepTableModel* model_;
    VepFilterProxy* proxy_;
    QTableView* table_;
    QLineEdit* text_;
    QComboBox* status_;
    QLabel* summary_;  // which result the dock shows: kept while messages come and go
    QLabel* message_;  // what the last action said (scoring, reading, an export), under the summary
    QWidget* runRow_;
    QProgressBar* runProgress_;
    QPushButton* stop_;
    QPushButton* browser_;  // Export for a genome browser (a stored run only)
    qint64 runId_ = 0;      // the stored run shown (0: a TSV, or nothing)
    QChartView* chart_;
    QScatterSeries* points_ = nullptr;
    QScatterSeries* current_ = nullptr;
    QVector<int> pointRows_;  // source row of each plotted point
    QString plotted_;
};

}  // namespace carbon::ui
