// The values of a form's widgets kept between sessions (QSettings): each widget by its object
// name under a group. A value read back is the user's own settings file, but still checked: one
// of another type, outside the widget's range (a CheckedSpinBox's allowed range included) or no
// longer offered (a combo box entry, a tag) is left at the widget's default, never forced in.
#pragma once

#include <QList>
#include <QString>

class QSettings;
class QWidget;

namespace carbon::ui {

// Supported: QSpinBox (CheckedSpinBox), QDoubleSpinBox, QComboBox (the current item's data, or
// its text without data), QCheckBox, QLineEdit, QListWidget (the texts of its checked items).
void saveValues(QSettings& settings, const QString& group, const QList<QWidget*>& widgets);
void restoreValues(QSettings& settings, const QString& group, const QList<QWidget*>& widgets);

}  // namespace carbon::ui
