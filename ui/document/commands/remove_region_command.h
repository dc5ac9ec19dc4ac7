// Undoable removal of one region (context menu on the region under the cursor).
#pragma once

#include <QUndoCommand>

#include "document/sequence_document.h"

namespace carbon::ui {

class RemoveRegionCommand : public QUndoCommand {
public:
    RemoveRegionCommand(SequenceDocument* doc, qsizetype index, QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;

private:
    SequenceDocument* doc_;
    qsizetype index_;
    Region region_;  // the removed region, put back at index_ on undo
};

}  // namespace carbon::ui
