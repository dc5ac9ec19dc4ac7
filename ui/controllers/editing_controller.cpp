// EditingController: the Edit menu (see editing_controller.h).
#include "editing_controller.h"

#include <QAction>
#include <QInputDialog>
#include <QLocale>
#include <QMenu>
#include <QUndoStack>
#include <climits>

#include "controllers/shortcut_action.h"
#include "controllers/window_services.h"
#include "document/sequence_document.h"
#include "views/sequence_editor.h"

namespace carbon::ui {

EditingController::EditingController(SequenceDocument* doc, SequenceEditor* editor, WindowServices* services, QObject* parent)
    : QObject(parent), doc_(doc), editor_(editor), services_(services) {}

QList<QAction*> EditingController::addEditActions(QMenu* edit, const std::function<void(QMenu*)>& afterFind) {
    QAction* undo = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcuts(QKeySequence::Undo);
    QAction* redo = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    // The toolbar's Undo and Redo keep their words (the menu's say what they undo, and a button
    // whose text grew would push the others along); what they would undo is in the tooltip.
    QUndoStack* stack = doc_->undoStack();
    auto* undoButton = new QAction(tr("Undo"), this);
    auto* redoButton = new QAction(tr("Redo"), this);
    undoButton->setEnabled(false);
    redoButton->setEnabled(false);
    connect(undoButton, &QAction::triggered, stack, &QUndoStack::undo);
    connect(redoButton, &QAction::triggered, stack, &QUndoStack::redo);
    connect(stack, &QUndoStack::canUndoChanged, undoButton, &QAction::setEnabled);
    connect(stack, &QUndoStack::canRedoChanged, redoButton, &QAction::setEnabled);
    connect(stack, &QUndoStack::undoTextChanged, undoButton, [undoButton](const QString& t) { undoButton->setToolTip(tr("Undo %1").arg(t)); });
    connect(stack, &QUndoStack::redoTextChanged, redoButton, [redoButton](const QString& t) { redoButton->setToolTip(tr("Redo %1").arg(t)); });
    edit->addSeparator();
    // Clipboard shortcuts are handled by the editor itself when it has focus; the menu items
    // carry no shortcut so they do not steal Ctrl+C from line edits in the panels.
    edit->addAction(tr("Cu&t"), editor_, &SequenceEditor::cut);
    edit->addAction(tr("&Copy"), editor_, &SequenceEditor::copy);
    addShortcutAction(edit, tr("Copy &Reverse Complement"), {QKeySequence(tr("Ctrl+Shift+C"))}, editor_, &SequenceEditor::copyReverseComplement);
    edit->addAction(tr("&Paste"), editor_, &SequenceEditor::paste);
    edit->addAction(tr("Select &All"), editor_, &SequenceEditor::selectAll);
    edit->addSeparator();
    QAction* find = addShortcutAction(edit, tr("&Find Motif…"), QKeySequence::keyBindings(QKeySequence::Find), this, [this] {
        bool ok = false;
        const QString p = QInputDialog::getText(services_->window(), tr("Find"), tr("Motif or IUPAC pattern:"), QLineEdit::Normal, lastFind_, &ok);
        if (!ok || p.isEmpty()) return;
        lastFind_ = p;
        if (!editor_->findNext(p)) services_->message(tr("'%1' not found (or not a valid IUPAC pattern)").arg(p), 5000);
    });
    afterFind(edit);
    addShortcutAction(edit, tr("Find &Next"), {QKeySequence(Qt::Key_F3)}, this, [this] {
        if (!lastFind_.isEmpty() && !editor_->findNext(lastFind_)) services_->message(tr("'%1' not found").arg(lastFind_), 5000);
    });
    edit->addSeparator();
    for (const auto& [text, key, kind] : {std::tuple{tr("Mark &Design Region"), tr("Ctrl+Shift+D"), Region::Kind::Design},
                                          std::tuple{tr("&Pin Motif"), tr("Ctrl+Shift+P"), Region::Kind::PinnedMotif},
                                          std::tuple{tr("Add A&nnotation"), tr("Ctrl+Shift+A"), Region::Kind::Annotation}})
        addShortcutAction(edit, text, {QKeySequence(key)}, this, [this, k = kind] { editor_->addRegionFromSelection(k); });
    addShortcutAction(edit, tr("&Go to Position…"), {QKeySequence(tr("Ctrl+G"))}, this, [this] {
        if (doc_->size() == 0) return services_->message(tr("The editor holds no sequence."), 5000);
        bool ok = false;
        const int p = QInputDialog::getInt(services_->window(), tr("Go to position"), tr("Base (1 to %1):").arg(QLocale().toString(doc_->size())),
                                           int(editor_->cursorPosition() + 1), 1, int(std::min<qsizetype>(doc_->size(), INT_MAX)), 1, &ok);
        if (ok) goToPosition(p);
    });
    edit->addAction(tr("Remove Region at Cursor"), this, [this] {
        if (!editor_->removeRegionAtCursor()) services_->message(tr("No region at the cursor"), 5000);
    });
    return {undoButton, redoButton, find};
}

void EditingController::goToPosition(qint64 position) {
    if (position < 1 || position > doc_->size())
        return services_->message(tr("Position %1 is outside the sequence (1 to %2).").arg(position).arg(doc_->size()), 8000);
    services_->showEditor();
    editor_->setSelection(position - 1, position);
    editor_->scrollToPosition(position - 1);
    editor_->setFocus();
}

}  // namespace carbon::ui
