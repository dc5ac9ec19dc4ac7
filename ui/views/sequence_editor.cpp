// SequenceEditor painting, hit testing, keyboard/mouse handling and clipboard.
#include "sequence_editor.h"

#include <QApplication>
#include <cmath>
#include <limits>
#include <QClipboard>
#include <QFontDatabase>
#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <QScrollBar>
#include <QTextDocument>
#include <QUndoStack>

#include "carbon/fns/fns.h"
#include "document/commands/add_region_command.h"
#include "document/commands/insert_bases_command.h"
#include "document/commands/remove_bases_command.h"
#include "document/commands/remove_region_command.h"
#include "document/commands/replace_bases_command.h"
#include "document/sequence_document.h"
#include "theme.h"

namespace carbon::ui {

namespace {

constexpr int kGroup = 10;  // bases per ruler group; lines hold whole groups

}  // namespace

SequenceEditor::SequenceEditor(SequenceDocument* doc, QWidget* parent)
    : QAbstractScrollArea(parent), doc_(doc), undo_(doc->undoStack()) {
    setAccessibleName(tr("Sequence editor"));
    setAccessibleDescription(tr("The DNA sequence; type IUPAC letters to edit"));
    setFocusPolicy(Qt::StrongFocus);
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    font.setPointSizeF(std::max(10.0, font.pointSizeF()));
    setFont(font);
    viewport()->setCursor(Qt::IBeamCursor);
    viewport()->setAutoFillBackground(true);
    viewport()->setBackgroundRole(QPalette::Base);
    horizontalScrollBar()->setEnabled(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    connect(doc_, &SequenceDocument::changed, this, &SequenceEditor::onDocumentChanged);
    connect(doc_, &SequenceDocument::regionsChanged, this, &SequenceEditor::updateFeatureLanes);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, viewport(), qOverload<>(&QWidget::update));
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, &SequenceEditor::visibleRangeChanged);
    updateFeatureLanes();
}

void SequenceEditor::updateFeatureLanes() {
    lanes_ = assignFeatureLanes(doc_->regions(), kMaxLanes);
    relayout();
}

qsizetype SequenceEditor::firstVisibleBase() const { return std::min<qsizetype>(verticalScrollBar()->value() * basesPerLine_, doc_->size()); }

qsizetype SequenceEditor::endVisibleBase() const {
    const qsizetype lines = std::max(1, (viewport()->height() + rowHeight_ - 1) / rowHeight_);
    return std::min<qsizetype>((verticalScrollBar()->value() + lines) * basesPerLine_, doc_->size());
}

int SequenceEditor::featureAt(QPoint pt) const {
    if (lanes_.count == 0 || pt.y() < 0) return -1;
    const int within = pt.y() % rowHeight_;
    if (within >= trackHeight_) return -1;
    const int lane = within / laneHeight_;
    const qsizetype line = verticalScrollBar()->value() + pt.y() / rowHeight_;
    const int groupWidth = kGroup * charWidth_ + groupGap_;
    const int x = pt.x() - gutterWidth_;
    if (x < 0) return -1;
    const qsizetype pos = line * basesPerLine_ + std::min(basesPerLine_ - 1, x / groupWidth * kGroup + std::min(kGroup - 1, (x % groupWidth) / charWidth_));
    const QList<Region>& rs = doc_->regions();
    for (int i = int(rs.size()) - 1; i >= 0; --i)  // the last painted is on top
        if (lanes_.laneOf.value(i, -1) == lane && pos >= rs[i].start && pos < std::max(rs[i].end, rs[i].start + 1)) return i;
    return -1;
}

QSize SequenceEditor::sizeHint() const { return {gutterWidth_ + 6 * (kGroup * charWidth_ + groupGap_) + 30, 400}; }

qsizetype SequenceEditor::lineCount() const { return doc_->size() / basesPerLine_ + 1; }  // +1: cursor at the end

int SequenceEditor::xOfColumn(int column) const {
    return gutterWidth_ + (column / kGroup) * (kGroup * charWidth_ + groupGap_) + (column % kGroup) * charWidth_;
}

