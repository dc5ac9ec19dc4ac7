// GenerationPanel: the settings of a design request (tags, template, length, count, mode,
// sampling, constraints, required sites, a vendor's synthesis rules, the construct the designs sit
// in), Run / Cancel and the progress of the current run. It builds the DesignRequest without the
// sequence context; the generation controller adds the context and flank (the construct's parts
// when one is chosen).
#pragma once

#include <QString>
#include <QWidget>
#include <memory>
#include <optional>

#include "carbon/generation/fns_generate.h"
#include "views/checked_spin_box.h"
#include "views/synthesis_rules_combo.h"
#include "workers/project_types.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace carbon::ui {

class MotifSet;
class ObjectiveSection;

class GenerationPanel : public QWidget {
    Q_OBJECT
public:
    explicit GenerationPanel(QWidget* parent = nullptr);

    // The request from the current settings, or an error text naming the bad field.
    bool buildRequest(carbon::DesignRequest& out, QString& error) const;
    // Before a Run: a new seed into the seed box when "new each run" is ticked (the default).
    void drawSeed();
    QCheckBox* newSeedCheck() const { return newSeed_; }
    // The settings kept between sessions (QSettings group "generation"): tags, guidance, length,
    // count, mode, sampling, the seed and whether it is new each run, the constraints. Not the
    // template or the required span (they belong to a sequence's regions) nor the matrix use (to
    // the matrices loaded). Saved at each Run; restored when the application starts.
    void saveSettings() const;
    void restoreSettings();
    QSpinBox* seedSpin() const { return seed_; }
    // The tags the designs are conditioned on (checked tags, then the extra text), and the
    // negative tags as typed: what a specificity track compares.
    QString tagsText() const;
    QString negativeTagsText() const;
    // The metadata tags offered (from the embedded resources/metadata_tags.txt).
    static QStringList offeredTags();

    // Direct access for tests and the generation controller.
    QString message() const;  // the line under the progress bar
    QLineEdit* templateEdit() const { return template_; }
    QSpinBox* lengthSpin() const { return length_; }
    QSpinBox* countSpin() const { return count_; }
    QDoubleSpinBox* temperatureSpin() const { return temperature_; }
    QComboBox* matrixUseCombo() const { return matrixUse_; }
    QComboBox* guidanceCombo() const { return guidance_; }
    QDoubleSpinBox* guidanceWeightSpin() const { return guidanceW_; }
    QLineEdit* negativeTagsEdit() const { return negativeTags_; }
    QSpinBox* requiredFromSpin() const { return requiredFrom_; }
    QSpinBox* requiredToSpin() const { return requiredTo_; }
    QLineEdit* requiredSitesEdit() const { return requiredSites_; }
    SynthesisRulesCombo* synthesisCombo() const { return synthesis_; }
    // Reads a rules file of the user's and chooses it; the error is also said in the panel.
    QString addRulesFile(const QString& path);
    // The project's constructs offered (the choice kept by name where it still exists), the one
    // chosen (nullopt: the sequence around the region is the context), and choosing one by name.
    void setConstructs(const ConstructList& constructs);
    std::optional<carbon::storage::ConstructRecord> construct() const;
    void selectConstruct(const QString& name);
    QComboBox* constructCombo() const { return construct_; }
    // Generate and rank: the predictor, objective, designs kept and plausibility weight.
    ObjectiveSection* objective() const { return objective_; }

public slots:
    void setRunning(bool running);
    void setProgress(qint64 done, qint64 total, double basesPerSecond);
    // Generate and rank, after the designs are made: designs predicted by `predictor` so far.
    void setRankingProgress(qint64 done, qint64 total, const QString& predictor);
    // Evolution: candidate edits of round `round` predicted so far.
    void setEvolutionProgress(qint64 round, qint64 done, qint64 total);
    void setMessage(const QString& text, bool error = false);
    // The target and draft folders runs will use (empty: none), shown at the top.
    void setModels(const QString& target, const QString& draft);
    // The transcription-factor matrices loaded in the window (Edit > Scan Motifs; null: none),
    // offered as constraints: every one forbidden, or one (or every one) required inside a span.
    void setMotifSet(std::shared_ptr<const MotifSet> set);

signals:
    void rulesFileRequested();     // "Rules File…" chosen: the controller asks for the file
    void newConstructRequested();  // the construct row's New… button
    void runRequested();
    void cancelRequested();

private:
    void validateTemplate();
    void validateMotifs();
    void updateRequiredSpan();  // the span boxes are for "require" only
    void updateGuidance();      // w for guidance, negative tags for contrastive only
    QList<QWidget*> rememberedWidgets() const;

    QLabel* models_;
    QListWidget* tags_;
    QLineEdit* extraTags_;
    QComboBox* guidance_;
    QDoubleSpinBox* guidanceW_;
    QLineEdit* negativeTags_;
    QLineEdit* template_;
    QLabel* templateError_;
    CheckedSpinBox* length_;
    CheckedSpinBox* count_;
    QComboBox* mode_;
    QDoubleSpinBox* temperature_;
    QDoubleSpinBox* topP_;
    QSpinBox* seed_;
    QCheckBox* newSeed_;
    QSpinBox* maxHomopolymer_;
    QLineEdit* motifs_;
    QLabel* motifsError_;
    QLineEdit* requiredSites_;
    QLabel* requiredSitesError_;
    SynthesisRulesCombo* synthesis_;
    QComboBox* construct_;
    QPushButton* newConstruct_;
    ConstructList constructs_;
    QDoubleSpinBox* gcMin_;
    QDoubleSpinBox* gcMax_;
    QComboBox* matrixUse_;
    QSpinBox* requiredFrom_;
    QSpinBox* requiredTo_;
    std::shared_ptr<const MotifSet> motifSet_;
    ObjectiveSection* objective_;
    QPushButton* run_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    QLabel* rate_;
};

}  // namespace carbon::ui
