// The Choose Diverse Designs dialog (the Designs table's Choose Diverse…): how many designs to
// choose among the stored designs the table shows (discarded ones left out), what ranks them (a
// design column or a predicted output), an optional threshold, the distance (Hamming or edit,
// both strands) and the near-duplicate distance, and the name the choice is stored under. Checked
// as typed (no name; a name taken unless Replace is ticked; fewer candidates than one); the choice
// itself is runs::choose_designs on the project's thread, as carbon-cli select --project runs it.
#pragma once

#include <QDialog>

#include "carbon/runs/design_choice.h"
#include "views/checked_form.h"
#include "workers/project_types.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace carbon::ui {

class ChooseDesignsDialog : public QDialog {
    Q_OBJECT
public:
    // `candidates`: the stored designs' ids; `scores`: what may rank them (design columns first,
    // then "PREDICTOR:OUTPUT" of the predictions shown); `selections`: the project's (names taken).
    ChooseDesignsDialog(const QList<qint64>& candidates, const QStringList& scores, const SelectionList& selections,
                        QWidget* parent = nullptr);

    carbon::runs::DesignChoiceRequest request() const;

    QLineEdit* nameEdit() const { return name_; }
    QCheckBox* replaceCheck() const { return replace_; }
    QSpinBox* countSpin() const { return count_; }
    QComboBox* scoreCombo() const { return score_; }
    QCheckBox* minScoreCheck() const { return useMinScore_; }
    QDoubleSpinBox* minScoreSpin() const { return minScore_; }
    QComboBox* distanceCombo() const { return distance_; }
    QSpinBox* minDistanceSpin() const { return minDistance_; }
    QLabel* problemLabel() const { return foot_.problem; }
    QPushButton* okButton() const { return foot_.ok; }

private:
    void update();

    QList<qint64> candidates_;
    SelectionList selections_;
    QLineEdit* name_;
    QCheckBox* replace_;
    QSpinBox* count_;
    QComboBox* score_;
    QCheckBox* useMinScore_;
    QDoubleSpinBox* minScore_;
    QComboBox* distance_;
    QSpinBox* minDistance_;
    CheckedFoot foot_;
};

}  // namespace carbon::ui
