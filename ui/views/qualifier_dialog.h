// QualifierDialog: a feature's qualifiers as an editable table (name, value; a flag such as /pseudo
// has no value), with Add and Remove. OK is refused, with the row and the reason in the dialog,
// for a name GenBank cannot write (empty, blanks, anything but letters, digits, '_', '-', '\'').
#pragma once

#include <QDialog>
#include <optional>
#include <string>
#include <utility>
#include <vector>

class QLabel;
class QTableWidget;

namespace carbon::ui {

using Qualifiers = std::vector<std::pair<std::string, std::optional<std::string>>>;

class QualifierDialog : public QDialog {
    Q_OBJECT
public:
    QualifierDialog(const QString& feature, const Qualifiers& qualifiers, QWidget* parent = nullptr);

    Qualifiers qualifiers() const;
    QTableWidget* table() const { return table_; }
    // The reason OK was refused ("" when the table is valid).
    QString validate() const;

    void accept() override;

private:
    void addRow(const QString& name, const QString& value, bool flag);

    QTableWidget* table_;
    QLabel* error_;
};

}  // namespace carbon::ui
