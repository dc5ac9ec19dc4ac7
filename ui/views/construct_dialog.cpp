#include "construct_dialog.h"

#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>

#include "carbon/storage/order_files.h"
#include "checked_form.h"

namespace carbon::ui {

namespace {

// Bases as pasted: blanks and line breaks dropped (a sequence copied from a document or a FASTA).
std::string bases(const QPlainTextEdit* e) {
    std::string s;
    for (const QChar c : e->toPlainText())
        if (!c.isSpace()) s += char(c.unicode() < 128 ? c.unicode() : '?');
    return s;
}

QPlainTextEdit* sequenceEdit(const QString& placeholder, const QString& accessible) {
    auto* e = new QPlainTextEdit;
    e->setPlaceholderText(placeholder);
    e->setAccessibleName(accessible);
    e->setTabChangesFocus(true);
    e->setFixedHeight(e->fontMetrics().lineSpacing() * 3 + 12);
    return e;
}

}  // namespace

ConstructDialog::ConstructDialog(const ConstructList& existing, QWidget* parent) : QDialog(parent), existing_(existing) {
    setWindowTitle(tr("New construct"));
    auto* form = new QFormLayout(this);
    form->addRow(new QLabel(tr("A design made in a construct sits between its upstream and downstream sequences: the model reads them "
                               "around the design, constraints hold across both junctions, and orders put them around it.")));
    qobject_cast<QLabel*>(form->itemAt(0, QFormLayout::SpanningRole)->widget())->setWordWrap(true);
    name_ = new QLineEdit;
    name_->setAccessibleName(tr("Construct name"));
    name_->setPlaceholderText(tr("e.g. MPRA v1"));
    name_->setMaxLength(200);
    form->addRow(tr("Name:"), name_);
    upstream_ = sequenceEdit(tr("A, C, G, T before each design (adapter, primer, promoter)"), tr("Upstream sequence"));
    form->addRow(tr("Upstream:"), upstream_);
    downstream_ = sequenceEdit(tr("A, C, G, T after each design (adapter, reporter, overhang)"), tr("Downstream sequence"));
    form->addRow(tr("Downstream:"), downstream_);
    description_ = new QLineEdit;
    description_->setAccessibleName(tr("Construct description"));
    form->addRow(tr("Description:"), description_);
    foot_ = addCheckedFoot(form, this, tr("Add"));
    connect(name_, &QLineEdit::textChanged, this, &ConstructDialog::update);
    connect(upstream_, &QPlainTextEdit::textChanged, this, &ConstructDialog::update);
    connect(downstream_, &QPlainTextEdit::textChanged, this, &ConstructDialog::update);
    resize(520, sizeHint().height());
    update();
}

carbon::storage::ConstructRecord ConstructDialog::construct() const {
    carbon::storage::ConstructRecord c;
    c.name = name_->text().trimmed().toStdString();
    c.upstream = bases(upstream_);
    c.downstream = bases(downstream_);
    c.description = description_->text().trimmed().toStdString();
    return c;
}

void ConstructDialog::update() {
    const carbon::storage::ConstructRecord c = construct();
    QString problem;
    if (c.name.empty()) problem = tr("Give the construct a name.");
    else if (c.name.size() > 200) problem = tr("The name is %1 bytes long; a project holds names of at most 200.").arg(c.name.size());
    for (const carbon::storage::ConstructRecord& e : existing_)
        if (e.name == c.name) problem = tr("The project has a construct named '%1' already.").arg(QString::fromStdString(c.name));
    if (problem.isEmpty()) {
        try {
            carbon::storage::checked_flanks({c.upstream, c.downstream});
            if (c.upstream.empty() && c.downstream.empty()) problem = tr("Give the upstream or the downstream sequence (or both).");
        } catch (const std::exception& e) {
            problem = QString::fromUtf8(e.what());
        }
    }
    showProblem(foot_, problem);
}

}  // namespace carbon::ui
