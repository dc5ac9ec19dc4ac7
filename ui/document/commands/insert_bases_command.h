// Undoable insertion of bases into a SequenceDocument (typing, pasting, opening a design).
#pragma once

#include <QByteArray>
#include <QList>
#include <QUndoCommand>

#include "document/sequence_document.h"

namespace carbon::ui {

class InsertBasesCommand : public QUndoCommand {
public:
    InsertBasesCommand(SequenceDocument* doc, qsizetype pos, QByteArray bases, QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;
    int id() const override { return 1001; }
    // Consecutive typed bases merge into one undo step (typing "ACGT" undoes at once).
    bool mergeWith(const QUndoCommand* other) override;

private:
    SequenceDocument* doc_;
    qsizetype pos_;
    QByteArray bases_;
    QList<Region> regions_;  // regions before the first inserted base, restored on undo
};

}  // namespace carbon::ui
