#include "order_dialog.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "carbon/storage/order_files.h"

namespace carbon::ui {

namespace {
const QString kRunConstructs = QStringLiteral("\x01run"), kTyped = QStringLiteral("\x01typed");  // no construct's name
}

OrderDialog::OrderDialog(int designs, int inConstructs, const ConstructList& constructs, QWidget* parent)
    : QDialog(parent), constructs_(constructs) {
    setWindowTitle(tr("Order designs"));
    auto* form = new QFormLayout(this);
    auto* intro = new QLabel(tr("%n selected design(s), each ordered as upstream flank + design + downstream flank", nullptr, designs) +
                             (inConstructs ? tr(" (%1 of them made in a construct).").arg(inConstructs) : tr(".")));
    intro->setWordWrap(true);
    form->addRow(intro);
    construct_ = new QComboBox;
    construct_->setAccessibleName(tr("Construct of the order"));
    construct_->addItem(tr("Each design's own (its run's construct)"), kRunConstructs);
    construct_->setItemData(0, tr("Designs made in a construct are ordered in it; the others bare"), Qt::ToolTipRole);
    for (const carbon::storage::ConstructRecord& c : constructs)
        construct_->addItem(tr("%1 (%2 + %3 bp)").arg(QString::fromStdString(c.name)).arg(c.upstream.size()).arg(c.downstream.size()),
                            QString::fromStdString(c.name));
    construct_->addItem(tr("Flanks typed below"), kTyped);
    construct_->setCurrentIndex(inConstructs ? 0 : construct_->count() - 1);
    format_ = new QComboBox;
    format_->addItem(tr("Twist oligo pool (CSV)"), int(ExportFormat::TwistCsv));
    format_->addItem(tr("IDT plates (.xlsx)"), int(ExportFormat::IdtXlsx));
    format_->addItem(tr("Constructs as FASTA"), int(ExportFormat::ConstructsFasta));
    format_->addItem(tr("Constructs as GenBank (parts as features)"), int(ExportFormat::ConstructsGenBank));
    form->addRow(tr("File:"), format_);
    form->addRow(tr("Construct:"), construct_);
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
    foot_ = addCheckedFoot(form, this, tr("Export…"));
    connect(format_, &QComboBox::currentIndexChanged, this, &OrderDialog::update);
    connect(construct_, &QComboBox::currentIndexChanged, this, [this] {
        const QString chosen = construct_->currentData().toString();
        for (const carbon::storage::ConstructRecord& c : constructs_)
            if (QString::fromStdString(c.name) == chosen) {
                upstream_->setText(QString::fromStdString(c.upstream));
                downstream_->setText(QString::fromStdString(c.downstream));
            }
        if (chosen == kRunConstructs) {
            upstream_->clear();
            downstream_->clear();
        }
        update();
    });
    connect(upstream_, &QLineEdit::textChanged, this, &OrderDialog::update);
    connect(downstream_, &QLineEdit::textChanged, this, &OrderDialog::update);
    update();
}

void OrderDialog::update() {
    const bool idt = format_->currentData().toInt() == int(ExportFormat::IdtXlsx);
    plate_->setEnabled(idt);
    fill_->setEnabled(idt);
    const bool typed = construct_->currentData().toString() == kTyped;
    upstream_->setReadOnly(!typed);
    downstream_->setReadOnly(!typed);
    const QString each = tr("each design's run's construct");
    upstream_->setPlaceholderText(construct_->currentIndex() == 0 ? each : tr("A, C, G, T: an adapter or primer before each design (optional)"));
    downstream_->setPlaceholderText(construct_->currentIndex() == 0 ? each : tr("A, C, G, T: after each design (optional)"));
    QString problem;
    try {
        storage::checked_flanks({upstream_->text().trimmed().toStdString(), downstream_->text().trimmed().toStdString()});
    } catch (const std::exception& e) {
        problem = QString::fromUtf8(e.what());
    }
    showProblem(foot_, problem);
}

ExportRequest OrderDialog::request() const {
    ExportRequest r;
    r.format = ExportFormat(format_->currentData().toInt());
    r.runConstructs = construct_->currentData().toString() == kRunConstructs;
    r.upstream = upstream_->text().trimmed();
    r.downstream = downstream_->text().trimmed();
    r.plateWells = plate_->currentData().toInt();
    r.fillRows = fill_->currentData().toBool();
    return r;
}

}  // namespace carbon::ui
