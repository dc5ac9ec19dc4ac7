// FeatureController: the Features dock. The features of the sequence in the editor (imported
// GenBank / EMBL features and the user's annotations) in a sortable list; a click goes to the
// feature (its bases selected in the editor and scrolled into view); Edit Qualifiers… changes an
// imported feature's qualifiers as one undo step of the document, saved with the sequence and
// written by GenBank export.
#pragma once

#include <QObject>

#include "controllers/dock.h"

namespace carbon::ui {

class FeatureList;
class FeatureTableModel;
class SequenceDocument;
class SequenceEditor;
class WindowServices;

class FeatureController : public QObject {
    Q_OBJECT
public:
    FeatureController(SequenceDocument* doc, SequenceEditor* editor, WindowServices* services, QObject* parent = nullptr);

    FeatureList* list() const { return list_; }
    FeatureTableModel* model() const { return model_; }
    QList<Dock> docks() const { return {dock_}; }

public slots:
    void goToFeature(int modelRow);
    void editQualifiers(int modelRow);

private:
    SequenceDocument* doc_;
    SequenceEditor* editor_;
    WindowServices* services_;
    FeatureTableModel* model_;
    FeatureList* list_;
    Dock dock_;
};

}  // namespace carbon::ui