void SequenceEditor::relayout() {
    QFontMetrics fm(font());
    charWidth_ = fm.horizontalAdvance(QLatin1Char('M')) + 2;
    baseHeight_ = fm.height() + 2;
    QFont small = font();
    small.setPointSizeF(font().pointSizeF() * 0.75);
    rulerHeight_ = QFontMetrics(small).height() + 2;
    laneHeight_ = QFontMetrics(small).height() + 3;
    trackHeight_ = lanes_.count > 0 ? lanes_.count * laneHeight_ + 2 : 0;
    rowHeight_ = trackHeight_ + rulerHeight_ + baseHeight_ + 4;
    groupGap_ = charWidth_ / 2 + 2;
    const int digits = int(QString::number(std::max<qsizetype>(doc_->size(), 1000)).size());
    gutterWidth_ = QFontMetrics(small).horizontalAdvance(QString(digits + 1, QLatin1Char('9'))) + 8;
    const int groupWidth = kGroup * charWidth_ + groupGap_;
    const int groups = std::max(1, (viewport()->width() - gutterWidth_ - 4) / groupWidth);
    basesPerLine_ = groups * kGroup;
    const int visible = std::max(1, viewport()->height() / rowHeight_);
    verticalScrollBar()->setRange(0, int(std::max<qsizetype>(0, lineCount() - visible)));
    verticalScrollBar()->setPageStep(visible);
    verticalScrollBar()->setSingleStep(1);
    viewport()->update();
    emit visibleRangeChanged();
}

void SequenceEditor::resizeEvent(QResizeEvent* event) {
    QAbstractScrollArea::resizeEvent(event);
    relayout();
}

