// A menu's action with its shortcuts, calling a slot or a function on a receiver: the one helper
// the menus of the window are built with.
#pragma once

#include <QAction>
#include <QKeySequence>
#include <QList>
#include <QMenu>
#include <QObject>
#include <QString>

namespace carbon::ui {

template <class Receiver, class Slot>
QAction* addShortcutAction(QMenu* menu, const QString& text, const QList<QKeySequence>& keys, Receiver* receiver, Slot slot) {
    QAction* a = menu->addAction(text);
    a->setShortcuts(keys);
    QObject::connect(a, &QAction::triggered, receiver, slot);
    return a;
}

}  // namespace carbon::ui
