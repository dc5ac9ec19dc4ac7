// Undoable creation of a region (design region, pinned motif, annotation) from a selection.
#pragma once

#include <QUndoCommand>

#include "document/sequence_document.h"

namespace carbon::ui {

class AddRegionCommand : public QUndoCommand {
public:
    AddRegionCommand(SequenceDocument* doc, Region region, QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;

private:
    SequenceDocument* doc_;
    Region region_;
    qsizetype index_ = -1;  // where redo appended it
};

}  // namespace carbon::ui