void SequenceEditor::paintEvent(QPaintEvent* event) {
    QPainter p(viewport());
    const QRect clip = event->rect();
    QFont small = font();
    small.setPointSizeF(font().pointSizeF() * 0.75);
    const qsizetype first = verticalScrollBar()->value();
    const qsizetype n = doc_->size();
    const char* bases = doc_->bases().constData();
    const qsizetype selA = selectionStart(), selB = selectionEnd();
    const bool darkBase = palette().color(QPalette::Base).lightness() < 128;  // dark theme: lighter letters
    const QColor rulerColor = palette().color(QPalette::Disabled, QPalette::Text);
    // Selected bases: a light tint of the highlight on a light background; on a dark one a deep
    // tint, so that the lightened letters keep their contrast.
    QColor selectionFill = palette().color(QPalette::Highlight);
    selectionFill = darkBase ? selectionFill.darker(170) : selectionFill.lighter(160);
    // Only lines that intersect the viewport: the cost is independent of the sequence length.
    for (qsizetype line = first + clip.top() / rowHeight_; line < lineCount(); ++line) {
        const int y = int(line - first) * rowHeight_;
        if (y > clip.bottom()) break;
        const qsizetype lineStart = line * basesPerLine_;
        const int columns = int(std::min<qsizetype>(basesPerLine_, n - lineStart));
        const int baseTop = y + trackHeight_ + rulerHeight_;
        // Ruler: the 1-based position of the line in the gutter, a tick and label per group.
        p.setFont(small);
        p.setPen(rulerColor);
        p.drawText(QRect(0, baseTop, gutterWidth_ - 6, baseHeight_), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(lineStart + 1));
        for (int g = 0; g < columns; g += kGroup) {
            const int x = xOfColumn(g);
            p.drawLine(x, baseTop - 3, x, baseTop - 1);
            if (g > 0 || line == 0)
                p.drawText(QPoint(x + 1, baseTop - 3), QString::number(lineStart + g + 1));
        }
        // Features above the ruler: a bar per part in its lane, the arrow head where it ends.
        const QList<Region>& regions = doc_->regions();
        for (int i = 0; i < regions.size() && lanes_.count > 0; ++i) {
            const int lane = lanes_.laneOf.value(i, -1);
            if (lane < 0) continue;
            const Region& r = regions[i];
            const qsizetype r0 = std::max(r.start, lineStart), r1 = std::min(std::max(r.end, r.start + 1), lineStart + columns);
            if (r1 <= r0) continue;
            const int x0 = xOfColumn(int(r0 - lineStart)), x1 = xOfColumn(int(r1 - 1 - lineStart)) + charWidth_;
            const bool pointEnd = r.reverse ? r.start >= lineStart : r.end <= lineStart + columns;
            p.setFont(small);
            paintFeatureBar(p, QRect(x0, y + 1 + lane * laneHeight_, x1 - x0, laneHeight_ - 2), r, pointEnd, r.label);
        }
        // Region spans (design region, pinned motifs), behind the selection and the letters.
        for (const Region& r : regions) {
            if (r.kind == Region::Kind::Annotation) continue;  // on the feature track
            const qsizetype r0 = std::max(r.start, lineStart), r1 = std::min(r.end, lineStart + columns);
            if (r1 <= r0) continue;
            const int x0 = xOfColumn(int(r0 - lineStart)), x1 = xOfColumn(int(r1 - 1 - lineStart)) + charWidth_;
            p.fillRect(x0, baseTop, x1 - x0, baseHeight_, regionColor(r.kind));
        }
        // Selection background.
        const qsizetype s0 = std::max(selA, lineStart), s1 = std::min(selB, lineStart + columns);
        if (s1 > s0) {
            for (qsizetype i = s0; i < s1; ++i) {
                const int c = int(i - lineStart);
                // One rectangle per base; including the group gap only within a group keeps gaps visible.
                const int w = (c % kGroup == kGroup - 1 || i + 1 == s1) ? charWidth_ : xOfColumn(c + 1) - xOfColumn(c);
                p.fillRect(xOfColumn(c), baseTop, w, baseHeight_, selectionFill);
            }
        }
        // 6-mer token boundaries: tokens start at multiples of 6 from the sequence start, as the
        // tokenizer cuts the context.
        if (showTokens_) {
            p.setPen(QPen(QColor(0x90, 0x60, 0xc0), 1));
            for (qsizetype i = ((lineStart + 5) / 6) * 6; i <= lineStart + columns; i += 6) {
                const int x = xOfColumn(int(i - lineStart)) - 1;
                p.drawLine(x, baseTop, x, baseTop + baseHeight_);
            }
            // Tokens the model does not read as written: <oov> (red bar) and the padded last
            // token (dashed orange bar), along the top of their bases on this line.
            for (qsizetype t = lineStart / 6 * 6; t < lineStart + columns; t += 6) {
                const TokenFlag f = tokenFlagAt(t);
                if (f == TokenFlag::None) continue;
                const qsizetype a = std::max(t, lineStart), b = std::min({t + 6, lineStart + columns, n});
                const int x0 = xOfColumn(int(a - lineStart)), x1 = xOfColumn(int(b - 1 - lineStart)) + charWidth_;
                p.setPen(QPen(f == TokenFlag::Oov ? QColor(0xd0, 0x20, 0x20) : QColor(0xe0, 0x80, 0x10), 2,
                              f == TokenFlag::Oov ? Qt::SolidLine : Qt::DashLine));
                p.drawLine(x0, baseTop + 1, x1, baseTop + 1);
            }
        }
        // Transcription-factor hits: a frame around their bases on this line.
        if (!motifFrames_.isEmpty()) {
            auto it = std::lower_bound(motifFrames_.begin(), motifFrames_.end(), lineStart - longestFrame_,
                                       [](const MotifFrame& f, qsizetype v) { return f.start < v; });
            for (; it != motifFrames_.end() && it->start < lineStart + columns; ++it) {
                const qsizetype a = std::max(it->start, lineStart), b = std::min(it->end, lineStart + columns);
                if (b <= a) continue;
                const int x0 = xOfColumn(int(a - lineStart)), x1 = xOfColumn(int(b - 1 - lineStart)) + charWidth_;
                p.setPen(QPen(QColor(0x8e, 0x44, 0xad), 1, it->strand == '+' ? Qt::SolidLine : Qt::DashLine));
                p.setBrush(Qt::NoBrush);
                p.drawRect(x0, baseTop + 1, x1 - x0 - 1, baseHeight_ - 2);
            }
        }
        // An optimiser's edits: an orange box around each edited base on this line.
        if (!editMarks_.isEmpty()) {
            auto it = std::lower_bound(editMarks_.begin(), editMarks_.end(), lineStart,
                                       [](const EditMark& m, qsizetype v) { return m.position < v; });
            p.setPen(QPen(QColor(0xe6, 0x55, 0x00), 2));
            p.setBrush(Qt::NoBrush);
            for (; it != editMarks_.end() && it->position < lineStart + columns; ++it) {
                const int x0 = xOfColumn(int(it->position - lineStart));
                p.drawRect(x0, baseTop + 1, charWidth_ - 1, baseHeight_ - 2);
            }
        }
        // The bases.
        p.setFont(font());
        for (int c = 0; c < columns; ++c) {
            const char b = bases[lineStart + c];
            p.setPen(darkBase ? baseColor(b).lighter(160) : baseColor(b));
            p.drawText(QRect(xOfColumn(c), baseTop, charWidth_, baseHeight_), Qt::AlignCenter, QString(QLatin1Char(b)));
        }
        // Likelihood band: in the gap under the letters, so it costs no layout space.
        if (!logp_.isEmpty()) {
            for (int c = 0; c < columns; ++c) {
                const qsizetype i = lineStart + c;
                if (i >= logp_.size() || std::isnan(logp_[i])) continue;
                p.fillRect(xOfColumn(c), baseTop + baseHeight_, charWidth_, 3, likelihoodColor(logp_[i]));
            }
        }
        // Cursor.
        if (hasFocus() && cursor_ >= lineStart && cursor_ <= lineStart + columns &&
            (cursor_ < lineStart + basesPerLine_ || cursor_ == n)) {
            const int c = int(cursor_ - lineStart);
            const int x = c == 0 ? xOfColumn(0) - 1 : (c % kGroup == 0 ? xOfColumn(c - 1) + charWidth_ : xOfColumn(c)) - 1;
            p.fillRect(x, baseTop, 2, baseHeight_, palette().color(QPalette::Text));
        }
    }
}

