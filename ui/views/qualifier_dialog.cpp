// QualifierDialog (see qualifier_dialog.h).
#include "qualifier_dialog.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableWidget>
#include <QVBoxLayout>

namespace carbon::ui {

QualifierDialog::QualifierDialog(const QString& feature, const Qualifiers& qualifiers, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Qualifiers of %1").arg(feature));
    table_ = new QTableWidget(0, 2, this);
    table_->setHorizontalHeaderLabels({tr("Qualifier"), tr("Value (empty: a flag)")});
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->setVisible(false);
    for (const auto& [name, value] : qualifiers)
        addRow(QString::fromStdString(name), value ? QString::fromStdString(*value) : QString(), !value.has_value());
    auto* add = new QPushButton(tr("&Add"), this);
    auto* remove = new QPushButton(tr("&Remove"), this);
    connect(add, &QPushButton::clicked, this, [this] {
        addRow(QStringLiteral("note"), QString(), false);
        table_->setCurrentCell(table_->rowCount() - 1, 0);
        table_->editItem(table_->item(table_->rowCount() - 1, 0));
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (table_->currentRow() >= 0) table_->removeRow(table_->currentRow());
    });
    error_ = new QLabel(this);
    error_->setStyleSheet(QStringLiteral("color: #b00020"));
    error_->setWordWrap(true);
    error_->hide();
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QualifierDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QualifierDialog::reject);
    auto* row = new QHBoxLayout;
    row->addWidget(add);
    row->addWidget(remove);
    row->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(table_);
    layout->addLayout(row);
    layout->addWidget(error_);
    layout->addWidget(buttons);
    resize(520, 360);
}

void QualifierDialog::addRow(const QString& name, const QString& value, bool flag) {
    const int r = table_->rowCount();
    table_->insertRow(r);
    table_->setItem(r, 0, new QTableWidgetItem(name));
    auto* v = new QTableWidgetItem(value);
    v->setData(Qt::UserRole, flag);
    table_->setItem(r, 1, v);
}

Qualifiers QualifierDialog::qualifiers() const {
    Qualifiers out;
    for (int r = 0; r < table_->rowCount(); ++r) {
        const QString name = table_->item(r, 0) ? table_->item(r, 0)->text().trimmed() : QString();
        const QString value = table_->item(r, 1) ? table_->item(r, 1)->text() : QString();
        // An empty value is a flag (/pseudo); a value is kept as typed.
        out.emplace_back(name.toStdString(), value.isEmpty() ? std::nullopt : std::optional<std::string>(value.toStdString()));
    }
    return out;
}

QString QualifierDialog::validate() const {
    static const QRegularExpression valid(QStringLiteral("^[A-Za-z0-9_'\\-]+$"));
    for (int r = 0; r < table_->rowCount(); ++r) {
        const QString name = table_->item(r, 0) ? table_->item(r, 0)->text().trimmed() : QString();
        if (name.isEmpty()) return tr("Row %1: the qualifier has no name.").arg(r + 1);
        if (!valid.match(name).hasMatch())
            return tr("Row %1: \"%2\" cannot be a qualifier name (letters, digits, '_', '-' and ' only).").arg(r + 1).arg(name);
        const QString value = table_->item(r, 1) ? table_->item(r, 1)->text() : QString();
        if (value.contains(QLatin1Char('\n')) || value.contains(QLatin1Char('\r')))
            return tr("Row %1: the value of /%2 holds a line break; GenBank wraps long values itself.").arg(r + 1).arg(name);
    }
    return {};
}

void QualifierDialog::accept() {
    const QString why = validate();
    if (!why.isEmpty()) {
        error_->setText(why);
        error_->show();
        return;
    }
    QDialog::accept();
}

}  // namespace carbon::ui
