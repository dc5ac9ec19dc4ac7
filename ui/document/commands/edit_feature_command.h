// Undoable change of an imported feature's qualifiers (the feature list's Edit Qualifiers): every
// part of the feature gets the new qualifiers and the label they give; undo puts the old ones back.
#pragma once

#include <QUndoCommand>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "document/sequence_document.h"

namespace carbon::ui {

class EditFeatureCommand : public QUndoCommand {
public:
    EditFeatureCommand(SequenceDocument* doc, int feature,
                       std::vector<std::pair<std::string, std::optional<std::string>>> qualifiers, QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;

private:
    SequenceDocument* doc_;
    QList<Region> before_, after_;
};

}  // namespace carbon::ui
