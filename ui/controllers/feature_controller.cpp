// FeatureController (see feature_controller.h).
#include "feature_controller.h"

#include <QUndoStack>

#include "controllers/window_services.h"
#include "document/commands/edit_feature_command.h"
#include "document/sequence_document.h"
#include "views/feature_list.h"
#include "views/feature_table_model.h"
#include "views/qualifier_dialog.h"
#include "views/sequence_editor.h"

namespace carbon::ui {

FeatureController::FeatureController(SequenceDocument* doc, SequenceEditor* editor, WindowServices* services, QObject* parent)
    : QObject(parent), doc_(doc), editor_(editor), services_(services), model_(new FeatureTableModel(doc)),
      list_(new FeatureList(model_)) {
    model_->setParent(list_);
    dock_ = makeDock(list_, tr("Features"), "featuresDock", Qt::LeftDockWidgetArea, false);
    // The header names the sequence the list describes, and is rewritten with it.
    auto name = [this] { list_->setSequenceName(doc_->size() > 0 || doc_->storedId() ? doc_->displayName() : QString()); };
    connect(doc_, &SequenceDocument::identityChanged, list_, name);
    connect(model_, &QAbstractItemModel::modelReset, list_, name);
    connect(list_, &FeatureList::featureActivated, this, &FeatureController::goToFeature);
    connect(list_, &FeatureList::editRequested, this, &FeatureController::editQualifiers);
    name();
}

void FeatureController::goToFeature(int modelRow) {
    if (modelRow < 0 || modelRow >= model_->rowCount()) return;
    const FeatureTableModel::Row& row = model_->row(modelRow);
    services_->showEditor();
    editor_->setSelection(row.start, row.end);
    editor_->scrollToPosition(row.start);
    services_->message(tr("%1: bases %2–%3").arg(doc_->regions().at(row.regions.first()).label).arg(row.start + 1).arg(row.end), 5000);
}

void FeatureController::editQualifiers(int modelRow) {
    if (modelRow < 0 || modelRow >= model_->rowCount()) return;
    const FeatureTableModel::Row row = model_->row(modelRow);
    if (row.feature < 0) return;
    const Region& first = doc_->regions().at(row.regions.first());
    QualifierDialog dialog(first.label, first.qualifiers, services_->window());
    if (dialog.exec() != QDialog::Accepted) return;
    const Qualifiers edited = dialog.qualifiers();
    if (edited == first.qualifiers) return;
    doc_->undoStack()->push(new EditFeatureCommand(doc_, row.feature, edited));
}

}  // namespace carbon::ui
