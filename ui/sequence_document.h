// The sequence being edited: upper-case bases in one QByteArray (1 byte per base, so 1 Mbp is
// 1 MB). Core only, no widgets; every user edit reaches it through a QUndoCommand (commands/).
#pragma once

#include <QByteArray>
#include <QObject>

namespace carbon::ui {

class SequenceDocument : public QObject {
    Q_OBJECT
public:
    explicit SequenceDocument(QObject* parent = nullptr);

    const QByteArray& bases() const { return bases_; }
    qsizetype size() const { return bases_.size(); }
    QByteArray mid(qsizetype pos, qsizetype len) const { return bases_.mid(pos, len); }

    // Raw edits, used by the undo commands (and by setBases for a new, unrelated sequence).
    // Positions are 0-based; bases are stored as given (callers normalise with normalizeBases).
    void insert(qsizetype pos, const QByteArray& bases);
    void remove(qsizetype pos, qsizetype len);
    void replace(qsizetype pos, qsizetype len, const QByteArray& bases);
    void setBases(const QByteArray& bases);

    // Upper-cases and keeps IUPAC letters only (pasted text may hold digits, spaces, FASTA
    // headers' line breaks).
    static QByteArray normalizeBases(const QByteArray& text);
    // GC fraction of [pos, pos + len) over A/C/G/T bases (S counts as GC, W as AT); -1 when none.
    double gcFraction(qsizetype pos, qsizetype len) const;

signals:
    // One signal for every change: `removed` bases at `pos` were replaced by `added` bases.
    void changed(qsizetype pos, qsizetype removed, qsizetype added);

private:
    QByteArray bases_;
};

}  // namespace carbon::ui
