#include "choose_designs_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>

namespace carbon::ui {

ChooseDesignsDialog::ChooseDesignsDialog(const QList<qint64>& candidates, const QStringList& scores, const SelectionList& selections,
                                         QWidget* parent)
    : QDialog(parent), candidates_(candidates), selections_(selections) {
    setWindowTitle(tr("Choose diverse designs"));
    auto* form = new QFormLayout(this);
    auto* intro = new QLabel(tr("Among the %1 stored design(s) the table shows (discarded ones left out): near-duplicates removed, "
                                "then the best-scoring design and again and again the one farthest from all chosen. A design and "
                                "its reverse complement count as one.")
                                 .arg(QLocale().toString(candidates.size())));
    intro->setWordWrap(true);
    form->addRow(intro);
    name_ = new QLineEdit;
    name_->setAccessibleName(tr("Selection name"));
    name_->setMaxLength(200);
    int n = int(selections.size()) + 1;
    auto taken = [&](const QString& s) {
        for (const carbon::storage::SelectionRecord& r : selections)
            if (QString::fromStdString(r.name) == s) return true;
        return false;
    };
    while (taken(tr("selection %1").arg(n))) ++n;
    name_->setText(tr("selection %1").arg(n));
    replace_ = new QCheckBox(tr("Replace a selection of this name"));
    form->addRow(tr("Name:"), name_);
    form->addRow(QString(), replace_);
    count_ = new QSpinBox;
    count_->setRange(1, 1000000);
    count_->setValue(int(std::min<qsizetype>(200, std::max<qsizetype>(1, candidates.size()))));
    count_->setAccessibleName(tr("How many designs to choose"));
    form->addRow(tr("Choose:"), count_);
    score_ = new QComboBox;
    score_->addItems(scores);
    score_->setAccessibleName(tr("What ranks the designs"));
    score_->setToolTip(tr("Higher is better; designs without a value are never chosen"));
    form->addRow(tr("Ranked by:"), score_);
    useMinScore_ = new QCheckBox(tr("at least"));
    minScore_ = new QDoubleSpinBox;
    minScore_->setRange(-1e9, 1e9);
    minScore_->setDecimals(3);
    minScore_->setEnabled(false);
    minScore_->setAccessibleName(tr("Lowest score chosen"));
    auto* threshold = new QHBoxLayout;
    threshold->addWidget(useMinScore_);
    threshold->addWidget(minScore_, 1);
    form->addRow(tr("Threshold:"), threshold);
    distance_ = new QComboBox;
    distance_->addItem(tr("Hamming (designs of one length)"), int(SequenceDistance::Hamming));
    distance_->addItem(tr("Edit (any lengths)"), int(SequenceDistance::Edit));
    distance_->setAccessibleName(tr("Distance between designs"));
    form->addRow(tr("Distance:"), distance_);
    minDistance_ = new QSpinBox;
    minDistance_->setRange(0, 1000000);
    minDistance_->setSpecialValueText(tr("keep all"));
    minDistance_->setAccessibleName(tr("Near-duplicate distance"));
    minDistance_->setToolTip(tr("First drop every design closer than this to a better one"));
    form->addRow(tr("Near-duplicates under:"), minDistance_);
    foot_ = addCheckedFoot(form, this, tr("Choose and Store"));
    connect(name_, &QLineEdit::textChanged, this, &ChooseDesignsDialog::update);
    connect(replace_, &QCheckBox::toggled, this, &ChooseDesignsDialog::update);
    connect(useMinScore_, &QCheckBox::toggled, minScore_, &QWidget::setEnabled);
    update();
}

void ChooseDesignsDialog::update() {
    const QString name = name_->text().trimmed();
    bool taken = false;
    for (const carbon::storage::SelectionRecord& r : selections_) taken |= QString::fromStdString(r.name) == name;
    QString problem;
    if (candidates_.isEmpty()) problem = tr("The table shows no stored designs to choose from (a project's designs, not discarded).");
    else if (name.isEmpty()) problem = tr("Give the selection a name.");
    else if (name.toUtf8().size() > 200) problem = tr("The name is %1 bytes long; a project holds names of at most 200.").arg(name.toUtf8().size());
    else if (taken && !replace_->isChecked()) problem = tr("The project has a selection named '%1': tick Replace or choose another name.").arg(name);
    showProblem(foot_, problem);
}

carbon::runs::DesignChoiceRequest ChooseDesignsDialog::request() const {
    carbon::runs::DesignChoiceRequest r;
    r.name = name_->text().trimmed().toStdString();
    r.replace = replace_->isChecked();
    r.candidates = std::vector<int64_t>(candidates_.begin(), candidates_.end());
    r.count = size_t(count_->value());
    r.score = score_->currentText().toStdString();
    if (useMinScore_->isChecked()) r.min_score = minScore_->value();
    r.distance = SequenceDistance(distance_->currentData().toInt());
    r.min_distance = size_t(minDistance_->value());
    return r;
}

}  // namespace carbon::ui
