// CvScatterView: a fitted predictor's cross-validation report for one condition, as the user
// judges it: each measured sequence's held-out prediction against its measurement (predicted by
// the fold that did not see it), the diagonal where they would agree, and above the plot which
// predictor and condition it is with the held-out Pearson r and its 95% interval, Spearman, n and
// the predictor's warnings in words. Hovering a point names its sequence.
#pragma once

#include <QChartView>
#include <QStringList>

#include "carbon/predict/probe.h"

class QLabel;

namespace carbon::ui {

class CvScatterView : public QChartView {
    Q_OBJECT
public:
    explicit CvScatterView(QWidget* parent = nullptr);
    // Condition `condition` of `probe`, named `predictor` in the heading; nullptr clears the plot.
    void showCondition(const QString& predictor, const carbon::Probe* probe, int condition);
    int pointCount() const { return points_; }
    QString heading() const;

private:
    void clear();
    QLabel* readout_;
    QString heading_;
    int points_ = 0;
};

}  // namespace carbon::ui
