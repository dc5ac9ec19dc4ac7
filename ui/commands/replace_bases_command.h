// Undoable replacement of a span by other bases (typing over a selection, pasting over it,
// putting a generated design into its design region).
#pragma once

#include <QByteArray>
#include <QUndoCommand>

namespace carbon::ui {

class SequenceDocument;

class ReplaceBasesCommand : public QUndoCommand {
public:
    ReplaceBasesCommand(SequenceDocument* doc, qsizetype pos, qsizetype len, QByteArray bases,
                        QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;

private:
    SequenceDocument* doc_;
    qsizetype pos_;
    QByteArray old_, new_;
};

}  // namespace carbon::ui
