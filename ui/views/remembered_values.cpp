// saveValues / restoreValues (see remembered_values.h).
#include "remembered_values.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QListWidget>
#include <QSettings>
#include <QSpinBox>
#include <cmath>

#include "views/checked_spin_box.h"

namespace carbon::ui {

namespace {

QVariant valueOf(const QWidget* w) {
    if (auto* s = qobject_cast<const QSpinBox*>(w)) return s->value();
    if (auto* d = qobject_cast<const QDoubleSpinBox*>(w)) return d->value();
    if (auto* c = qobject_cast<const QComboBox*>(w)) return c->currentData().isValid() ? c->currentData() : QVariant(c->currentText());
    if (auto* b = qobject_cast<const QCheckBox*>(w)) return b->isChecked();
    if (auto* e = qobject_cast<const QLineEdit*>(w)) return e->text();
    if (auto* l = qobject_cast<const QListWidget*>(w)) {
        QStringList checked;
        for (int i = 0; i < l->count(); ++i)
            if (l->item(i)->checkState() == Qt::Checked) checked << l->item(i)->text();
        return checked;
    }
    return {};
}

void setValue(QWidget* w, const QVariant& v) {
    bool ok = false;
    if (auto* checked = qobject_cast<CheckedSpinBox*>(w)) {
        const int x = v.toInt(&ok);
        if (ok && x >= checked->lowest() && x <= checked->highest()) checked->setValue(x);
    } else if (auto* s = qobject_cast<QSpinBox*>(w)) {
        const int x = v.toInt(&ok);
        if (ok && x >= s->minimum() && x <= s->maximum()) s->setValue(x);
    } else if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) {
        const double x = v.toDouble(&ok);
        if (ok && std::isfinite(x) && x >= d->minimum() && x <= d->maximum()) d->setValue(x);
    } else if (auto* c = qobject_cast<QComboBox*>(w)) {
        int i = c->findData(v);
        if (i < 0) i = c->findText(v.toString());
        if (i >= 0) c->setCurrentIndex(i);
    } else if (auto* b = qobject_cast<QCheckBox*>(w)) {
        if (v.typeId() == QMetaType::Bool || v.toString() == QLatin1String("true") || v.toString() == QLatin1String("false"))
            b->setChecked(v.toBool());
    } else if (auto* e = qobject_cast<QLineEdit*>(w)) {
        const QString text = v.toString();
        if (text.size() <= e->maxLength()) e->setText(text);
    } else if (auto* l = qobject_cast<QListWidget*>(w)) {
        const QStringList ticked = v.toStringList();
        for (int i = 0; i < l->count(); ++i)
            if (l->item(i)->flags() & Qt::ItemIsUserCheckable)
                l->item(i)->setCheckState(ticked.contains(l->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
    }
}

}  // namespace

void saveValues(QSettings& settings, const QString& group, const QList<QWidget*>& widgets) {
    settings.beginGroup(group);
    for (const QWidget* w : widgets) {
        const QVariant v = valueOf(w);
        if (!w->objectName().isEmpty() && v.isValid()) settings.setValue(w->objectName(), v);
    }
    settings.endGroup();
}

void restoreValues(QSettings& settings, const QString& group, const QList<QWidget*>& widgets) {
    settings.beginGroup(group);
    for (QWidget* w : widgets)
        if (!w->objectName().isEmpty() && settings.contains(w->objectName())) setValue(w, settings.value(w->objectName()));
    settings.endGroup();
}

}  // namespace carbon::ui
