// RemoveBasesCommand: remembers the removed bases so undo puts them back.
#include "remove_bases_command.h"

#include <QCoreApplication>

#include "document/sequence_document.h"

namespace carbon::ui {

RemoveBasesCommand::RemoveBasesCommand(SequenceDocument* doc, qsizetype pos, qsizetype len, QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), pos_(pos), removed_(doc->mid(pos, len)), regions_(doc->regions()) {
    setText(QCoreApplication::translate("commands", "Remove %n base(s)", nullptr, int(removed_.size())));
}

void RemoveBasesCommand::redo() { doc_->remove(pos_, removed_.size()); }
void RemoveBasesCommand::undo() {
    doc_->insert(pos_, removed_);
    doc_->setRegions(regions_);
}

}  // namespace carbon::ui
