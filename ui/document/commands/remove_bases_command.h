// Undoable removal of a span of bases (Delete, Backspace, cut).
#pragma once

#include <QByteArray>
#include <QUndoCommand>

#include "document/sequence_document.h"

namespace carbon::ui {

class RemoveBasesCommand : public QUndoCommand {
public:
    RemoveBasesCommand(SequenceDocument* doc, qsizetype pos, qsizetype len, QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;

private:
    SequenceDocument* doc_;
    qsizetype pos_;
    QByteArray removed_;  // the bases taken out, kept for undo
    QList<Region> regions_;  // regions before the removal clipped them, restored on undo
};

}  // namespace carbon::ui
