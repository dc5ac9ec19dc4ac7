#include "checked_form.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>

namespace carbon::ui {

CheckedFoot addCheckedFoot(QFormLayout* form, QDialog* dialog, const QString& okText) {
    CheckedFoot foot;
    foot.problem = new QLabel;
    foot.problem->setWordWrap(true);
    foot.problem->setStyleSheet(QStringLiteral("color: #b00020"));
    form->addRow(foot.problem);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    foot.ok = buttons->button(QDialogButtonBox::Ok);
    foot.ok->setText(okText);
    form->addRow(buttons);
    QObject::connect(buttons, &QDialogButtonBox::accepted, dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    return foot;
}

void showProblem(const CheckedFoot& foot, const QString& problem) {
    foot.problem->setText(problem);
    foot.problem->setVisible(!problem.isEmpty());
    foot.ok->setEnabled(problem.isEmpty());
}

}  // namespace carbon::ui
