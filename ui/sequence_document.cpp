// SequenceDocument: the edited bases and the change signal views listen to.
#include "sequence_document.h"

#include "carbon/fns.h"

namespace carbon::ui {

SequenceDocument::SequenceDocument(QObject* parent) : QObject(parent) {}

void SequenceDocument::insert(qsizetype pos, const QByteArray& bases) {
    bases_.insert(pos, bases);
    emit changed(pos, 0, bases.size());
}

void SequenceDocument::remove(qsizetype pos, qsizetype len) {
    bases_.remove(pos, len);
    emit changed(pos, len, 0);
}

void SequenceDocument::replace(qsizetype pos, qsizetype len, const QByteArray& bases) {
    bases_.replace(pos, len, bases);
    emit changed(pos, len, bases.size());
}

void SequenceDocument::setBases(const QByteArray& bases) {
    const qsizetype old = bases_.size();
    bases_ = bases;
    emit changed(0, old, bases_.size());
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
