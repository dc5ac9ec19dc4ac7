// The New Construct dialog (the Generation panel's Construct row): a name and the sequences a
// design will be synthesised between (upstream and downstream: adapters, primers, a promoter and
// reporter, overhangs), checked as typed: a name the project's constructs already have, a letter
// other than A, C, G, T (named with its part and position) or two empty parts are said in the
// dialog and OK stays off. Stored by the project (Project::add_construct).
#pragma once

#include <QDialog>

#include "views/checked_form.h"
#include "workers/project_types.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace carbon::ui {

class ConstructDialog : public QDialog {
    Q_OBJECT
public:
    // `existing`: the project's constructs (their names are taken).
    explicit ConstructDialog(const ConstructList& existing, QWidget* parent = nullptr);

    carbon::storage::ConstructRecord construct() const;  // as typed, the parts without blanks

    QLineEdit* nameEdit() const { return name_; }
    QPlainTextEdit* upstreamEdit() const { return upstream_; }
    QPlainTextEdit* downstreamEdit() const { return downstream_; }
    QLineEdit* descriptionEdit() const { return description_; }
    QLabel* problemLabel() const { return foot_.problem; }
    QPushButton* okButton() const { return foot_.ok; }

private:
    void update();

    ConstructList existing_;
    QLineEdit* name_;
    QPlainTextEdit* upstream_;
    QPlainTextEdit* downstream_;
    QLineEdit* description_;
    CheckedFoot foot_;
};

}  // namespace carbon::ui
