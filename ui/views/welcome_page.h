// WelcomePage: what a first run shows in the centre of the window. Three columns: start (the
// sample project, new / open / recent projects), getting a Carbon model (the folder layout, the
// Hugging Face download command, snapshots already in the Hugging Face cache, the backend this
// build runs on), and a five-minute walkthrough of one design and one variant comparison on the
// sample project. It only emits requests; the window passes them to the controllers.
#pragma once

#include <QStringList>
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace carbon::ui {

class WelcomePage : public QWidget {
    Q_OBJECT
public:
    explicit WelcomePage(QWidget* parent = nullptr);

    // Model folders to offer (e.g. Hugging Face cache snapshots): display text and folder.
    void setModelFolders(const QList<QPair<QString, QString>>& folders);
    void setRecentProjects(const QStringList& paths);
    QPushButton* sampleButton() const { return sample_; }

signals:
    void openSampleRequested();
    void newProjectRequested();
    void openProjectRequested();
    void openRecentRequested(const QString& path);
    void openModelFolderRequested();
    void loadModelRequested(const QString& dir);
    void dismissed();

private:
    QPushButton* sample_;
    QListWidget* recent_;
    QListWidget* models_;
    QLabel* modelsEmpty_;
};

}  // namespace carbon::ui
