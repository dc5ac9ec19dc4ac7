// ReplaceBasesCommand: swaps the old and new spans in both directions.
#include "replace_bases_command.h"

#include <QCoreApplication>

#include "document/sequence_document.h"

namespace carbon::ui {

ReplaceBasesCommand::ReplaceBasesCommand(SequenceDocument* doc, qsizetype pos, qsizetype len, QByteArray bases,
                                         QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), pos_(pos), old_(doc->mid(pos, len)), new_(std::move(bases)),
      regions_(doc->regions()) {
    // Said as the user sees it: an insertion at the end is not "Replace 0 bases".
    const auto tr = [](const char* text, qsizetype n) { return QCoreApplication::translate("commands", text, nullptr, int(n)); };
    if (old_.isEmpty())
        setText(tr("Insert %n base(s)", new_.size()));
    else if (new_.isEmpty())
        setText(tr("Delete %n base(s)", old_.size()));
    else if (old_.size() == new_.size())
        setText(tr("Replace %n base(s)", old_.size()));
    else
        setText(tr("Replace %n base(s)", old_.size()) + QCoreApplication::translate("commands", " with %1").arg(new_.size()));
}

void ReplaceBasesCommand::redo() { doc_->replace(pos_, old_.size(), new_); }
void ReplaceBasesCommand::undo() {
    doc_->replace(pos_, new_.size(), old_);
    doc_->setRegions(regions_);
}

}  // namespace carbon::ui
