// RemoveRegionCommand: remembers the region so undo restores it at the same index.
#include "remove_region_command.h"

#include <QCoreApplication>

namespace carbon::ui {

RemoveRegionCommand::RemoveRegionCommand(SequenceDocument* doc, qsizetype index, QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), index_(index), region_(doc->regions().at(index)) {
    setText(QCoreApplication::translate("commands", "Remove region"));
}

void RemoveRegionCommand::redo() { doc_->removeRegion(index_); }
void RemoveRegionCommand::undo() { doc_->addRegion(index_, region_); }

}  // namespace carbon::ui
