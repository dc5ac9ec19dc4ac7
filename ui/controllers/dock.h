// A dock a controller brings to the window: the QDockWidget (named for saveState) holding its
// panel, in a scroll area when the panel is tall, and the side of the window it starts on.
#pragma once

#include <QString>
#include <Qt>

class QDockWidget;
class QWidget;

namespace carbon::ui {

struct Dock {
    QDockWidget* widget = nullptr;
    Qt::DockWidgetArea area = Qt::RightDockWidgetArea;
};

// A dock titled `title`, object name `name`, holding `panel` (scrolling when `scroll`).
Dock makeDock(QWidget* panel, const QString& title, const char* name, Qt::DockWidgetArea area, bool scroll);

}  // namespace carbon::ui