SequenceEditor::TokenFlag SequenceEditor::tokenFlagAt(qsizetype pos) const {
    const qsizetype n = doc_->size();
    if (pos < 0 || pos >= n) return TokenFlag::None;
    const qsizetype t = pos / 6 * 6;
    const char* b = doc_->bases().constData();
    for (qsizetype i = t; i < std::min(t + 6, n); ++i)
        if (b[i] != 'A' && b[i] != 'C' && b[i] != 'G' && b[i] != 'T') return TokenFlag::Oov;
    return t + 6 > n ? TokenFlag::Padded : TokenFlag::None;
}

bool SequenceEditor::viewportEvent(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(event);
        const int f = featureAt(he->pos());
        if (f >= 0) {  // names and values are the file's text: shown as text, never as markup
            QToolTip::showText(he->globalPos(), Qt::convertFromPlainText(featureTooltip(doc_->regions().at(f))), viewport());
            return true;
        }
    }
    if (event->type() == QEvent::ToolTip && showTokens_) {
        auto* he = static_cast<QHelpEvent*>(event);
        const qsizetype b = baseAt(he->pos());
        const TokenFlag f = b >= 0 ? tokenFlagAt(b) : TokenFlag::None;
        if (f != TokenFlag::None) {
            const qsizetype t = b / 6 * 6;
            QToolTip::showText(he->globalPos(),
                               f == TokenFlag::Oov
                                   ? tr("Bases %1–%2: a base other than A/C/G/T makes this whole 6-mer <oov> for the model")
                                         .arg(t + 1).arg(std::min(t + 6, doc_->size()))
                                   : tr("Bases %1–%2: the last 6-mer, padded with A to six bases; the padding is not scored")
                                         .arg(t + 1).arg(doc_->size()),
                               viewport());
            return true;
        }
        QToolTip::hideText();
    }
    if (event->type() == QEvent::ToolTip && !editMarks_.isEmpty()) {
        auto* he = static_cast<QHelpEvent*>(event);
        const qsizetype b = baseAt(he->pos());
        auto it = std::lower_bound(editMarks_.begin(), editMarks_.end(), b, [](const EditMark& m, qsizetype v) { return m.position < v; });
        if (b >= 0 && it != editMarks_.end() && it->position == b) {
            QToolTip::showText(he->globalPos(), Qt::convertFromPlainText(tr("Base %1: %2").arg(b + 1).arg(it->label)), viewport());
            return true;
        }
    }
    if (event->type() == QEvent::ToolTip && !motifFrames_.isEmpty()) {
        auto* he = static_cast<QHelpEvent*>(event);
        const qsizetype b = baseAt(he->pos());
        QStringList names;
        for (const MotifFrame& f : motifFrames_)
            if (b >= f.start && b < f.end) names << f.label;
        if (!names.isEmpty()) {
            QToolTip::showText(he->globalPos(), names.join(QLatin1Char('\n')), viewport());
            return true;
        }
        QToolTip::hideText();
    }
    return QAbstractScrollArea::viewportEvent(event);
}

