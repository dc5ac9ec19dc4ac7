// GenerationPanel: form widgets, as-you-type validation with the engine's own parse_template
// messages, and the progress line (bp/s and ETA).
#include "generation_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include "views/checked_spin_box.h"
#include "views/objective_section.h"
#include "views/remembered_values.h"
#include "workers/motif_set.h"

#include "carbon/fns/fns.h"
#include "carbon/generation/synthesis_rules.h"
#include "synthesis_rules_combo.h"
#include "carbon/motifs/enzymes.h"

// carbon_ui is a static library, so its resources must be registered by hand; Q_INIT_RESOURCE
// has to be used outside any namespace.
static void initCarbonUiResources() { Q_INIT_RESOURCE(carbon_ui); }

namespace carbon::ui {

namespace {

QStringList splitMotifs(const QString& text) {
    return text.split(QRegularExpression(QStringLiteral("[,;\\s]+")), Qt::SkipEmptyParts);
}

// The engine's message for a bad IUPAC string, or empty when it parses.
QString iupacError(const QString& text, const char* what) {
    const QByteArray b = text.toLatin1();
    try {
        carbon::parse_template(std::string_view(b.constData(), size_t(b.size())), what);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

// A forbidden item: a motif in IUPAC letters or an enzyme by name (enzymes.h). The engine's message
// when it is neither, or empty.
QString forbiddenError(const QString& text) {
    try {
        const std::string site = carbon::EnzymeTable::builtin().site_or_motif(text.toStdString());
        const QByteArray b = QByteArray::fromStdString(site);
        carbon::parse_template(std::string_view(b.constData(), size_t(b.size())), "forbidden motif");
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

// How a forbidden item goes to the engine: an enzyme's name as written, a motif upper-cased.
std::string forbiddenItem(const QString& text) {
    const std::string s = text.toStdString();
    return carbon::EnzymeTable::builtin().find(s) ? s : text.toUpper().toStdString();
}

QLabel* errorLabel(QWidget* parent) {
    auto* l = new QLabel(parent);
    l->setStyleSheet(QStringLiteral("color: #b00020"));
    l->setWordWrap(true);
    l->hide();
    return l;
}

}  // namespace

QStringList GenerationPanel::offeredTags() {
    static const bool registered = (initCarbonUiResources(), true);
    Q_UNUSED(registered);
    QFile f(QStringLiteral(":/carbon/metadata_tags.txt"));
    QStringList tags;
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return tags;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const QString t = QString::fromUtf8(line).trimmed();
        if (!t.isEmpty() && !t.startsWith(QLatin1Char('#'))) tags << t;
    }
    return tags;
}

GenerationPanel::GenerationPanel(QWidget* parent) : QWidget(parent) {
    auto* outer = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);  // a narrow dock puts labels above their fields rather than scroll sideways
    models_ = new QLabel(this);
    models_->setWordWrap(true);
    models_->setAccessibleName(tr("Target and draft models"));
    models_->setToolTip(tr("Load a target and pair a draft in the Model panel"));
    form->addRow(tr("Models:"), models_);
    setModels({}, {});
    outer->addLayout(form);

    tags_ = new QListWidget(this);
    tags_->setAccessibleName(tr("Metadata tags"));
    for (const QString& t : offeredTags()) {
        auto* item = new QListWidgetItem(t, tags_);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    tags_->setMaximumHeight(110);
    form->addRow(tr("Tags:"), tags_);
    extraTags_ = new QLineEdit(this);
    extraTags_->setAccessibleName(tr("Extra metadata text"));
    extraTags_->setPlaceholderText(tr("free text placed before <dna>"));
    form->addRow(tr("Extra tags:"), extraTags_);
    guidance_ = new QComboBox(this);
    guidance_->addItem(tr("off"), int(TagGuidance::Mode::Off));
    guidance_->addItem(tr("conditional (tags vs none)"), int(TagGuidance::Mode::Conditional));
    guidance_->addItem(tr("contrastive (tags vs negative tags)"), int(TagGuidance::Mode::Contrastive));
    guidance_->setAccessibleName(tr("Tag guidance"));
    guidance_->setToolTip(tr("Both streams of each design run in one batch; each step chooses from "
                             "unconditioned + w (conditioned - unconditioned), or positive + w (positive - negative)"));
    form->addRow(tr("Guidance:"), guidance_);
    guidanceW_ = new QDoubleSpinBox(this);
    guidanceW_->setRange(0.0, 100.0);
    guidanceW_->setSingleStep(0.5);
    guidanceW_->setValue(2.0);
    guidanceW_->setAccessibleName(tr("Guidance strength w"));
    guidanceW_->setToolTip(tr("Conditional: 0 = no tags, 1 = the tags as usual, more = further toward them"));
    form->addRow(tr("Guidance w:"), guidanceW_);
    negativeTags_ = new QLineEdit(this);
    negativeTags_->setAccessibleName(tr("Negative metadata tags"));
    negativeTags_->setPlaceholderText(tr("e.g. <promoter><fungi>: what the designs should not read as"));
    form->addRow(tr("Negative tags:"), negativeTags_);

    template_ = new QLineEdit(this);
    template_->setAccessibleName(tr("Design template (IUPAC)"));
    template_->setPlaceholderText(tr("e.g. NNNNTATAWAWNNNN (empty: free design)"));
    templateError_ = errorLabel(this);
    form->addRow(tr("&Template:"), template_);
    form->addRow(QString(), templateError_);

    // Design length and count: a number out of range is refused at Run with the range (and said
    // as it is typed), never changed behind the user's back.
    length_ = new CheckedSpinBox(1, 1000000, this);
    length_->setValue(200);
    length_->setSuffix(tr(" bp"));
    length_->setAccessibleName(tr("Design length in bases"));
    form->addRow(tr("&Length:"), length_);
    count_ = new CheckedSpinBox(1, 10000, this);
    count_->setValue(10);
    for (CheckedSpinBox* box : {count_, length_})
        connect(box, &QSpinBox::valueChanged, this, [this, box] {
            if (!box->inRange()) setMessage(tr("%1 is not allowed here; give %2.").arg(QLocale().toString(box->value()), box->rangeText()), true);
        });
    count_->setAccessibleName(tr("Number of designs"));
    form->addRow(tr("&Designs:"), count_);
    mode_ = new QComboBox(this);
    mode_->addItem(tr("Base-level (FNS)"), int(GenerationMode::Fns));
    mode_->addItem(tr("Direct 6-mer"), int(GenerationMode::Direct));
    mode_->setAccessibleName(tr("Generation mode"));
    form->addRow(tr("&Mode:"), mode_);
    temperature_ = new QDoubleSpinBox(this);
    temperature_->setRange(0.0, 5.0);
    temperature_->setSingleStep(0.05);
    temperature_->setValue(1.0);
    temperature_->setAccessibleName(tr("Temperature"));
    temperature_->setToolTip(tr("0 picks the most likely base at every step"));
    form->addRow(tr("Temperature:"), temperature_);
    topP_ = new QDoubleSpinBox(this);
    topP_->setRange(0.01, 1.0);
    topP_->setSingleStep(0.05);
    topP_->setValue(0.95);
    topP_->setAccessibleName(tr("Top-p"));
    form->addRow(tr("Top-p:"), topP_);
    // A new seed for every run by default (Run twice, get two sets of designs), shown here and
    // stored with the run; unticked, the seed typed here is kept (the same designs again).
    seed_ = new QSpinBox(this);
    seed_->setRange(0, std::numeric_limits<int>::max());
    seed_->setAccessibleName(tr("Random seed"));
    newSeed_ = new QCheckBox(tr("new each run"), this);
    newSeed_->setChecked(true);
    newSeed_->setToolTip(tr("Draw a new seed at every Run; untick to repeat a run with the seed shown"));
    form->addRow(tr("&Seed:"), seed_);
    form->addRow(QString(), newSeed_);

    maxHomopolymer_ = new QSpinBox(this);
    maxHomopolymer_->setRange(0, 1000);
    maxHomopolymer_->setSpecialValueText(tr("no limit"));
    maxHomopolymer_->setAccessibleName(tr("Longest allowed homopolymer"));
    form->addRow(tr("Max homopolymer:"), maxHomopolymer_);
    motifs_ = new QLineEdit(this);
    motifs_->setAccessibleName(tr("Forbidden motifs"));
    motifs_->setPlaceholderText(tr("IUPAC motifs or enzymes, comma separated, e.g. GAATTC, BsaI"));
    motifsError_ = errorLabel(this);
    form->addRow(tr("Forbidden:"), motifs_);
    form->addRow(QString(), motifsError_);
    requiredSites_ = new QLineEdit(this);
    requiredSites_->setAccessibleName(tr("Required sites"));
    requiredSites_->setPlaceholderText(tr("site@position, e.g. EcoRI@12, BsaI@40:- (bottom strand)"));
    requiredSites_->setToolTip(tr("Sites every design holds at a fixed place: an enzyme by name or an IUPAC motif, its first base "
                                  "at a 1-based design position, ':-' to read it on the bottom strand"));
    requiredSitesError_ = errorLabel(this);
    form->addRow(tr("Required sites:"), requiredSites_);
    form->addRow(QString(), requiredSitesError_);
    synthesis_ = new SynthesisRulesCombo(tr("none"), this);
    connect(synthesis_, &SynthesisRulesCombo::rulesFileRequested, this, &GenerationPanel::rulesFileRequested);
    synthesis_->setAccessibleName(tr("Synthesis rules enforced while generating"));
    synthesis_->setToolTip(tr("A vendor's synthesis rules enforced while generating, across the junctions with the flanks: "
                              "GC over the design and in windows, homopolymers, repeats, hairpins, forbidden sites"));
    form->addRow(tr("Synthesis rules:"), synthesis_);
    // The construct the designs will sit in: its parts are what the model reads around the design
    // (instead of the edited sequence around the region) and what orders put around it.
    construct_ = new QComboBox(this);
    construct_->setAccessibleName(tr("Construct the designs are made in"));
    construct_->setToolTip(tr("A construct stored in the project (adapters, primers, promoter and reporter, overhangs): the model "
                              "reads its upstream before each design and its downstream after it, every constraint holds across "
                              "both junctions, and orders of the designs put them between its parts"));
    construct_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    construct_->setMinimumContentsLength(12);
    newConstruct_ = new QPushButton(tr("New…"), this);
    newConstruct_->setAccessibleName(tr("New construct"));
    newConstruct_->setToolTip(tr("Store a new construct in the project"));
    auto* constructRow = new QHBoxLayout;
    constructRow->addWidget(construct_, 1);
    constructRow->addWidget(newConstruct_);
    form->addRow(tr("Construct:"), constructRow);
    setConstructs({});
    connect(newConstruct_, &QPushButton::clicked, this, &GenerationPanel::newConstructRequested);
    gcMin_ = new QDoubleSpinBox(this);
    gcMax_ = new QDoubleSpinBox(this);
    for (QDoubleSpinBox* s : {gcMin_, gcMax_}) {
        s->setRange(0.0, 100.0);
        s->setDecimals(1);
        s->setSuffix(QStringLiteral(" %"));
    }
    gcMax_->setValue(100.0);
    gcMin_->setAccessibleName(tr("Minimum GC percent"));
    gcMax_->setAccessibleName(tr("Maximum GC percent"));
    auto* gcRow = new QHBoxLayout;
    gcRow->addWidget(gcMin_);
    gcRow->addWidget(new QLabel(tr("to"), this));
    gcRow->addWidget(gcMax_);
    form->addRow(tr("GC window:"), gcRow);
    matrixUse_ = new QComboBox(this);
    matrixUse_->setAccessibleName(tr("Transcription-factor matrices in the designs"));
    form->addRow(tr("TF matrices:"), matrixUse_);
    requiredFrom_ = new QSpinBox(this);
    requiredTo_ = new QSpinBox(this);
    for (QSpinBox* sp : {requiredFrom_, requiredTo_}) {
        sp->setRange(0, 1000000);
        sp->setSpecialValueText(tr("end"));
    }
    requiredFrom_->setSpecialValueText(tr("start"));
    requiredFrom_->setAccessibleName(tr("Required site from design position"));
    requiredTo_->setAccessibleName(tr("Required site to design position"));
    auto* spanRow = new QHBoxLayout;
    spanRow->addWidget(requiredFrom_);
    spanRow->addWidget(new QLabel(tr("to"), this));
    spanRow->addWidget(requiredTo_);
    form->addRow(tr("Required within:"), spanRow);
    setMotifSet(nullptr);
    // A combo box is as wide as its longest entry unless told otherwise: the panel fits a dock a
    // third of a laptop screen wide, the entries elided, the whole text in the popup.
    for (QComboBox* c : {guidance_, mode_, matrixUse_}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(12);
    }
    for (const auto& [w, name] : {std::pair<QWidget*, const char*>{tags_, "tags"}, {extraTags_, "extraTags"}, {guidance_, "guidance"},
                                  {guidanceW_, "guidanceWeight"}, {negativeTags_, "negativeTags"}, {length_, "length"},
                                  {count_, "count"}, {mode_, "mode"}, {temperature_, "temperature"}, {topP_, "topP"},
                                  {seed_, "seed"}, {newSeed_, "newSeedEachRun"}, {maxHomopolymer_, "maxHomopolymer"},
                                  {motifs_, "forbiddenMotifs"}, {gcMin_, "gcMin"}, {gcMax_, "gcMax"},
                                  {requiredSites_, "requiredSites"}, {synthesis_, "synthesisRules"}})
        w->setObjectName(QLatin1String(name));

    objective_ = new ObjectiveSection(this);
    outer->addWidget(objective_);

    auto* buttons = new QHBoxLayout;
    run_ = new QPushButton(tr("Run"), this);
    run_->setAccessibleName(tr("Run generation"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setAccessibleName(tr("Cancel generation"));
    cancel_->setEnabled(false);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    outer->addLayout(buttons);
    progress_ = new QProgressBar(this);
    progress_->setAccessibleName(tr("Generation progress"));
    progress_->setRange(0, 1);
    progress_->setValue(0);
    outer->addWidget(progress_);
    rate_ = new QLabel(this);
    rate_->setWordWrap(true);
    rate_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    rate_->setAccessibleName(tr("Generation status"));
    outer->addWidget(rate_);
    outer->addStretch(1);

    connect(template_, &QLineEdit::textChanged, this, &GenerationPanel::validateTemplate);
    connect(motifs_, &QLineEdit::textChanged, this, &GenerationPanel::validateMotifs);
    connect(requiredSites_, &QLineEdit::textChanged, this, [this] {
        QString err;
        try {
            carbon::parse_required_sites(requiredSites_->text().toStdString());
        } catch (const std::exception& e) {
            err = QString::fromUtf8(e.what());
        }
        requiredSitesError_->setText(err);
        requiredSitesError_->setVisible(!err.isEmpty());
    });
    connect(matrixUse_, &QComboBox::currentIndexChanged, this, &GenerationPanel::updateRequiredSpan);
    connect(guidance_, &QComboBox::currentIndexChanged, this, &GenerationPanel::updateGuidance);
    updateGuidance();
    connect(run_, &QPushButton::clicked, this, &GenerationPanel::runRequested);
    connect(cancel_, &QPushButton::clicked, this, &GenerationPanel::cancelRequested);
}

namespace {
// Choices of the matrix combo, its item data; 0 and up: require that matrix.
enum MatrixUse { kMatricesUnused = -3, kForbidAll = -2, kRequireAll = -1 };
}  // namespace

void GenerationPanel::setMotifSet(std::shared_ptr<const MotifSet> set) {
    const QString before = matrixUse_->currentText();
    motifSet_ = std::move(set);
    matrixUse_->clear();
    matrixUse_->addItem(tr("not used"), int(kMatricesUnused));
    if (motifSet_) {
        const QString p = QString::number(motifSet_->maxPvalue(), 'g', 3);
        matrixUse_->addItem(tr("forbid every loaded matrix (p ≤ %1)").arg(p), int(kForbidAll));
        if (motifSet_->size() > 1) matrixUse_->addItem(tr("require every loaded matrix (p ≤ %1)").arg(p), int(kRequireAll));
        for (int i = 0; i < motifSet_->size(); ++i)
            matrixUse_->addItem(tr("require %1 (p ≤ %2)").arg(motifSet_->name(i), p), i);
        if (const int keep = matrixUse_->findText(before); keep > 0) matrixUse_->setCurrentIndex(keep);
    }
    matrixUse_->setEnabled(motifSet_ != nullptr);
    matrixUse_->setToolTip(motifSet_ ? tr("Matrices of %1, enforced while generating on both strands").arg(motifSet_->path())
                                     : tr("Load matrices with Edit > Scan Transcription-Factor Motifs"));
    updateRequiredSpan();
}

void GenerationPanel::updateGuidance() {
    const auto mode = TagGuidance::Mode(guidance_->currentData().toInt());
    guidanceW_->setEnabled(mode != TagGuidance::Mode::Off);
    negativeTags_->setEnabled(mode == TagGuidance::Mode::Contrastive);
}

void GenerationPanel::updateRequiredSpan() {
    const bool require = matrixUse_->currentData().toInt() >= kRequireAll;
    requiredFrom_->setEnabled(require);
    requiredTo_->setEnabled(require);
}

void GenerationPanel::validateTemplate() {
    const QString t = template_->text().trimmed();
    const QString err = t.isEmpty() ? QString() : iupacError(t, "template");
    templateError_->setText(err);
    templateError_->setVisible(!err.isEmpty());
    // A template fixes the design length.
    length_->setEnabled(t.isEmpty());
    if (!t.isEmpty() && err.isEmpty()) length_->setValue(int(t.size()));
}

void GenerationPanel::validateMotifs() {
    QString err;
    for (const QString& m : splitMotifs(motifs_->text()))
        if (err = forbiddenError(m); !err.isEmpty()) break;
    motifsError_->setText(err);
    motifsError_->setVisible(!err.isEmpty());
}

QString GenerationPanel::tagsText() const {
    QStringList tags;
    for (int i = 0; i < tags_->count(); ++i)
        if (tags_->item(i)->checkState() == Qt::Checked) tags << tags_->item(i)->text();
    return tags.join(QString()) + extraTags_->text().trimmed();
}

QString GenerationPanel::negativeTagsText() const { return negativeTags_->text().trimmed(); }

void GenerationPanel::drawSeed() {
    if (newSeed_->isChecked()) seed_->setValue(int(QRandomGenerator::global()->bounded(quint32(seed_->maximum()))));
}

QList<QWidget*> GenerationPanel::rememberedWidgets() const {
    return {tags_, extraTags_, guidance_, guidanceW_, negativeTags_, length_, count_, mode_, temperature_, topP_,
            seed_, newSeed_, maxHomopolymer_, motifs_, gcMin_, gcMax_, synthesis_, objective_->keepSpin(), objective_->plausibilitySpin(),
            objective_->optimiserCombo(), objective_->budgetSpin(), objective_->roundsSpin(), objective_->proposalsSpin()};
}

void GenerationPanel::saveSettings() const {
    QSettings settings;
    saveValues(settings, QStringLiteral("generation"), rememberedWidgets());
}

void GenerationPanel::restoreSettings() {
    QSettings settings;
    // A rules file of the user's chosen last session is offered again when it still reads.
    const QString rules = settings.value(QStringLiteral("generation/synthesisRules")).toString();
    if (rules.contains(QLatin1Char('/')) && synthesis_->findData(rules) < 0)
        if (const QString error = synthesis_->addRulesFile(rules); !error.isEmpty())
            setMessage(tr("The synthesis rules chosen last time could not be read, so none are chosen: %1").arg(error), true);
    restoreValues(settings, QStringLiteral("generation"), rememberedWidgets());
    if (gcMin_->value() > gcMax_->value()) {  // a window no run accepts is not brought back
        gcMin_->setValue(0.0);
        gcMax_->setValue(100.0);
    }
}

bool GenerationPanel::buildRequest(carbon::DesignRequest& r, QString& error) const {
    if (!count_->inRange()) {
        error = tr("Designs: %1 is not allowed; give %2.").arg(QLocale().toString(count_->value()), count_->rangeText());
        return false;
    }
    if (template_->text().trimmed().isEmpty() && !length_->inRange()) {
        error = tr("Length: %1 bp is not allowed; give %2 bp.").arg(QLocale().toString(length_->value()), length_->rangeText());
        return false;
    }
    r.tags = tagsText().toStdString();
    const QString t = template_->text().trimmed().toUpper();
    if (!t.isEmpty()) {
        if (error = iupacError(t, "template"); !error.isEmpty()) return false;
        r.template_iupac = t.toStdString();
        r.length = size_t(t.size());
    } else {
        r.length = size_t(length_->value());
    }
    r.guidance.mode = TagGuidance::Mode(guidance_->currentData().toInt());
    if (r.guidance.active()) {
        r.guidance.w = guidanceW_->value();
        if (r.guidance.mode == TagGuidance::Mode::Conditional && r.tags.empty()) {
            error = tr("Conditional guidance needs tags to condition on: check one or more tags.");
            return false;
        }
        if (r.guidance.mode == TagGuidance::Mode::Contrastive) {
            r.guidance.negative_tags = negativeTagsText().toStdString();
            if (r.guidance.negative_tags.empty() || r.guidance.negative_tags == r.tags) {
                error = tr("Contrastive guidance needs negative tags that differ from the design's tags.");
                return false;
            }
        }
    }
    r.count = size_t(count_->value());
    r.mode = GenerationMode(mode_->currentData().toInt());
    r.sampling.temperature = float(temperature_->value());
    r.sampling.top_p = float(topP_->value());
    r.sampling.seed = uint64_t(seed_->value());
    r.constraints.max_homopolymer = maxHomopolymer_->value();
    for (const QString& m : splitMotifs(motifs_->text())) {
        if (error = forbiddenError(m); !error.isEmpty()) return false;
        r.constraints.forbidden_motifs.push_back(forbiddenItem(m));
    }
    if (const int use = matrixUse_->currentData().toInt(); motifSet_ && use != kMatricesUnused) {
        const int from = requiredFrom_->value(), to = requiredTo_->value();
        if (use != kForbidAll && from && to && to < from) {
            error = tr("The required site's span is empty: position %1 is after %2.").arg(from).arg(to);
            return false;
        }
        for (int i = 0; i < motifSet_->size(); ++i) {
            const std::string label = motifSet_->name(i).toStdString();
            const double p = motifSet_->maxPvalue();
            if (use == kForbidAll) r.constraints.forbidden_matrices.push_back({motifSet_->pssm(i), -1e300, label, p});
            else if (use == kRequireAll || use == i)
                r.constraints.required_matrices.push_back(
                    {motifSet_->pssm(i), -1e300, label, size_t(from ? from - 1 : 0), size_t(to), p});
        }
    }
    r.constraints.gc_min = gcMin_->value() / 100.0;
    r.constraints.gc_max = gcMax_->value() / 100.0;
    if (r.constraints.gc_min > r.constraints.gc_max) {
        error = tr("The GC window is empty: minimum %1% is above maximum %2%.").arg(gcMin_->value()).arg(gcMax_->value());
        return false;
    }
    try {
        r.constraints.required_sites = carbon::parse_required_sites(requiredSites_->text().toStdString());
    } catch (const std::exception& e) {
        error = tr("Required sites: %1").arg(QString::fromUtf8(e.what()));
        return false;
    }
    if (const QString id = synthesis_->chosenId(); !id.isEmpty()) {
        try {
            carbon::add_synthesis_constraints(carbon::SynthesisRuleSet::find(id.toStdString()), r.constraints);
        } catch (const std::exception& e) {
            error = tr("Synthesis rules: %1").arg(QString::fromUtf8(e.what()));
            return false;
        }
    }
    return true;
}

void GenerationPanel::setConstructs(const ConstructList& constructs) {
    const QString was = construct_->currentData().toString();
    constructs_ = constructs;
    construct_->clear();
    construct_->addItem(tr("none: the sequence around the region"), QString());
    construct_->setItemData(0, tr("The model reads the edited sequence before and after the design region"), Qt::ToolTipRole);
    for (const carbon::storage::ConstructRecord& c : constructs) {
        construct_->addItem(tr("%1 (%2 + %3 bp)").arg(QString::fromStdString(c.name)).arg(c.upstream.size()).arg(c.downstream.size()),
                            QString::fromStdString(c.name));
        auto shown = [](const std::string& s) {  // a long part elided in the middle
            return QString::fromStdString(s.size() <= 80 ? s : s.substr(0, 38) + "…" + s.substr(s.size() - 38));
        };
        construct_->setItemData(construct_->count() - 1, tr("Upstream %1\nDownstream %2").arg(shown(c.upstream), shown(c.downstream)),
                                Qt::ToolTipRole);
    }
    selectConstruct(was);
}

void GenerationPanel::selectConstruct(const QString& name) { construct_->setCurrentIndex(std::max(0, construct_->findData(name))); }

std::optional<carbon::storage::ConstructRecord> GenerationPanel::construct() const {
    const QString name = construct_->currentData().toString();
    for (const carbon::storage::ConstructRecord& c : constructs_)
        if (QString::fromStdString(c.name) == name) return c;
    return std::nullopt;
}

QString GenerationPanel::addRulesFile(const QString& path) {
    const QString error = synthesis_->addRulesFile(path);
    if (!error.isEmpty()) setMessage(tr("Synthesis rules: %1").arg(error), true);
    return error;
}

void GenerationPanel::setRunning(bool running) {
    run_->setEnabled(!running);
    cancel_->setEnabled(running);
    if (running) {
        progress_->setRange(0, 0);  // busy until the first progress report gives a total
        rate_->setStyleSheet({});
        rate_->setText(tr("Starting…"));
    } else if (progress_->maximum() == 0) {
        progress_->setRange(0, 1);
    }
}

void GenerationPanel::setProgress(qint64 done, qint64 total, double basesPerSecond) {
    // QProgressBar takes int; scale so a huge run still fits.
    const double scale = total > 1000000000 ? 1000.0 : 1.0;
    progress_->setRange(0, int(double(total) / scale));
    progress_->setValue(int(double(done) / scale));
    QString text = tr("%1 / %2 bp, %3 bp/s").arg(done).arg(total).arg(basesPerSecond, 0, 'f', 0);
    if (basesPerSecond > 0 && done < total)
        text += tr(", about %1 s left").arg(double(total - done) / basesPerSecond, 0, 'f', 0);
    rate_->setText(text);
}

void GenerationPanel::setRankingProgress(qint64 done, qint64 total, const QString& predictor) {
    progress_->setRange(0, int(std::min<qint64>(total, 1 << 30)));
    progress_->setValue(int(std::min(done, total)));
    rate_->setStyleSheet({});
    rate_->setText(tr("Ranking: %1 of %2 design(s) predicted by %3").arg(done).arg(total).arg(predictor));
}

void GenerationPanel::setEvolutionProgress(qint64 round, qint64 done, qint64 total) {
    progress_->setRange(0, int(std::min<qint64>(total, 1 << 30)));
    progress_->setValue(int(std::min(done, total)));
    rate_->setStyleSheet({});
    rate_->setText(tr("Evolution round %1: %2 of %3 candidate edit(s) predicted").arg(round).arg(done).arg(total));
}

void GenerationPanel::setMessage(const QString& text, bool error) {
    rate_->setStyleSheet(error ? QStringLiteral("color: #b00020") : QString());
    rate_->setText(text);
}

QString GenerationPanel::message() const { return rate_->text(); }

void GenerationPanel::setModels(const QString& target, const QString& draft) {
    auto name = [](const QString& dir) { return QFileInfo(dir).fileName().isEmpty() ? dir : QFileInfo(dir).fileName(); };
    models_->setText(target.isEmpty() ? tr("no target loaded (Model panel)")
                     : draft.isEmpty() ? tr("target %1, no draft").arg(name(target))
                                       : tr("target %1, draft %2 (speculative decoding)").arg(name(target), name(draft)));
}

}  // namespace carbon::ui
