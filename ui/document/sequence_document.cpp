// SequenceDocument: the edited bases, regions, identity and history (see sequence_document.h).
#include "sequence_document.h"

#include <QCoreApplication>
#include <QUndoStack>

#include "carbon/fns/fns.h"

namespace carbon::ui {

SequenceDocument::SequenceDocument(QObject* parent) : QObject(parent), undo_(new QUndoStack(this)) {}
SequenceDocument::~SequenceDocument() = default;

QString SequenceDocument::displayName() const {
    return name_.isEmpty() ? QCoreApplication::translate("SequenceDocument", "untitled") : name_;
}

void SequenceDocument::setStoredId(qint64 id) {
    if (id == storedId_) return;
    storedId_ = id;
    emit identityChanged();
}

void SequenceDocument::open(const QByteArray& bases, const QList<Region>& regions, qint64 storedId, const QString& name) {
    undo_->clear();  // first: the commands refer to the content being replaced
    storedId_ = storedId;
    name_ = name;
    setBases(bases);
    setRegions(regions);
    undo_->clear();
    emit identityChanged();
    emit opened();
}

void SequenceDocument::insert(qsizetype pos, const QByteArray& bases) {
    bases_.insert(pos, bases);
    adjustRegions(pos, 0, bases.size());
    emit changed(pos, 0, bases.size());
}

void SequenceDocument::remove(qsizetype pos, qsizetype len) {
    bases_.remove(pos, len);
    adjustRegions(pos, len, 0);
    emit changed(pos, len, 0);
}

void SequenceDocument::replace(qsizetype pos, qsizetype len, const QByteArray& bases) {
    bases_.replace(pos, len, bases);
    adjustRegions(pos, len, bases.size());
    emit changed(pos, len, bases.size());
}

void SequenceDocument::setBases(const QByteArray& bases) {
    const qsizetype old = bases_.size();
    bases_ = bases;
    if (!regions_.isEmpty()) {
        regions_.clear();
        emit regionsChanged();
    }
    emit changed(0, old, bases_.size());
}

void SequenceDocument::addRegion(qsizetype index, const Region& region) {
    regions_.insert(qBound(qsizetype(0), index, regions_.size()), region);
    emit regionsChanged();
}

void SequenceDocument::removeRegion(qsizetype index) {
    regions_.removeAt(index);
    emit regionsChanged();
}

void SequenceDocument::setRegions(const QList<Region>& regions) {
    regions_ = regions;
    emit regionsChanged();
}

qsizetype SequenceDocument::regionAt(qsizetype pos) const {
    for (qsizetype i = regions_.size() - 1; i >= 0; --i)
        if (pos >= regions_[i].start && pos < regions_[i].end) return i;
    return -1;
}

void SequenceDocument::adjustRegions(qsizetype pos, qsizetype removed, qsizetype added) {
    if (regions_.isEmpty() || removed == added) return;  // a substitution moves no region
    const auto clip = [&](qsizetype x) {  // a position after removing [pos, pos + removed)
        if (x <= pos) return x;
        return x >= pos + removed ? x - removed : pos;
    };
    QList<Region> kept;
    for (Region r : regions_) {
        const bool site = r.feature >= 0 && r.start == r.end;  // a feature's a^b site: no bases to lose
        if (site) {
            if (r.start > pos) {
                if (r.start < pos + removed) continue;  // the bases on both sides of it were removed
                r.start = r.end = r.start - removed + added;
            }
            kept.append(r);
            continue;
        }
        if (removed > 0 && r.start <= pos && pos + removed <= r.end) {
            // The region holds the whole replaced span (a design put into its design region):
            // it stays, and its end follows the new length.
            r.end += added - removed;
            if (r.end > r.start) kept.append(r);
            continue;
        }
        r.start = clip(r.start);
        r.end = clip(r.end);
        if (removed > 0 && r.end <= r.start) continue;  // fully deleted
        if (added > 0) {
            if (pos <= r.start) r.start += added;
            if (pos < r.end || (pos == r.end && pos < r.start)) r.end += added;
            if (r.end < r.start) r.end = r.start;
        }
        kept.append(r);
    }
    regions_ = kept;
    emit regionsChanged();
}

QByteArray SequenceDocument::normalizeBases(const QByteArray& text) {
    QByteArray out;
    out.reserve(text.size());
    bool header = false;  // skip FASTA header lines if a whole record was pasted
    for (char c : text) {
        if (c == '>') header = true;
        if (c == '\n' || c == '\r') header = false;
        if (header) continue;
        if (carbon::iupac_mask(c) != 0) out.append(char(c >= 'a' && c <= 'z' ? c - 32 : c));
    }
    return out;
}

double SequenceDocument::gcFraction(qsizetype pos, qsizetype len) const {
    qsizetype gc = 0, total = 0;
    const char* p = bases_.constData() + pos;
    for (qsizetype i = 0; i < len; ++i) {
        switch (p[i]) {
            case 'G': case 'C': case 'S': ++gc; ++total; break;
            case 'A': case 'T': case 'W': ++total; break;
            default: break;
        }
    }
    return total ? double(gc) / double(total) : -1.0;
}

}  // namespace carbon::ui
