// The document the window edits: one sequence, its upper-case bases in one QByteArray (1 byte
// per base, so 1 Mbp is 1 MB), its regions (design region, pinned motifs, annotations and the
// parts of imported features), which stored sequence it is, and its undo history. Core only, no
// widgets; every user edit reaches it through a QUndoCommand (commands/) pushed on its own
// undoStack(). Opening another sequence (open()) replaces all of it and starts a fresh history,
// so an undo never reaches into the sequence shown before.
#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include <QString>

class QUndoStack;

namespace carbon::ui {

// A marked span of the sequence: [start, end), 0-based. Base edits shift and clip it.
// The document's own type, not storage's Region: the editor's spans are the stored regions
// (design region, pinned motifs, annotations) and also the parts of imported GenBank / EMBL
// features, which the project keeps as features with INSDC locations, not as regions; a part
// carries its feature, strand and partial ends so that saving writes the feature back
// (ProjectStore maps stored regions, and feature_regions.h features, to and from it).
struct Region {
    enum class Kind { Design, PinnedMotif, Annotation };
    Kind kind = Kind::Annotation;
    qsizetype start = 0;
    qsizetype end = 0;
    QString label;
    QByteArray templ;  // template bases (for a design region), may be empty
    // A part of an imported GenBank / EMBL feature (feature >= 0: its place in the sequence's
    // stored feature table, which keeps its key and qualifiers): which part of its location, its
    // strand and partial ends. Edits move the parts like any region (a zero-length part, an a^b
    // site, survives unless deleted around); saving writes the feature back from them.
    int feature = -1, part = 0;
    bool reverse = false, beforeStart = false, afterEnd = false;
    // The feature's INSDC key (promoter, CDS, source, ...) and qualifiers, on each of its parts:
    // the document's copy, edited with the feature (Edit Qualifiers) and written back on save.
    // A user's annotation has neither.
    QString key;
    std::vector<std::pair<std::string, std::optional<std::string>>> qualifiers;
    bool operator==(const Region&) const = default;
};

class SequenceDocument : public QObject {
    Q_OBJECT
public:
    explicit SequenceDocument(QObject* parent = nullptr);
    ~SequenceDocument() override;

    // The history of this document's edits (owned; cleared by open()).
    QUndoStack* undoStack() const { return undo_; }

    // Which stored sequence this is: its id in the open project (0: not stored, or no project)
    // and its name ("" until named; displayName() says "untitled" then).
    qint64 storedId() const { return storedId_; }
    const QString& name() const { return name_; }
    QString displayName() const;
    // After the first save of an unstored sequence gave it an id.
    void setStoredId(qint64 id);
    // Another sequence in place of this one: bases (normalised by the caller), regions, identity,
    // and an empty history. Emits changed and regionsChanged as the content is replaced, then
    // opened().
    void open(const QByteArray& bases, const QList<Region>& regions, qint64 storedId, const QString& name);

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

    // Regions, kept consistent with base edits: an insert at or before a region's start shifts
    // it; an insert inside grows it; a removal overlapping it shrinks it (emptied ones drop); a
    // replacement inside a region keeps it and moves its end by the change in length; a
    // same-length replacement (a substitution) moves nothing.
    const QList<Region>& regions() const { return regions_; }
    void addRegion(qsizetype index, const Region& region);
    void removeRegion(qsizetype index);
    void setRegions(const QList<Region>& regions);  // used by undo to restore clipped regions
    // Index of the last-added region covering `pos`, or -1.
    qsizetype regionAt(qsizetype pos) const;

signals:
    void opened();               // open(): a new sequence with a fresh history
    void identityChanged();      // storedId or name changed
    void regionsChanged();
    // One signal for every change: `removed` bases at `pos` were replaced by `added` bases.
    void changed(qsizetype pos, qsizetype removed, qsizetype added);

private:
    void adjustRegions(qsizetype pos, qsizetype removed, qsizetype added);

    QByteArray bases_;
    QList<Region> regions_;
    QUndoStack* undo_;
    qint64 storedId_ = 0;
    QString name_;
};

}  // namespace carbon::ui
