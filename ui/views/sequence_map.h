// SequenceMap: the whole sequence on one strip above the editor, as SnapGene's map shows it: a
// ruler at round positions, the features in lanes (labelled arrows where they have room; not
// `source`), the design region and pinned motifs on the backbone, the motif hits as ticks under
// it, and the part of the sequence the editor shows as a frame. A click or a drag scrolls the
// editor there; the tooltip names the feature under the pointer.
#pragma once

#include <QWidget>

#include "views/feature_style.h"

namespace carbon::ui {

class SequenceDocument;
class SequenceEditor;

class SequenceMap : public QWidget {
    Q_OBJECT
public:
    SequenceMap(SequenceDocument* doc, SequenceEditor* editor, QWidget* parent = nullptr);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    // Pixel x of base position `pos` (0..size) and the base at x, in the strip's current width.
    double xOf(qsizetype pos) const;
    qsizetype positionAt(double x) const;
    // The window frame as painted (the editor's visible bases), for tests.
    QRectF windowFrame() const;
    // The region drawn at p (-1: none).
    int featureAt(QPoint p) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    void relayout();
    void scrollEditorTo(double x);

    SequenceDocument* doc_;
    SequenceEditor* editor_;
    FeatureLanes lanes_;
    static constexpr int kMaxLanes = 4;
    int margin_ = 8, rulerHeight_ = 14, laneHeight_ = 12, backboneY_ = 0;
};

}  // namespace carbon::ui
