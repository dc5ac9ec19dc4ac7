// Undoable removal of a span of bases (Delete, Backspace, cut).
#pragma once

#include <QByteArray>
#include <QUndoCommand>

namespace carbon::ui {

class SequenceDocument;

class RemoveBasesCommand : public QUndoCommand {
public:
    RemoveBasesCommand(SequenceDocument* doc, qsizetype pos, qsizetype len, QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;

private:
    SequenceDocument* doc_;
    qsizetype pos_;
    QByteArray removed_;  // the bases taken out, kept for undo
};

}  // namespace carbon::ui
