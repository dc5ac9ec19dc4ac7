// guardWheel (see wheel_guard.h).
#include "wheel_guard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QScrollBar>

namespace carbon::ui {

namespace {

class WheelGuard : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() != QEvent::Wheel) return false;
        auto* widget = static_cast<QWidget*>(watched);
        if (widget->hasFocus()) return false;
        for (QWidget* p = widget->parentWidget(); p; p = p->parentWidget())
            if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
                QCoreApplication::sendEvent(area->verticalScrollBar(), event);
                break;
            }
        return true;
    }
};

}  // namespace

void guardWheel(QWidget* root) {
    auto* guard = new WheelGuard(root);
    QList<QWidget*> widgets;
    for (QAbstractSpinBox* s : root->findChildren<QAbstractSpinBox*>()) widgets << s;
    for (QComboBox* c : root->findChildren<QComboBox*>()) widgets << c;
    for (QWidget* w : widgets) {
        w->setFocusPolicy(Qt::StrongFocus);  // not the wheel's focus (spin boxes take it by default)
        w->installEventFilter(guard);
    }
}

}  // namespace carbon::ui
