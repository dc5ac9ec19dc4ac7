// The foot of a dialog whose fields are checked as they are typed (Order, New Construct, Choose
// Diverse): a line that says what is wrong, in the error colour, and OK / Cancel, OK off while
// anything is wrong. One look and one behaviour for every such dialog.
#pragma once

#include <QString>

class QDialog;
class QFormLayout;
class QLabel;
class QPushButton;

namespace carbon::ui {

struct CheckedFoot {
    QLabel* problem = nullptr;
    QPushButton* ok = nullptr;
};

// Adds the problem line and the buttons (OK labelled `okText`) as the last rows of `form`, OK
// accepting and Cancel rejecting `dialog`.
CheckedFoot addCheckedFoot(QFormLayout* form, QDialog* dialog, const QString& okText);

// Shows `problem` (hidden when empty) and turns OK on only when it is empty.
void showProblem(const CheckedFoot& foot, const QString& problem);

}  // namespace carbon::ui
