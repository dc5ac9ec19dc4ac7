#include "order_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "carbon/storage/order_files.h"

namespace carbon::ui {

OrderDialog::OrderDialog(int designs, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Order designs"));
    auto* form = new QFormLayout(this);
    form->addRow(new QLabel(tr("%n selected design(s), each ordered as upstream flank + design + downstream flank.", nullptr, designs)));
    format_ = new QComboBox;
    format_->addItem(tr("Twist oligo pool (CSV)"), int(ExportFormat::TwistCsv));
    format_->addItem(tr("IDT plates (.xlsx)"), int(ExportFormat::IdtXlsx));
    format_->addItem(tr("Constructs as FASTA"), int(ExportFormat::ConstructsFasta));
    format_->addItem(tr("Constructs as GenBank (parts as features)"), int(ExportFormat::ConstructsGenBank));
    form->addRow(tr("File:"), format_);
    upstream_ = new QLineEdit;
    upstream_->setPlaceholderText(tr("A, C, G, T: an adapter or primer before each design (optional)"));
    form->addRow(tr("Upstream:"), upstream_);
    downstream_ = new QLineEdit;
    downstream_->setPlaceholderText(tr("A, C, G, T: after each design (optional)"));
    form->addRow(tr("Downstream:"), downstream_);
    plate_ = new QComboBox;
    plate_->addItem(tr("96 wells"), 96);
    plate_->addItem(tr("384 wells"), 384);
    form->addRow(tr("Plate:"), plate_);
    fill_ = new QComboBox;
    fill_->addItem(tr("By columns (A1, B1, … H1, A2)"), false);
    fill_->addItem(tr("By rows (A1, A2, … A12, B1)"), true);
    form->addRow(tr("Fill:"), fill_);
    problem_ = new QLabel;
    problem_->setWordWrap(true);
    problem_->setStyleSheet(QStringLiteral("color: palette(highlight)"));
    form->addRow(problem_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    ok_ = buttons->button(QDialogButtonBox::Ok);
    ok_->setText(tr("Export…"));
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(format_, &QComboBox::currentIndexChanged, this, &OrderDialog::update);
    connect(upstream_, &QLineEdit::textChanged, this, &OrderDialog::update);
    connect(downstream_, &QLineEdit::textChanged, this, &OrderDialog::update);
    update();
}

void OrderDialog::update() {
    const bool idt = format_->currentData().toInt() == int(ExportFormat::IdtXlsx);
    plate_->setEnabled(idt);
    fill_->setEnabled(idt);
    QString problem;
    try {
        storage::checked_flanks({upstream_->text().trimmed().toStdString(), downstream_->text().trimmed().toStdString()});
    } catch (const std::exception& e) {
        problem = QString::fromUtf8(e.what());
    }
    problem_->setText(problem);
    problem_->setVisible(!problem.isEmpty());
    ok_->setEnabled(problem.isEmpty());
}

ExportRequest OrderDialog::request() const {
    ExportRequest r;
    r.format = ExportFormat(format_->currentData().toInt());
    r.upstream = upstream_->text().trimmed();
    r.downstream = downstream_->text().trimmed();
    r.plateWells = plate_->currentData().toInt();
    r.fillRows = fill_->currentData().toBool();
    return r;
}

}  // namespace carbon::ui
