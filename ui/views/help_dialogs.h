// Help: the keyboard shortcuts of every menu (read from the menus themselves, so the list is what
// the keys do) and the user manual bundled with the program (resources/manual.md; nothing is
// fetched from the network).
#pragma once

#include <QList>
#include <QPair>
#include <QString>

class QMenuBar;
class QWidget;

namespace carbon::ui {

// ("Menu > Action", "Ctrl+R, F5") for every action of the menu bar that has a shortcut, in menu order.
QList<QPair<QString, QString>> menuShortcuts(const QMenuBar* bar);
void showShortcuts(QWidget* parent, const QMenuBar* bar);
void showManual(QWidget* parent);

}  // namespace carbon::ui
