// The Order dialog (File > Export > Order Selected Designs…): how the selected designs become the
// constructs that will be synthesised and which file they go to: the format (a Twist oligo pool
// CSV, IDT plate sheets as .xlsx, the whole constructs as FASTA or GenBank), the construct each
// design sits in (by default the one its run was made in; or one of the project's; or upstream
// and downstream flanks typed in: adapters, primers, overhangs; checked as typed: a letter other
// than A, C, G, T is named with its position in the dialog and OK stays off), and for IDT the plate size and
// the order the wells fill in. What it chooses is exported by storage's order_files.h, as
// carbon-cli project export --format twist|idt|constructs-fasta|constructs-genbank does.
#pragma once

#include <QDialog>

#include "views/checked_form.h"
#include "workers/project_types.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace carbon::ui {

class OrderDialog : public QDialog {
    Q_OBJECT
public:
    // `designs`: how many are selected (said in the dialog), `inConstructs` of them made in a
    // construct; `constructs`: the project's, offered by name.
    OrderDialog(int designs, int inConstructs, const ConstructList& constructs, QWidget* parent = nullptr);

    // The export it describes, without the path and the designs.
    ExportRequest request() const;

    QComboBox* formatCombo() const { return format_; }
    // Each design in its run's construct, a stored construct, or the flanks typed below.
    QComboBox* constructCombo() const { return construct_; }
    QLineEdit* upstreamEdit() const { return upstream_; }
    QLineEdit* downstreamEdit() const { return downstream_; }
    QComboBox* plateCombo() const { return plate_; }
    QComboBox* fillCombo() const { return fill_; }
    QLabel* problemLabel() const { return foot_.problem; }
    QPushButton* okButton() const { return foot_.ok; }

private:
    void update();

    QComboBox* format_;
    QComboBox* construct_;
    ConstructList constructs_;
    QLineEdit* upstream_;
    QLineEdit* downstream_;
    QComboBox* plate_;
    QComboBox* fill_;
    CheckedFoot foot_;
};

}  // namespace carbon::ui
