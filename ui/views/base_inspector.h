// BaseInspector: the model's view of one base, from the latest likelihood track: its 4-way
// distribution (A C G T bars), entropy and each alternative's site log-odds; "Score variant"
// asks the worker for score_variant and shows the ref / alt tracks and their delta, and, with an
// activity predictor chosen, the predicted activity change per condition beside it (alternative
// minus reference, with the predictor's held-out accuracy).
#pragma once

#include <QWidget>
#include <array>

#include "workers/analysis_types.h"
#include "workers/project_types.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace carbon::ui {

class TrackChartView;

class BaseInspector : public QWidget {
    Q_OBJECT
public:
    explicit BaseInspector(QWidget* parent = nullptr);

    // Shows base `position` of `bases` with the marginals of `score` (must match `bases`).
    void showBase(qint64 position, const QByteArray& bases, const ScoreTrack& score);
    void selectAlternative(char alt);
    // The sequence the inspector describes, named in its header.
    void setSubject(const QString& sequence);
    // Nothing shown (another sequence was opened): the header says what to do.
    void clear();
    void showVariant(const VariantAnalysis& v);
    void setBusy(bool busy);
    void setProgress(qint64 done, qint64 total);
    void setMessage(const QString& text);
    // The activity predictors offered for Score Variant (the project's readable ones; "none" first).
    void setPredictors(const QList<StoredPredictor>& predictors);
    const StoredPredictor* chosenPredictor() const;  // null: none chosen
    qint64 activityWindow() const;                    // bases the predictor sees; 0: the whole sequence
    QComboBox* predictorCombo() const { return predictor_; }
    QString resultText() const;

    // What is shown, for tests: -1 when nothing.
    qint64 position() const { return position_; }
    std::array<double, 4> probabilities() const { return p_; }  // A, C, G, T
    double entropyBits() const { return entropy_; }
    double siteLogOdds(char alt) const;  // log p(ref) - log p(alt); NaN for the reference base
    char selectedAlternative() const;    // the base chosen for "Score variant"
    TrackChartView* chart() const { return chart_; }

signals:
    void scoreVariantRequested(qint64 position, char alt, qint64 windowBp);
    void cancelRequested();

private:
    qint64 position_ = -1;
    char ref_ = 0;
    std::array<double, 4> p_{};
    double entropy_ = 0;
    QString subject_;
    QLabel* header_;
    std::array<QProgressBar*, 4> bars_{};
    std::array<QLabel*, 4> odds_{};
    QLabel* entropyLabel_;
    QComboBox* alt_;
    QSpinBox* window_;
    QComboBox* predictor_;
    QSpinBox* activityWindow_;
    QList<StoredPredictor> predictors_;
    QPushButton* score_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    QLabel* result_;
    TrackChartView* chart_;
};

}  // namespace carbon::ui
