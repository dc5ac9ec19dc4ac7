// ObjectiveSection: the Generation panel's objective (issue 32's "objective section beside
// generation"). Ticked, a Run optimises an objective of one of the project's activity predictors:
// one condition's value, its MinGap specificity against the other conditions, or a weighted sum
// (the syntax of carbon-cli generate --objective), optionally with a plausibility term (W x the
// design's base-level mean log p under the run's tags). The optimiser: generate and rank (the
// run's designs predicted, the best K kept) or directed evolution of the design region (single-base
// edits, an edit budget, rounds, every allowed edit or N proposals drawn from the model). The
// predictor's held-out accuracy per condition is shown under the choice. No engine calls: the
// generation controller takes order() and runs it.
#pragma once

#include <QGroupBox>
#include <QList>

#include "workers/project_types.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace carbon::ui {

class ObjectiveSection : public QGroupBox {
    Q_OBJECT
public:
    explicit ObjectiveSection(QWidget* parent = nullptr);

    // The predictors offered (the project's, readable ones only); the choice is kept by name.
    void setPredictors(const QList<StoredPredictor>& predictors);
    int predictorCount() const;
    // What the next run is ranked by: inactive (no probe) when the section is not ticked; false
    // with a sentence naming the field when it is ticked but cannot rank (no predictor, an
    // objective that names no condition of the predictor).
    bool order(ObjectiveOrder& out, QString& error) const;

    QComboBox* predictorCombo() const { return predictor_; }
    QComboBox* objectiveCombo() const { return objective_; }
    QSpinBox* keepSpin() const { return keep_; }
    QDoubleSpinBox* plausibilitySpin() const { return plausibility_; }
    QComboBox* optimiserCombo() const { return optimiser_; }
    QSpinBox* budgetSpin() const { return budget_; }
    QSpinBox* roundsSpin() const { return rounds_; }
    QSpinBox* proposalsSpin() const { return proposals_; }
    QString accuracyText() const;

private:
    void showPredictor();
    void showOptimiser();  // the fields of the chosen optimiser only  // the objectives offered and the accuracy line of the chosen predictor
    const StoredPredictor* chosen() const;

    QList<StoredPredictor> predictors_;
    QComboBox* predictor_;
    QComboBox* objective_;
    QSpinBox* keep_;
    QDoubleSpinBox* plausibility_;
    QComboBox* optimiser_;
    QSpinBox* budget_;
    QSpinBox* rounds_;
    QSpinBox* proposals_;
    QLabel* accuracy_;
};

}  // namespace carbon::ui