qsizetype SequenceEditor::positionAt(QPoint pt) const {
    const qsizetype line = verticalScrollBar()->value() + std::max(0, pt.y()) / rowHeight_;
    const int groupWidth = kGroup * charWidth_ + groupGap_;
    const int x = pt.x() - gutterWidth_;
    int column = 0;
    if (x > 0) {
        const int g = x / groupWidth;
        const int within = std::min(kGroup, (x - g * groupWidth + charWidth_ / 2) / charWidth_);
        column = std::min(basesPerLine_, g * kGroup + within);
    }
    return std::clamp<qsizetype>(line * basesPerLine_ + column, 0, doc_->size());
}

void SequenceEditor::setSelection(qsizetype start, qsizetype end) {
    const qsizetype n = doc_->size();
    anchor_ = std::clamp<qsizetype>(start, 0, n);
    cursor_ = std::clamp<qsizetype>(end, 0, n);
    scrollToPosition(cursor_);
    viewport()->update();
    emit selectionChanged(selectionStart(), selectionEnd());
}

void SequenceEditor::moveCursor(qsizetype pos, bool extend) {
    const qsizetype a = extend ? anchor_ : pos;
    setSelection(a, pos);
}

void SequenceEditor::centreOn(qsizetype pos) {
    const qsizetype visible = std::max(1, viewport()->height() / rowHeight_);
    verticalScrollBar()->setValue(int(std::max<qsizetype>(0, pos / basesPerLine_ - visible / 2)));
}

void SequenceEditor::scrollToPosition(qsizetype pos) {
    const qsizetype line = pos / basesPerLine_;
    QScrollBar* bar = verticalScrollBar();
    if (line < bar->value()) bar->setValue(int(line));
    else if (line >= bar->value() + bar->pageStep()) bar->setValue(int(line - bar->pageStep() + 1));
}

void SequenceEditor::selectAll() { setSelection(0, doc_->size()); }

void SequenceEditor::copy() {
    if (hasSelection()) QApplication::clipboard()->setText(QString::fromLatin1(doc_->mid(selectionStart(), selectionEnd() - selectionStart())));
}

void SequenceEditor::copyReverseComplement() {
    if (!hasSelection()) return;
    const QByteArray s = doc_->mid(selectionStart(), selectionEnd() - selectionStart());
    const std::string rc = carbon::reverse_complement(std::string_view(s.constData(), size_t(s.size())));
    QApplication::clipboard()->setText(QString::fromStdString(rc));
}

void SequenceEditor::cut() {
    copy();
    deleteSelection();
}

void SequenceEditor::paste() { insertBases(SequenceDocument::normalizeBases(QApplication::clipboard()->text().toLatin1())); }

void SequenceEditor::deleteSelection() {
    if (!hasSelection()) return;
    const qsizetype a = selectionStart();
    undo_->push(new RemoveBasesCommand(doc_, a, selectionEnd() - a));
    setSelection(a, a);
}

