// Undoable replacement of a span by other bases (typing over a selection, pasting over it,
// putting a generated design into its design region, opening another sequence). Undo puts back
// the old bases and the regions exactly as they were.
#pragma once

#include <QByteArray>
#include <QList>
#include <QUndoCommand>

#include "document/sequence_document.h"

namespace carbon::ui {

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
    QList<Region> regions_;  // regions before the replacement shifted or clipped them, restored on undo
};

}  // namespace carbon::ui
