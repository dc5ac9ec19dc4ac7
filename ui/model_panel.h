// ModelPanel: choose a model folder (dialog or a remembered recent one), ask for it to be loaded
// and show what the engine detected or the carbon::Error text when it does not load.
#pragma once

#include <QWidget>

#include "engine_worker.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QPushButton;

namespace carbon::ui {

class ModelPanel : public QWidget {
    Q_OBJECT
public:
    explicit ModelPanel(QWidget* parent = nullptr);
    QStringList recentFolders() const;

public slots:
    void chooseFolder();  // QFileDialog, then loadRequested
    void setLoading(const QString& dir);
    void showSummary(const carbon::ui::ModelSummary& summary);
    void showError(const QString& dir, const QString& error);

signals:
    void loadRequested(const QString& dir);

private:
    void rememberFolder(const QString& dir);
    void clearDetails();

    QComboBox* recent_;
    QPushButton* open_;
    QPushButton* load_;
    QLabel* status_;
    QFormLayout* details_;
};

}  // namespace carbon::ui