void SequenceEditor::insertBases(const QByteArray& bases) {
    if (bases.isEmpty()) return;
    const qsizetype a = selectionStart();
    if (hasSelection()) undo_->push(new ReplaceBasesCommand(doc_, a, selectionEnd() - a, bases));
    else undo_->push(new InsertBasesCommand(doc_, a, bases));
    setSelection(a + bases.size(), a + bases.size());
}

bool SequenceEditor::findNext(const QString& pattern) {
    const QByteArray pat = pattern.trimmed().toLatin1();
    std::vector<BaseMask> masks;
    try {
        masks = carbon::parse_template(std::string_view(pat.constData(), size_t(pat.size())), "pattern");
    } catch (const std::exception&) {
        return false;
    }
    const qsizetype n = doc_->size(), m = qsizetype(masks.size());
    if (m == 0 || m > n) return false;
    const char* s = doc_->bases().constData();
    auto matches = [&](qsizetype i) {
        for (qsizetype j = 0; j < m; ++j)
            if ((iupac_mask(s[i + j]) & ~masks[size_t(j)]) != 0 || iupac_mask(s[i + j]) == 0) return false;
        return true;
    };
    // Start after the current match (or at the cursor) and wrap once around.
    const qsizetype from = hasSelection() ? selectionStart() + 1 : cursor_;
    for (qsizetype k = 0; k <= n - m; ++k) {
        const qsizetype i = (from + k) % (n - m + 1);
        if (matches(i)) {
            setSelection(i, i + m);
            return true;
        }
    }
    return false;
}

void SequenceEditor::setShowTokenBoundaries(bool on) {
    showTokens_ = on;
    viewport()->update();
}

void SequenceEditor::onDocumentChanged(qsizetype pos, qsizetype removed, qsizetype added) {
    // Keep the caret after the changed span (undo/redo land here too); callers that want a
    // particular selection set it after pushing their command.
    const qsizetype n = doc_->size();
    auto shift = [&](qsizetype x) { return x <= pos ? x : (x >= pos + removed ? x - removed + added : pos + added); };
    anchor_ = std::clamp<qsizetype>(shift(anchor_), 0, n);
    cursor_ = std::clamp<qsizetype>(shift(cursor_), 0, n);
    motifFrames_.clear();  // stale after an edit; the motif controller rescans
    editMarks_.clear();    // an optimiser's edits are those of the bases it opened, not of later ones
    if (!logp_.isEmpty() && pos <= logp_.size()) {
        // Changed bases have no value until the rescore; the rest keep theirs.
        logp_.remove(pos, std::min(removed, logp_.size() - pos));
        logp_.insert(pos, added, std::numeric_limits<float>::quiet_NaN());
    }
    relayout();
    emit selectionChanged(selectionStart(), selectionEnd());
}

void SequenceEditor::keyPressEvent(QKeyEvent* e) {
    const bool shift = e->modifiers() & Qt::ShiftModifier;
    const qsizetype n = doc_->size();
    if (e->matches(QKeySequence::Copy)) return copy();
    if (e->matches(QKeySequence::Cut)) return cut();
    if (e->matches(QKeySequence::Paste)) return paste();
    if (e->matches(QKeySequence::SelectAll)) return selectAll();
    switch (e->key()) {
        case Qt::Key_Left: return moveCursor(!shift && hasSelection() ? selectionStart() : std::max<qsizetype>(0, cursor_ - 1), shift);
        case Qt::Key_Right: return moveCursor(!shift && hasSelection() ? selectionEnd() : std::min(n, cursor_ + 1), shift);
        case Qt::Key_Up: return moveCursor(std::max<qsizetype>(0, cursor_ - basesPerLine_), shift);
        case Qt::Key_Down: return moveCursor(std::min(n, cursor_ + basesPerLine_), shift);
        case Qt::Key_PageUp: return moveCursor(std::max<qsizetype>(0, cursor_ - basesPerLine_ * verticalScrollBar()->pageStep()), shift);
        case Qt::Key_PageDown: return moveCursor(std::min(n, cursor_ + basesPerLine_ * verticalScrollBar()->pageStep()), shift);
        case Qt::Key_Home:
            return moveCursor(e->modifiers() & Qt::ControlModifier ? 0 : cursor_ - cursor_ % basesPerLine_, shift);
        case Qt::Key_End:
            return moveCursor(e->modifiers() & Qt::ControlModifier ? n : std::min(n, cursor_ - cursor_ % basesPerLine_ + basesPerLine_), shift);
        case Qt::Key_Backspace:
            if (hasSelection()) return deleteSelection();
            if (cursor_ > 0) {
                undo_->push(new RemoveBasesCommand(doc_, cursor_ - 1, 1));
                return setSelection(cursor_, cursor_);  // the document change already moved the caret
            }
            return;
        case Qt::Key_Delete:
            if (hasSelection()) return deleteSelection();
            if (cursor_ < n) undo_->push(new RemoveBasesCommand(doc_, cursor_, 1));
            return;
        default: break;
    }
    const QString text = e->text();
    if (text.size() == 1 && !(e->modifiers() & (Qt::ControlModifier | Qt::AltModifier))) {
        const QByteArray b = SequenceDocument::normalizeBases(text.toLatin1());
        if (!b.isEmpty()) return insertBases(b);
    }
    QAbstractScrollArea::keyPressEvent(e);
}

