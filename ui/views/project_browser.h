// ProjectBrowser: the open project's sequences and runs as a tree (the project dock). Opening a
// sequence loads it into the editor; activating a run shows its designs in the designs table (a
// variant effect run: its variants in the Variant Effects dock).
#pragma once

#include <QWidget>

#include "workers/project_types.h"

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace carbon::ui {

class ProjectBrowser : public QWidget {
    Q_OBJECT
public:
    explicit ProjectBrowser(QWidget* parent = nullptr);
    QTreeWidget* tree() const { return tree_; }

public slots:
    void showProject(const carbon::ui::ProjectSnapshot& snapshot);
    void showNoProject();
    void addSequences(const QList<carbon::storage::SequenceRecord>& sequences);
    void addRun(const carbon::storage::Run& run, int designs);
    void setCurrentSequence(qint64 id);  // shown in bold
    void updateSequenceLength(qint64 id, qint64 length);
    void setVariants(qint64 sequenceId, const QList<carbon::storage::VariantRecord>& variants);
    // Every variant row of the project (imported and scored), in the header beside its name.
    void setVariantCount(qint64 variants);

signals:
    void openSequence(qint64 id);
    void showRun(qint64 runId);  // 0: every run
    void openVepRun(qint64 runId);  // a "vep" run: its variants in the Variant Effects dock
    void openVariant(qint64 sequenceId, qint64 position, char alt);

private:
    QTreeWidgetItem* sequenceItem(const carbon::storage::SequenceRecord& s);
    QTreeWidgetItem* runItem(const carbon::storage::Run& r, int designs);
    QTreeWidgetItem* findSequence(qint64 id) const;
    void updateCounts();

    QLabel* header_;
    QString projectName_;
    QTreeWidget* tree_;
    QTreeWidgetItem* sequences_ = nullptr;
    QTreeWidgetItem* runs_ = nullptr;
    qint64 current_ = 0;
};

}  // namespace carbon::ui
