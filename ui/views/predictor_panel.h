// PredictorPanel: the activity predictors of the open project in the model manager's area. A list
// (name, conditions, each condition's held-out Pearson r), Fit from Measurements... and Predict
// Designs (the selected predictor over the designs table, or its selected rows) with a progress
// bar and Cancel while one runs, and the cross-validation report of the selected
// predictor: a condition chooser, the predicted-versus-measured plot (CvScatterView) and the
// predictor's warnings in words. No engine or project calls: PredictorController drives it.
#pragma once

#include <QList>
#include <QWidget>

#include "workers/project_types.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTreeWidget;

namespace carbon::ui {

class CvScatterView;

class PredictorPanel : public QWidget {
    Q_OBJECT
public:
    explicit PredictorPanel(QWidget* parent = nullptr);

    // The predictors listed (a project's, by name); `where` says whose ("lab.carbon", or that none is open).
    void setPredictors(const QList<StoredPredictor>& predictors, const QString& where);
    void addPredictor(const StoredPredictor& predictor);  // selects it
    int count() const;
    const QList<StoredPredictor>& predictors() const { return predictors_; }
    QString whereText() const;  // whose predictors are listed
    bool contains(const QString& name) const;
    QString selectedName() const;
    void select(const QString& name);
    CvScatterView* plot() const { return plot_; }
    QComboBox* conditions() const { return condition_; }
    QPushButton* fitButton() const { return fit_; }
    QPushButton* predictButton() const { return predict_; }
    QPushButton* loadButton() const { return load_; }
    // The selected predictor (null when none, or unreadable).
    const StoredPredictor* selected() const;

    void setRunning(bool running);
    bool isRunning() const { return running_; }
    // `what` the unit done: "sequences embedded" (a fit), "designs predicted" (Predict Designs).
    void setProgress(qint64 done, qint64 total, const QString& what);
    void setMessage(const QString& text);
    QString message() const;

signals:
    void fitRequested();
    void loadCheckpointRequested();  // a fine-tuned regression checkpoint as a predictor
    void predictRequested();  // the selected predictor over the designs table
    void cancelRequested();
    // The list changed (a project opened or closed, a predictor fitted): what generation can rank by.
    void predictorsChanged(const QList<carbon::ui::StoredPredictor>& predictors);

private:
    void showSelected();

    QLabel* where_;
    QTreeWidget* list_;
    QPushButton* fit_;
    QPushButton* predict_;
    QPushButton* load_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    QLabel* message_;
    QComboBox* condition_;
    CvScatterView* plot_;
    QLabel* warnings_;
    QList<StoredPredictor> predictors_;
    bool running_ = false;
};

}  // namespace carbon::ui
