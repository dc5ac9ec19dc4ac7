// EditingController: the Edit menu over the document and the editor: undo and redo (the
// document's history; the toolbar's buttons keep their words), the clipboard, Find and Find
// Next, Go to Position, marking regions. Transcription-factor motifs put their actions after Find.
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <functional>

class QAction;
class QMenu;

namespace carbon::ui {

class SequenceDocument;
class SequenceEditor;
class WindowServices;

class EditingController : public QObject {
    Q_OBJECT
public:
    EditingController(SequenceDocument* doc, SequenceEditor* editor, WindowServices* services, QObject* parent = nullptr);

    // Fills the Edit menu (`afterFind` adds its own actions after Find); returns the toolbar's
    // undo, redo and find.
    QList<QAction*> addEditActions(QMenu* edit, const std::function<void(QMenu*)>& afterFind);

public slots:
    void goToPosition(qint64 position);  // 1-based: that base selected and scrolled to

private:
    SequenceDocument* doc_;
    SequenceEditor* editor_;
    WindowServices* services_;
    QString lastFind_;
};

}  // namespace carbon::ui
