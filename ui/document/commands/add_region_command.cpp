// AddRegionCommand: appends the region on redo and takes it back out on undo.
#include "add_region_command.h"

#include <QCoreApplication>

namespace carbon::ui {

AddRegionCommand::AddRegionCommand(SequenceDocument* doc, Region region, QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), region_(std::move(region)) {
    setText(QCoreApplication::translate("commands", "Add region"));
}

void AddRegionCommand::redo() {
    index_ = doc_->regions().size();
    doc_->addRegion(index_, region_);
}

void AddRegionCommand::undo() { doc_->removeRegion(index_); }

}  // namespace carbon::ui
