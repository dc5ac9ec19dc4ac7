// SynthesisController: Edit > Check Synthesis of the Sequence… frames in the editor where the
// sequence open breaks a vendor's synthesis rules (carbon/generation/synthesis_rules.h: runs,
// repeats, hairpins, GC windows, forbidden sites), each frame naming the rule and what it found,
// rechecked after every edit; rules about the whole sequence (length, overall GC) are said in the
// status bar. The frames join the matrix hits and enzyme sites the MotifController shows.
#pragma once

#include <QObject>
#include <QString>
#include <memory>

class QMenu;

namespace carbon {
struct SynthesisRuleSet;
}

namespace carbon::ui {

class MotifController;
class SequenceDocument;
class WindowServices;

class SynthesisController : public QObject {
    Q_OBJECT
public:
    SynthesisController(SequenceDocument* doc, MotifController* frames, WindowServices* services, QObject* parent = nullptr);
    ~SynthesisController() override;
    void addEditActions(QMenu* edit);
    // Checks the open sequence against the built-in rule set `id` ("": clears); returns why when
    // there is no such set, and then changes nothing.
    QString checkSequence(const QString& id);
    const carbon::SynthesisRuleSet* rules() const { return rules_.get(); }
    // The last check's summary (the status bar's text): which sequence, which set, what broke.
    const QString& summary() const { return summary_; }

signals:
    void checked(int breaches);  // the frames are up to date (-1: the sequence cannot be checked)

private:
    void scan();

    SequenceDocument* doc_;
    MotifController* frames_;
    WindowServices* services_;
    std::shared_ptr<const carbon::SynthesisRuleSet> rules_;
    quint64 token_ = 0;
    QString summary_;
};

}  // namespace carbon::ui
