// MotifController: transcription-factor matrices in the window. Edit > Scan Motifs loads a JASPAR /
// MEME / TRANSFAC file (on a pool thread: many matrices' score distributions take a moment) with a
// p-value threshold; the document is scanned on a pool thread after every load and, debounced,
// after edits, its hits framed in the editor; each design in the designs table gets its hits per
// matrix; the generation panel offers the matrices as constraints.
#pragma once

#include <QObject>
#include <memory>

class QMenu;
class QTimer;

namespace carbon::ui {

class DesignTableModel;
class GenerationPanel;
class MotifSet;
class SequenceDocument;
class SequenceEditor;
class WindowServices;

class MotifController : public QObject {
    Q_OBJECT
public:
    MotifController(SequenceDocument* doc, SequenceEditor* editor, DesignTableModel* designs, GenerationPanel* panel,
                    WindowServices* services, QObject* parent = nullptr);

    const std::shared_ptr<const MotifSet>& set() const { return motifs_; }
    // Edit > Scan Transcription-Factor Motifs…, Clear Motifs.
    void addEditActions(QMenu* edit);

public slots:
    void loadMotifs(const QString& path, double maxPvalue);
    void clearMotifs();

signals:
    void motifsScanned(int hits);  // the editor's frames are up to date

private:
    void rescan();
    void countDesigns(int first, int last);

    SequenceDocument* doc_;
    SequenceEditor* editor_;
    DesignTableModel* designs_;
    GenerationPanel* panel_;
    WindowServices* services_;
    std::shared_ptr<const MotifSet> motifs_;
    quint64 token_ = 0;  // the newest motif load or scan; older answers are dropped
    QTimer* rescan_;
};

}  // namespace carbon::ui