void SequenceEditor::mousePressEvent(QMouseEvent* e) {
    if (e->button() != Qt::LeftButton) return QAbstractScrollArea::mousePressEvent(e);
    const bool extend = e->modifiers() & Qt::ShiftModifier;
    if (const int f = extend ? -1 : featureAt(e->position().toPoint()); f >= 0) {  // a feature's bar: its bases
        const Region& r = doc_->regions().at(f);
        return setSelection(r.start, r.end);
    }
    // A plain click on a base is on that base, whichever half of it: the cursor goes before it,
    // so the status bar's position and the inspector's are the same base. Elsewhere (and to
    // extend a selection) the nearest gap between bases.
    const qsizetype b = extend ? -1 : baseAt(e->position().toPoint());
    moveCursor(b >= 0 ? b : positionAt(e->position().toPoint()), extend);
    if (b >= 0) emit baseClicked(b);
}

qsizetype SequenceEditor::baseAt(QPoint pt) const {
    const qsizetype line = verticalScrollBar()->value() + std::max(0, pt.y()) / rowHeight_;
    const int groupWidth = kGroup * charWidth_ + groupGap_;
    const int x = pt.x() - gutterWidth_;
    if (x < 0) return -1;
    const int g = x / groupWidth, within = (x - g * groupWidth) / charWidth_;
    if (within >= kGroup || g * kGroup + within >= basesPerLine_) return -1;  // in a gap or past the line
    const qsizetype i = line * basesPerLine_ + g * kGroup + within;
    return i < doc_->size() ? i : -1;
}

QColor SequenceEditor::regionColor(Region::Kind kind) {
    switch (kind) {
        case Region::Kind::Design: return QColor(0x30, 0xa0, 0xe0, 70);       // blue
        case Region::Kind::PinnedMotif: return QColor(0xe0, 0x40, 0xc0, 80);  // magenta
        case Region::Kind::Annotation: break;
    }
    return QColor(0xe0, 0xc0, 0x20, 80);  // yellow
}

void SequenceEditor::addRegionFromSelection(Region::Kind kind) {
    if (!hasSelection()) return;
    Region r;
    r.kind = kind;
    r.start = selectionStart();
    r.end = selectionEnd();
    r.label = kind == Region::Kind::Design ? tr("design region")
              : kind == Region::Kind::PinnedMotif ? tr("pinned motif") : tr("annotation");
    r.templ = doc_->mid(r.start, r.end - r.start);
    undo_->push(new AddRegionCommand(doc_, r));
}

bool SequenceEditor::removeRegionAtCursor() {
    qsizetype i = doc_->regionAt(cursor_);
    if (i < 0 && cursor_ > 0) i = doc_->regionAt(cursor_ - 1);
    if (i < 0) return false;
    undo_->push(new RemoveRegionCommand(doc_, i));
    return true;
}

