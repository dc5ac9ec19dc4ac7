// InsertBasesCommand: redo inserts, undo removes the same span.
#include "insert_bases_command.h"

#include <QCoreApplication>

#include "document/sequence_document.h"

namespace carbon::ui {

InsertBasesCommand::InsertBasesCommand(SequenceDocument* doc, qsizetype pos, QByteArray bases, QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), pos_(pos), bases_(std::move(bases)), regions_(doc->regions()) {
    setText(QCoreApplication::translate("commands", "Insert %n base(s)", nullptr, int(bases_.size())));
}

void InsertBasesCommand::redo() { doc_->insert(pos_, bases_); }
void InsertBasesCommand::undo() {
    doc_->remove(pos_, bases_.size());
    doc_->setRegions(regions_);
}

bool InsertBasesCommand::mergeWith(const QUndoCommand* other) {
    auto* next = static_cast<const InsertBasesCommand*>(other);
    // Only single typed bases that continue exactly where this insertion ended.
    if (next->doc_ != doc_ || next->bases_.size() != 1 || next->pos_ != pos_ + bases_.size()) return false;
    bases_ += next->bases_;
    setText(QCoreApplication::translate("commands", "Insert %n base(s)", nullptr, int(bases_.size())));
    return true;
}

}  // namespace carbon::ui
