// The Generation panel's objective section (see objective_section.h).
#include "objective_section.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>

#include "carbon/predict/objective.h"

namespace carbon::ui {

namespace {
std::vector<std::string> conditionsOf(const StoredPredictor& p) {
    std::vector<std::string> names;
    for (const QString& o : p.outputs()) names.push_back(o.toStdString());
    return names;
}
}  // namespace

ObjectiveSection::ObjectiveSection(QWidget* parent) : QGroupBox(tr("Objective: optimise a predicted activity"), parent) {
    setObjectName(QStringLiteral("objectiveSection"));
    setCheckable(true);
    setChecked(false);
    setToolTip(tr("Ticked: every design of the run is predicted by an activity predictor of the project and the designs are "
                  "ranked by the objective; the best are kept and stored with their predicted values"));
    auto* form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    predictor_ = new QComboBox(this);
    predictor_->setAccessibleName(tr("Ranking predictor"));
    predictor_->setToolTip(tr("The project's activity predictors (Predictors panel: Fit from Measurements)"));
    form->addRow(tr("Predictor:"), predictor_);
    objective_ = new QComboBox(this);
    objective_->setEditable(true);
    objective_->setInsertPolicy(QComboBox::NoInsert);
    objective_->setAccessibleName(tr("Objective"));
    objective_->setToolTip(tr("A condition (K562), its MinGap specificity: the condition minus the highest of the others "
                              "(mingap:K562) or of those named (mingap:K562-HepG2,SKNSH), or a weighted sum "
                              "(sum:K562=1,HepG2=-0.5)"));
    form->addRow(tr("Maximise:"), objective_);
    optimiser_ = new QComboBox(this);
    optimiser_->setObjectName(QStringLiteral("optimiser"));
    optimiser_->setAccessibleName(tr("Optimiser"));
    optimiser_->addItem(tr("Generate and rank"), int(ObjectiveOrder::Optimiser::Rank));
    optimiser_->addItem(tr("Evolve the design region"), int(ObjectiveOrder::Optimiser::Evolve));
    optimiser_->setToolTip(tr("Generate and rank: the run's designs are predicted and the best kept. Evolve: the bases of the "
                              "design region are improved by single-base edits, round by round, within an edit budget and "
                              "the run's constraints"));
    form->addRow(tr("Optimiser:"), optimiser_);
    keep_ = new QSpinBox(this);
    keep_->setRange(0, 1000000);
    keep_->setSpecialValueText(tr("all, ranked"));
    keep_->setObjectName(QStringLiteral("rankKeep"));
    keep_->setAccessibleName(tr("Designs kept"));
    keep_->setToolTip(tr("The best this many designs are kept and stored; the others are dropped"));
    form->addRow(tr("Keep best:"), keep_);
    plausibility_ = new QDoubleSpinBox(this);
    plausibility_->setRange(0, 100);
    plausibility_->setDecimals(2);
    plausibility_->setSingleStep(0.1);
    plausibility_->setSpecialValueText(tr("none"));
    plausibility_->setObjectName(QStringLiteral("plausibilityWeight"));
    plausibility_->setAccessibleName(tr("Plausibility weight"));
    plausibility_->setToolTip(tr("Rank by the objective plus W x the design's base-level mean log p under the run's tags, "
                                 "so designs stay where the language model finds DNA likely"));
    form->addRow(tr("Plausibility W:"), plausibility_);
    budget_ = new QSpinBox(this);
    budget_->setObjectName(QStringLiteral("editBudget"));
    budget_->setRange(1, 1000000);
    budget_->setValue(10);
    budget_->setAccessibleName(tr("Edit budget"));
    budget_->setToolTip(tr("At most this many positions may differ from the start"));
    form->addRow(tr("Edit budget:"), budget_);
    rounds_ = new QSpinBox(this);
    rounds_->setObjectName(QStringLiteral("evolutionRounds"));
    rounds_->setRange(0, 1000000);
    rounds_->setSpecialValueText(tr("until no edit helps"));
    rounds_->setAccessibleName(tr("Rounds"));
    rounds_->setToolTip(tr("Rounds at most (one edit kept per round); it stops sooner when no allowed edit raises the objective"));
    form->addRow(tr("Rounds:"), rounds_);
    proposals_ = new QSpinBox(this);
    proposals_->setObjectName(QStringLiteral("evolutionProposals"));
    proposals_->setRange(0, 1000000);
    proposals_->setSpecialValueText(tr("every allowed edit"));
    proposals_->setAccessibleName(tr("Proposals per round"));
    proposals_->setToolTip(tr("Candidates per round: every allowed single-base edit, or this many drawn from the model's per-base "
                              "probabilities (edits Carbon finds likely proposed more often; the run's seed)"));
    form->addRow(tr("Proposals:"), proposals_);
    accuracy_ = new QLabel(this);
    accuracy_->setWordWrap(true);
    accuracy_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    accuracy_->setAccessibleName(tr("Predictor accuracy"));
    form->addRow(accuracy_);
    for (QComboBox* c : {predictor_, objective_}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(12);
    }
    connect(predictor_, &QComboBox::currentIndexChanged, this, &ObjectiveSection::showPredictor);
    connect(optimiser_, &QComboBox::currentIndexChanged, this, &ObjectiveSection::showOptimiser);
    showPredictor();
    showOptimiser();
}

void ObjectiveSection::setPredictors(const QList<StoredPredictor>& predictors) {
    const QString was = predictor_->currentText();
    predictors_.clear();
    for (const StoredPredictor& p : predictors)
        if (p.usable()) predictors_.append(p);
    {
        const QSignalBlocker block(predictor_);
        predictor_->clear();
        for (const StoredPredictor& p : predictors_) predictor_->addItem(p.name);
        const int keep = predictor_->findText(was);
        predictor_->setCurrentIndex(keep >= 0 ? keep : predictor_->count() - 1);  // a new fit is the likely choice
    }
    showPredictor();
}

int ObjectiveSection::predictorCount() const { return int(predictors_.size()); }

const StoredPredictor* ObjectiveSection::chosen() const {
    const int i = predictor_->currentIndex();
    return i >= 0 && i < predictors_.size() ? &predictors_[i] : nullptr;
}

void ObjectiveSection::showPredictor() {
    const StoredPredictor* p = chosen();
    const QString typed = objective_->currentText();
    objective_->clear();
    if (!p) {
        accuracy_->setText(tr("No predictor in the project yet: fit one to measurements in the Predictors panel."));
        objective_->setEditText(typed);
        return;
    }
    const std::vector<std::string> names = conditionsOf(*p);
    for (const std::string& n : names) objective_->addItem(QString::fromStdString(n));
    if (names.size() > 1)
        for (const std::string& n : names) {
            // A name the MinGap syntax cannot hold (SK-N-SH: '-' separates the off-targets) is not
            // offered as a MinGap; the user can still type sum:... for it.
            const QString spec = QStringLiteral("mingap:") + QString::fromStdString(n);
            try {
                const carbon::Objective o = carbon::Objective::parse(spec.toStdString(), names, "objective");
                objective_->addItem(spec);
                objective_->setItemData(objective_->count() - 1, QString::fromStdString(o.describe(names)), Qt::ToolTipRole);
            } catch (const std::exception&) {
            }
        }
    const int same = objective_->findText(typed);
    if (same >= 0) objective_->setCurrentIndex(same);
    else if (!typed.isEmpty() && typed.contains(QLatin1Char(':'))) objective_->setEditText(typed);  // a typed sum or gap stays
    QStringList lines;
    for (size_t i = 0; i < names.size(); ++i)
        lines << QStringLiteral("%1: %2").arg(QString::fromStdString(names[i]),
                                              p->heldOut(int(i)).isEmpty() ? tr("held-out accuracy not known") : p->heldOut(int(i)));
    if (!p->checkpoint.isEmpty()) lines << tr("A fine-tuned checkpoint (%1). %2").arg(p->checkpoint, p->note);
    accuracy_->setText(lines.join(QLatin1Char('\n')));
}

void ObjectiveSection::showOptimiser() {
    const bool evolve = optimiser_->currentData().toInt() == int(ObjectiveOrder::Optimiser::Evolve);
    auto* form = static_cast<QFormLayout*>(layout());
    form->setRowVisible(keep_, !evolve);
    for (QWidget* w : {static_cast<QWidget*>(budget_), static_cast<QWidget*>(rounds_), static_cast<QWidget*>(proposals_)})
        form->setRowVisible(w, evolve);
}

QString ObjectiveSection::accuracyText() const { return accuracy_->text(); }

bool ObjectiveSection::order(ObjectiveOrder& out, QString& error) const {
    out = ObjectiveOrder{};
    if (!isChecked()) return true;
    const StoredPredictor* p = chosen();
    if (!p) {
        error = tr("Objective: the project has no predictor to rank by: fit one in the Predictors panel, or untick the objective.");
        return false;
    }
    const QString spec = objective_->currentText().trimmed();
    if (spec.isEmpty()) {
        error = tr("Objective: say what to maximise (a condition of %1, such as %2).")
                    .arg(p->name, p->outputs().value(0));
        return false;
    }
    try {
        (void)carbon::Objective::parse(spec.toStdString(), conditionsOf(*p), "objective");
    } catch (const std::exception& e) {
        error = tr("Objective of predictor %1: %2").arg(p->name, QString::fromUtf8(e.what()));
        return false;
    }
    out.probe = p->probe;
    out.checkpoint = p->checkpoint;
    out.predictor = p->name;
    out.objective = spec;
    out.optimiser = ObjectiveOrder::Optimiser(optimiser_->currentData().toInt());
    out.keep = keep_->value();
    out.plausibility = plausibility_->value();
    out.budget = budget_->value();
    out.rounds = rounds_->value();
    out.proposals = proposals_->value();
    return true;
}

}  // namespace carbon::ui