void SequenceEditor::contextMenuEvent(QContextMenuEvent* event) {
    // Regions with the mouse: select bases, then mark them; on a region, remove it or move its
    // span to the selection (one undo step).
    const qsizetype b = baseAt(event->pos());
    const qsizetype i = b >= 0 ? doc_->regionAt(b) : -1;
    QMenu menu(this);
    if (hasSelection()) {
        const QString span = tr("%1–%2").arg(selectionStart() + 1).arg(selectionEnd());
        menu.addAction(tr("Mark %1 as Design Region").arg(span), this, [this] { addRegionFromSelection(Region::Kind::Design); });
        menu.addAction(tr("Pin %1 as Motif").arg(span), this, [this] { addRegionFromSelection(Region::Kind::PinnedMotif); });
        menu.addAction(tr("Annotate %1").arg(span), this, [this] { addRegionFromSelection(Region::Kind::Annotation); });
    }
    if (i >= 0) {
        if (!menu.isEmpty()) menu.addSeparator();
        const Region r = doc_->regions().at(i);
        menu.addAction(tr("Remove %1").arg(r.label), this, [this, i] { undo_->push(new RemoveRegionCommand(doc_, i)); });
        if (hasSelection())
            menu.addAction(tr("Move %1 to the Selection").arg(r.label), this, [this, i] { setRegionSpan(i, selectionStart(), selectionEnd()); });
    }
    if (menu.isEmpty()) return QAbstractScrollArea::contextMenuEvent(event);
    menu.exec(event->globalPos());
}

void SequenceEditor::setRegionSpan(qsizetype index, qsizetype start, qsizetype end) {
    if (index < 0 || index >= doc_->regions().size() || start >= end) return;
    Region r = doc_->regions().at(index);
    r.start = start;
    r.end = end;
    if (r.kind != Region::Kind::Design) r.templ = doc_->mid(start, end - start);
    undo_->beginMacro(tr("Move %1").arg(r.label));
    undo_->push(new RemoveRegionCommand(doc_, index));
    undo_->push(new AddRegionCommand(doc_, r));
    undo_->endMacro();
}

QColor SequenceEditor::likelihoodColor(float logp) {
    // Diverging around chance (log 1/4): t in [-1, 1] spans p from 1/16 to 1.
    const float chance = -1.3862944f;
    const float t = std::clamp((logp - chance) / 1.3862944f, -1.f, 1.f);
    const QColor mid(0xe8, 0xe8, 0xe8), lo(0xd7, 0x30, 0x27), hi(0x2c, 0x7b, 0xb6);
    const QColor& end = t < 0 ? lo : hi;
    const float a = std::abs(t);
    return QColor::fromRgbF(mid.redF() + a * (end.redF() - mid.redF()), mid.greenF() + a * (end.greenF() - mid.greenF()),
                            mid.blueF() + a * (end.blueF() - mid.blueF()));
}

void SequenceEditor::setEditMarks(QVector<EditMark> marks) {
    std::sort(marks.begin(), marks.end(), [](const EditMark& a, const EditMark& b) { return a.position < b.position; });
    editMarks_ = std::move(marks);
    viewport()->update();
}

void SequenceEditor::setMotifFrames(QVector<MotifFrame> frames) {
    motifFrames_ = std::move(frames);
    longestFrame_ = 0;
    for (const MotifFrame& f : motifFrames_) longestFrame_ = std::max(longestFrame_, f.end - f.start);
    viewport()->update();
    emit motifFramesChanged();
}

void SequenceEditor::setLikelihood(const QVector<float>& logp) {
    logp_ = logp;
    viewport()->update();
}

void SequenceEditor::mouseMoveEvent(QMouseEvent* e) {
    if (!(e->buttons() & Qt::LeftButton)) return;
    moveCursor(positionAt(e->position().toPoint()), true);
}

void SequenceEditor::mouseReleaseEvent(QMouseEvent* e) { e->accept(); }  // the press already placed the caret

void SequenceEditor::focusInEvent(QFocusEvent* e) {
    QAbstractScrollArea::focusInEvent(e);
    viewport()->update();
}

void SequenceEditor::focusOutEvent(QFocusEvent* e) {
    QAbstractScrollArea::focusOutEvent(e);
    viewport()->update();
}

}  // namespace carbon::ui
