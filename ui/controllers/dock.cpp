// makeDock (see dock.h).
#include "dock.h"

#include <QDockWidget>
#include <QFrame>
#include <QScrollArea>

namespace carbon::ui {

Dock makeDock(QWidget* panel, const QString& title, const char* name, Qt::DockWidgetArea area, bool scroll) {
    auto* dock = new QDockWidget(title);
    dock->setObjectName(QLatin1String(name));  // saveState needs stable names
    if (scroll) {  // a tall panel scrolls rather than forcing the window taller than the screen
        auto* s = new QScrollArea(dock);
        s->setWidget(panel);
        s->setWidgetResizable(true);
        s->setFrameShape(QFrame::NoFrame);
        dock->setWidget(s);
    } else {
        dock->setWidget(panel);
    }
    return {dock, area};
}

}  // namespace carbon::ui
