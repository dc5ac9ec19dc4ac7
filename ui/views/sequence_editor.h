// SequenceEditor: a custom-painted, wrapping view of a SequenceDocument (bases as coloured
// letters, a ruler above every line, the features above the ruler as labelled arrows in lanes,
// optional 6-mer token boundaries). Only visible lines are
// painted and layout is arithmetic on the line width, so a 1 Mbp sequence scrolls like a 1 kbp
// one. Edits go through the document's QUndoStack as InsertBases/RemoveBases/ReplaceBasesCommand.
#pragma once

#include <QAbstractScrollArea>
#include <QByteArray>
#include <QVector>

#include "document/sequence_document.h"
#include "views/feature_style.h"

class QUndoStack;

namespace carbon::ui {

class SequenceEditor : public QAbstractScrollArea {
    Q_OBJECT
public:
    // Edits are pushed on the document's own undo stack.
    explicit SequenceEditor(SequenceDocument* doc, QWidget* parent = nullptr);

    SequenceDocument* document() const { return doc_; }

    // Selection as the half-open span [selectionStart, selectionEnd); empty when they are equal
    // (then both are the cursor, a gap between bases 0..size()).
    qsizetype selectionStart() const { return std::min(anchor_, cursor_); }
    qsizetype selectionEnd() const { return std::max(anchor_, cursor_); }
    bool hasSelection() const { return anchor_ != cursor_; }
    qsizetype cursorPosition() const { return cursor_; }
    int basesPerLine() const { return basesPerLine_; }
    bool showTokenBoundaries() const { return showTokens_; }
    const QVector<float>& likelihood() const { return logp_; }
    // Colour of the likelihood band for log p(base): red below chance (p < 1/4), blue above.
    static QColor likelihoodColor(float logp);

    // Fill colour of a region span painted behind the bases (translucent, so letters stay readable).
    static QColor regionColor(Region::Kind kind);

    // How the model reads the 6-mer token holding base `pos` (tokens start at multiples of 6 from
    // the sequence start, as the tokenizer cuts it): Oov when it holds a base other than A/C/G/T
    // (the whole token becomes <oov>), Padded for the last, incomplete token (filled with A to six
    // bases), else None. Flagged under the letters while token boundaries are shown, and told
    // in the tooltip.
    enum class TokenFlag { None, Oov, Padded };
    TokenFlag tokenFlagAt(qsizetype pos) const;

    QSize sizeHint() const override;

    // Transcription-factor hits framed around their bases (solid: + strand, dashed: -), named in
    // the tooltip; sorted by start. Cleared by an edit (the caller rescans).
    struct MotifFrame {
        qsizetype start = 0, end = 0;
        char strand = '+';
        QString label;
    };
    void setMotifFrames(QVector<MotifFrame> frames);
    const QVector<MotifFrame>& motifFrames() const { return motifFrames_; }
    // The edits an optimiser made (an evolution round opened into the document): each base boxed
    // in orange, `label` ("A>G, round 3") in the tooltip. Cleared by the next edit.
    struct EditMark {
        qsizetype position = 0;
        QString label;
    };
    void setEditMarks(QVector<EditMark> marks);
    const QVector<EditMark>& editMarks() const { return editMarks_; }

    // The feature track: lanes of the drawn features (feature_style.h), and the region whose bar
    // is at `p` (-1: none). A click on a bar selects that part of the feature.
    const FeatureLanes& featureLanes() const { return lanes_; }
    int featureAt(QPoint p) const;
    // The first and one past the last base of the lines in view (the sequence map's window).
    qsizetype firstVisibleBase() const;
    qsizetype endVisibleBase() const;

public slots:
    void setSelection(qsizetype start, qsizetype end);  // cursor ends at `end`
    void selectAll();
    void copy();
    void copyReverseComplement();
    void cut();
    void paste();
    void deleteSelection();
    // Replaces the selection (or inserts at the cursor) with bases, as one undo step.
    void insertBases(const QByteArray& bases);
    // Selects the next match of an IUPAC pattern after the cursor (wrapping); false if none.
    bool findNext(const QString& pattern);
    // Pushes an AddRegionCommand for the selection (no-op without one).
    void addRegionFromSelection(Region::Kind kind);
    // Pushes a RemoveRegionCommand for the region under the cursor; false if there is none.
    bool removeRegionAtCursor();
    // Moves region `index` to [start, end) as one undoable step (the context menu's "Move to the
    // Selection").
    void setRegionSpan(qsizetype index, qsizetype start, qsizetype end);
    void setShowTokenBoundaries(bool on);
    void scrollToPosition(qsizetype pos);
    // Scrolls so that the line of `pos` is in the middle of the view (the sequence map's click).
    void centreOn(qsizetype pos);
    // Per-base log p painted as a thin band under the letters (NaN: no value; empty: no band).
    // Edits shift it so the old values stay under their bases until the rescore arrives.
    void setLikelihood(const QVector<float>& logp);

signals:
    void selectionChanged(qsizetype start, qsizetype end);
    void visibleRangeChanged();  // scrolled, resized or relaid out
    void motifFramesChanged();
    void baseClicked(qsizetype position);  // a plain click on a base (for the inspector)

protected:
    void paintEvent(QPaintEvent* event) override;
    bool viewportEvent(QEvent* event) override;  // tooltips for flagged tokens
    void resizeEvent(QResizeEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void focusInEvent(QFocusEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    void onDocumentChanged(qsizetype pos, qsizetype removed, qsizetype added);
    void relayout();
    void updateFeatureLanes();
    void moveCursor(qsizetype pos, bool extend);
    qsizetype lineCount() const;
    int xOfColumn(int column) const;  // left edge of the base at `column` in a line
    qsizetype positionAt(QPoint p) const;
    qsizetype baseAt(QPoint p) const;  // the base under p, -1 outside the letters

    SequenceDocument* doc_;
    QUndoStack* undo_;  // the document's
    qsizetype anchor_ = 0, cursor_ = 0;
    bool showTokens_ = false;
    QVector<MotifFrame> motifFrames_;
    QVector<EditMark> editMarks_;  // by position
    qsizetype longestFrame_ = 0;
    QVector<float> logp_;
    FeatureLanes lanes_;
    static constexpr int kMaxLanes = 6;
    // Layout in pixels, recomputed on resize and font change.
    int charWidth_ = 8, baseHeight_ = 16, rulerHeight_ = 12, rowHeight_ = 32, laneHeight_ = 14, trackHeight_ = 0;
    int gutterWidth_ = 60, groupGap_ = 6;
    int basesPerLine_ = 60;
};

}  // namespace carbon::ui
