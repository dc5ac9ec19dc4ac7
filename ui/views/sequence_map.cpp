// SequenceMap (see sequence_map.h).
#include "sequence_map.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QTextDocument>
#include <QToolTip>
#include <cmath>

#include "document/sequence_document.h"
#include "views/round_ticks.h"
#include "views/sequence_editor.h"

namespace carbon::ui {

SequenceMap::SequenceMap(SequenceDocument* doc, SequenceEditor* editor, QWidget* parent) : QWidget(parent), doc_(doc), editor_(editor) {
    setAccessibleName(tr("Sequence map"));
    setAccessibleDescription(tr("The whole sequence: features, the design region, motif hits and the part shown in the editor"));
    setMouseTracking(false);
    setCursor(Qt::PointingHandCursor);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    connect(doc_, &SequenceDocument::regionsChanged, this, &SequenceMap::relayout);
    connect(doc_, &SequenceDocument::opened, this, &SequenceMap::relayout);
    connect(doc_, &SequenceDocument::changed, this, qOverload<>(&QWidget::update));
    connect(editor_, &SequenceEditor::visibleRangeChanged, this, qOverload<>(&QWidget::update));
    connect(editor_, &SequenceEditor::motifFramesChanged, this, qOverload<>(&QWidget::update));
    relayout();
}

void SequenceMap::relayout() {
    QFont small = font();
    small.setPointSizeF(font().pointSizeF() * 0.8);
    rulerHeight_ = QFontMetrics(small).height() + 4;
    laneHeight_ = QFontMetrics(small).height() + 2;
    lanes_ = assignFeatureLanes(doc_->regions(), kMaxLanes);
    backboneY_ = 4 + std::max(1, lanes_.count) * laneHeight_ + 4;
    updateGeometry();
    update();
}

QSize SequenceMap::sizeHint() const { return {400, backboneY_ + 8 + rulerHeight_ + 2}; }
QSize SequenceMap::minimumSizeHint() const { return {120, sizeHint().height()}; }

double SequenceMap::xOf(qsizetype pos) const {
    const qsizetype n = std::max<qsizetype>(doc_->size(), 1);
    return margin_ + double(width() - 2 * margin_) * double(pos) / double(n);
}

qsizetype SequenceMap::positionAt(double x) const {
    const double w = std::max(1, width() - 2 * margin_);
    return std::clamp<qsizetype>(qsizetype(std::floor((x - margin_) / w * double(doc_->size()))), 0, doc_->size());
}

QRectF SequenceMap::windowFrame() const {
    const double x0 = xOf(editor_->firstVisibleBase()), x1 = xOf(editor_->endVisibleBase());
    return QRectF(x0, 1, std::max(3.0, x1 - x0), height() - 2);
}

int SequenceMap::featureAt(QPoint p) const {
    const QList<Region>& rs = doc_->regions();
    const qsizetype pos = positionAt(p.x());
    const qsizetype slack = std::max<qsizetype>(1, qsizetype(3.0 * double(doc_->size()) / std::max(1, width() - 2 * margin_)));
    for (int i = int(rs.size()) - 1; i >= 0; --i) {
        const int lane = lanes_.laneOf.value(i, -1);
        if (lane < 0) continue;
        const int y = 4 + lane * laneHeight_;
        if (p.y() < y || p.y() >= y + laneHeight_) continue;
        if (pos + slack >= rs[i].start && pos - slack < std::max(rs[i].end, rs[i].start + 1)) return i;
    }
    return -1;
}

void SequenceMap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const qsizetype n = doc_->size();
    if (n == 0) return;
    QFont small = font();
    small.setPointSizeF(font().pointSizeF() * 0.8);
    p.setFont(small);
    const QColor text = palette().color(QPalette::Text), muted = palette().color(QPalette::Disabled, QPalette::Text);
    // The backbone, with the design region and pinned motifs on it.
    p.fillRect(QRectF(xOf(0), backboneY_ - 1, xOf(n) - xOf(0), 3), muted);
    for (const Region& r : doc_->regions()) {
        if (r.kind == Region::Kind::Annotation) continue;
        const QColor c = SequenceEditor::regionColor(r.kind);
        p.fillRect(QRectF(xOf(r.start), backboneY_ - 4, std::max(2.0, xOf(r.end) - xOf(r.start)), 9), QColor(c.red(), c.green(), c.blue(), 200));
    }
    // Motif hits: ticks under the backbone (+ strand up to it, - strand a dashed tick).
    p.setPen(QPen(QColor(0x8e, 0x44, 0xad), 1));
    for (const SequenceEditor::MotifFrame& f : editor_->motifFrames()) {
        const double x = xOf((f.start + f.end) / 2);
        p.drawLine(QPointF(x, backboneY_ + 3), QPointF(x, backboneY_ + 7));
    }
    // Features in lanes above the backbone.
    const QList<Region>& rs = doc_->regions();
    for (int i = 0; i < rs.size(); ++i) {
        const int lane = lanes_.laneOf.value(i, -1);
        if (lane < 0) continue;
        const Region& r = rs[i];
        const double x0 = xOf(r.start), x1 = std::max(xOf(std::max(r.end, r.start + 1)), x0 + 3);
        paintFeatureBar(p, QRect(int(x0), 4 + lane * laneHeight_, std::max(3, int(std::lround(x1 - x0))), laneHeight_ - 2), r, true, r.label);
    }
    // The ruler: round positions, 1-based.
    const int rulerTop = backboneY_ + 8;
    const double step = roundTickStep(1, double(n), std::max(2, (width() - 2 * margin_) / 90));
    p.setPen(muted);
    for (double v = step; v <= double(n) + 0.5; v += step) {
        const double x = xOf(qsizetype(v) - 1) + (xOf(1) - xOf(0)) / 2;
        p.drawLine(QPointF(x, rulerTop), QPointF(x, rulerTop + 3));
        const QString label = QLocale().toString(qlonglong(v));
        const int w = p.fontMetrics().horizontalAdvance(label);
        if (x - w / 2.0 >= 0 && x + w / 2.0 <= width()) p.drawText(QPointF(x - w / 2.0, rulerTop + 3 + p.fontMetrics().ascent()), label);
    }
    // What the editor shows.
    p.setPen(QPen(text, 1.5));
    p.setBrush(QColor(text.red(), text.green(), text.blue(), 25));
    p.drawRect(windowFrame());
}

void SequenceMap::scrollEditorTo(double x) { editor_->centreOn(positionAt(x)); }

void SequenceMap::mousePressEvent(QMouseEvent* e) {
    if (e->button() != Qt::LeftButton) return QWidget::mousePressEvent(e);
    scrollEditorTo(e->position().x());
}

void SequenceMap::mouseMoveEvent(QMouseEvent* e) {
    if (e->buttons() & Qt::LeftButton) scrollEditorTo(e->position().x());
}

bool SequenceMap::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const int f = featureAt(he->pos());
        if (f >= 0)
            QToolTip::showText(he->globalPos(), Qt::convertFromPlainText(featureTooltip(doc_->regions().at(f))), this);
        else
            QToolTip::showText(he->globalPos(), tr("Base %1: click to show it in the editor").arg(QLocale().toString(qlonglong(positionAt(he->pos().x()) + 1))), this);
        return true;
    }
    return QWidget::event(e);
}

}  // namespace carbon::ui
