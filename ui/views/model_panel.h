// ModelPanel: the model manager. It lists model folders (those the user added, remembered in
// QSettings, and the snapshots in the Hugging Face cache), each described without loading it
// (parameters, context, dtype, size, memory needed, tokenizer check) or with the reason it does
// not load; folders are inspected on a pool thread, never on the GUI thread. The selected folder
// is loaded as the target or paired as the draft (speculative decoding); the loaded target's
// details and the draft's state are shown below. With no folder known it says how to get the
// Carbon weights. The Hugging Face cache is found from the environment at each scan
// (carbon::default_hf_hub_dir).
#pragma once

#include <QList>
#include <QWidget>

#include "carbon/model_catalog.h"
#include "workers/engine_worker.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace carbon::ui {

class ModelPanel : public QWidget {
    Q_OBJECT
public:
    explicit ModelPanel(QWidget* parent = nullptr);
    QStringList recentFolders() const;  // loaded or added by the user, most recent first
    QTreeWidget* folderList() const { return list_; }
    // "auto", "cpu" or "cuda": where loads run (remembered in QSettings, models/backend).
    QString backendChoice() const;
    // "native", "int8" or "q8_0": the weights a folder is loaded with, remembered per folder (QSettings
    // models/weights); the choice shown is the selected folder's.
    static QString weightsFor(const QString& dir);
    QComboBox* weightsCombo() const { return weights_; }
    // The inspected folders as last listed (added folders first, then the cache's snapshots).
    const QList<carbon::ModelFolderInfo>& folders() const { return infos_; }
    bool isScanning() const { return scanning_; }

public slots:
    void chooseFolder();  // QFileDialog, then the folder is added and loaded
    // QFileDialog for a GGUF file (llama.cpp's Carbon files: a repository may hold bf16 and Q8_0
    // side by side, so a folder alone would be ambiguous), then the file is added and loaded.
    void chooseFile();
    void addFolder(const QString& dir);  // remembered and listed (inspected in the background)
    void rescan();                       // the added folders and the Hugging Face cache again
    void setLoading(const QString& dir);
    void showSummary(const carbon::ui::ModelSummary& summary);
    void showError(const QString& dir, const QString& error);
    void setDraftLoading(const QString& dir);
    void showDraft(const carbon::ui::ModelSummary& summary);
    void showDraftError(const QString& dir, const QString& error);
    void showDraftCleared();

signals:
    void loadRequested(const QString& dir);
    void draftRequested(const QString& dir);
    void clearDraftRequested();
    void scanned();  // folders() is up to date
    void backendChanged(const QString& kind);
    void weightsChanged(const QString& dir, const QString& weights);  // the user chose for that folder

private:
    void rememberFolder(const QString& dir);
    void clearDetails();
    void setInfos(const QList<carbon::ModelFolderInfo>& infos);
    void showSelected();
    QString selectedDir() const;

    QTreeWidget* list_;
    QLabel* empty_;
    QLabel* selected_;
    QPushButton* add_;
    QPushButton* addFile_;
    QPushButton* rescan_;
    QPushButton* load_;
    QPushButton* draft_;
    QPushButton* clearDraft_;
    QLabel* status_;
    QLabel* draftStatus_;
    QComboBox* backend_;
    QComboBox* weights_;
    QLabel* gpu_;
    QFormLayout* details_;
    QList<carbon::ModelFolderInfo> infos_;
    QString hubDir_;  // the Hugging Face cache the last scan looked in
    bool scanning_ = false, rescanAgain_ = false;
};

// Text for a folder's description in the manager (also used by the welcome page's list).
QString describeModelFolder(const carbon::ModelFolderInfo& info);

}  // namespace carbon::ui
