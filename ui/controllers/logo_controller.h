// LogoController: the Sequence Logo dock. A logo of the model's distributions over the editor's
// selection (redrawn when the selection or the likelihood changes, while the dock follows the
// selection) or of the base frequencies of the designs selected in the designs table; exported as
// SVG or PNG.
#pragma once

#include <QObject>

#include "controllers/dock.h"

namespace carbon::ui {

class DesignsController;
class LikelihoodController;
class LogoPanel;
class ModelController;
class SequenceDocument;
class SequenceEditor;
class WindowServices;

class LogoController : public QObject {
    Q_OBJECT
public:
    LogoController(SequenceDocument* doc, SequenceEditor* editor, LikelihoodController* likelihood, ModelController* models,
                   DesignsController* designs, WindowServices* services, QObject* parent = nullptr);

    LogoPanel* panel() const { return panel_; }
    QList<Dock> docks() const { return {dock_}; }

public slots:
    void logoFromSelection();
    void logoFromDesigns();
    void exportLogo(bool svg);

private:
    SequenceDocument* doc_;
    SequenceEditor* editor_;
    LikelihoodController* likelihood_;
    ModelController* models_;
    DesignsController* designs_;
    WindowServices* services_;
    LogoPanel* panel_;
    Dock dock_;
};

}  // namespace carbon::ui
