// EditFeatureCommand: the regions before and after, swapped whole (see edit_feature_command.h).
#include "edit_feature_command.h"

#include <QCoreApplication>

#include "document/feature_regions.h"

namespace carbon::ui {

EditFeatureCommand::EditFeatureCommand(SequenceDocument* doc, int feature,
                                       std::vector<std::pair<std::string, std::optional<std::string>>> qualifiers,
                                       QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), before_(doc->regions()), after_(doc->regions()) {
    QString label;
    for (Region& r : after_) {
        if (r.feature != feature) continue;
        r.qualifiers = qualifiers;
        r.label = featureLabel(r.key, r.qualifiers);
        label = r.label;
    }
    setText(QCoreApplication::translate("commands", "Edit Qualifiers of %1").arg(label));
}

void EditFeatureCommand::redo() { doc_->setRegions(after_); }
void EditFeatureCommand::undo() { doc_->setRegions(before_); }

}  // namespace carbon::ui
