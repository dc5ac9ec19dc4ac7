// ReplaceBasesCommand: swaps the old and new spans in both directions.
#include "replace_bases_command.h"

#include <QCoreApplication>

#include "document/sequence_document.h"

namespace carbon::ui {

ReplaceBasesCommand::ReplaceBasesCommand(SequenceDocument* doc, qsizetype pos, qsizetype len, QByteArray bases,
                                         QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), pos_(pos), old_(doc->mid(pos, len)), new_(std::move(bases)),
      regions_(doc->regions()) {
    setText(QCoreApplication::translate("commands", "Replace %n base(s)", nullptr, int(old_.size())));
}

void ReplaceBasesCommand::redo() { doc_->replace(pos_, old_.size(), new_); }
void ReplaceBasesCommand::undo() {
    doc_->replace(pos_, new_.size(), old_);
    doc_->setRegions(regions_);
}

}  // namespace carbon::ui
