// MotifController: transcription-factor matrices in the window. Edit > Scan Motifs loads a JASPAR /
// MEME / TRANSFAC file (on a pool thread: many matrices' score distributions take a moment) with a
// p-value threshold; the document is scanned on a pool thread after every load and, debounced,
// after edits, its hits framed in the editor; each design in the designs table gets its hits per
// matrix; the generation panel offers the matrices as constraints. Edit > Show Restriction Sites
// frames the sites of enzymes named from the built-in REBASE table (carbon/motifs/enzymes.h: EcoRI,
// BsaI...) the same way, on both strands, rescanned with the motifs.
#pragma once

#include <QObject>
#include <QStringList>
#include <QVector>
#include <memory>
#include <vector>

#include "views/sequence_editor.h"

namespace carbon {
struct Enzyme;
}

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

    // The enzymes whose sites are framed, as named.
    QStringList enzymeNames() const;

public slots:
    void loadMotifs(const QString& path, double maxPvalue);
    void clearMotifs();
    // Frames the sites of the enzymes named (comma- or blank-separated, REBASE spelling) in the
    // editor; "" clears them. Returns why when a name is not an enzyme of the table (with the
    // enzymes whose names differ only in case), and then changes nothing.
    QString showEnzymeSites(const QString& names);
    // Frames of where the sequence breaks a synthesis rule (SynthesisController), shown beside
    // the matrix hits and enzyme sites.
    void setSynthesisFrames(QVector<SequenceEditor::MotifFrame> frames);

signals:
    void motifsScanned(int hits);  // the editor's frames (matrix hits and enzyme sites) are up to date

private:
    void rescan();
    void scanEnzymes();  // the sites of enzymes_ in the document (a pool thread), then the frames
    void countDesigns(int first, int last);

    SequenceDocument* doc_;
    SequenceEditor* editor_;
    DesignTableModel* designs_;
    GenerationPanel* panel_;
    WindowServices* services_;
    std::shared_ptr<const MotifSet> motifs_;
    quint64 token_ = 0;  // the newest motif load or scan; older answers are dropped
    QTimer* rescan_;
    std::vector<const Enzyme*> enzymes_;  // whose sites are framed (the built-in table's)
    quint64 siteToken_ = 0;               // the newest site scan
    QVector<SequenceEditor::MotifFrame> motifFrames_, siteFrames_, synthesisFrames_;  // merged into the editor's frames
    void showFrames();
};

}  // namespace carbon::ui
