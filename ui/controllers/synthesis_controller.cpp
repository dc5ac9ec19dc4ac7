// SynthesisController: the open sequence checked against a vendor's synthesis rules, framed in
// the editor (see synthesis_controller.h).
#include "synthesis_controller.h"

#include <QAction>
#include <QApplication>
#include <QInputDialog>
#include <QMenu>
#include <QPointer>
#include <QThreadPool>
#include <QTimer>

#include <algorithm>
#include <string>

#include "carbon/generation/synthesis_rules.h"
#include "controllers/motif_controller.h"
#include "controllers/window_services.h"
#include "document/sequence_document.h"

namespace carbon::ui {

SynthesisController::SynthesisController(SequenceDocument* doc, MotifController* frames, WindowServices* services, QObject* parent)
    : QObject(parent), doc_(doc), frames_(frames), services_(services) {
    auto* again = new QTimer(this);
    again->setSingleShot(true);
    again->setInterval(300);
    connect(again, &QTimer::timeout, this, &SynthesisController::scan);
    connect(doc_, &SequenceDocument::changed, this, [this, again] {
        if (!rules_) return;
        ++token_;  // a check of the bases before the edit no longer lands (the editor dropped its frames)
        again->start();
    });
}

SynthesisController::~SynthesisController() = default;

void SynthesisController::addEditActions(QMenu* edit) {
    QAction* check = edit->addAction(tr("Check S&ynthesis of the Sequence…"));
    check->setToolTip(tr("Frame where the sequence breaks a vendor's synthesis rules (runs, repeats, hairpins, GC windows, sites)"));
    connect(check, &QAction::triggered, this, [this] {
        QStringList names{tr("None (clear the frames)")};
        QStringList ids{QString()};
        for (const carbon::SynthesisRuleSet& s : carbon::SynthesisRuleSet::builtin()) {
            names << QString::fromStdString(s.name);
            ids << QString::fromStdString(s.id);
        }
        const int current = rules_ ? int(ids.indexOf(QString::fromStdString(rules_->id))) : 1;
        bool ok = false;
        const QString name = QInputDialog::getItem(services_->window(), tr("Check synthesis"), tr("Vendor's rules:"), names,
                                                   std::max(current, 0), false, &ok);
        if (!ok) return;
        const QString why = checkSequence(ids.value(names.indexOf(name)));
        if (!why.isEmpty()) services_->error(tr("Check synthesis: %1").arg(why));
    });
}

QString SynthesisController::checkSequence(const QString& id) {
    if (id.isEmpty()) {
        ++token_;
        rules_.reset();
        summary_.clear();
        frames_->setSynthesisFrames({});
        services_->message(tr("Synthesis frames cleared"), 5000);
        return {};
    }
    for (const carbon::SynthesisRuleSet& s : carbon::SynthesisRuleSet::builtin())
        if (QString::fromStdString(s.id) == id) {
            rules_ = std::make_shared<const carbon::SynthesisRuleSet>(s);
            scan();
            return {};
        }
    return tr("'%1' is not one of the built-in rule sets").arg(id);
}

void SynthesisController::scan() {
    if (!rules_) return;
    const quint64 token = ++token_;
    QPointer<SynthesisController> self(this);
    QThreadPool::globalInstance()->start([self, rules = rules_, bases = doc_->bases(), name = doc_->displayName(), token] {
        QVector<SequenceEditor::MotifFrame> frames;
        QStringList whole;  // rules about the whole sequence
        QString error;
        int broken = 0;
        try {
            const std::vector<carbon::SynthesisBreach> breaches =
                carbon::check_synthesis(*rules, std::string_view(bases.constData(), size_t(bases.size())));
            broken = int(breaches.size());
            for (const carbon::SynthesisBreach& b : breaches) {
                const carbon::SynthesisRule& rule = rules->rules[b.rule];
                const QString what = QString::fromStdString(rule.describe()) + QStringLiteral(": ") + QString::fromStdString(b.what);
                if (rule.kind == carbon::SynthesisRuleKind::Length || rule.kind == carbon::SynthesisRuleKind::Gc) {
                    whole << QString::fromStdString(b.what);
                    continue;
                }
                for (const carbon::SequenceSpan& s : carbon::merged_locations(b.locations)) {
                    const size_t e = std::min(s.second, size_t(bases.size()));  // DnaChisel's hairpin end can pass the sequence's
                    frames.append({qsizetype(s.first), qsizetype(e), '+', what});
                }
            }
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
            broken = -1;
        }
        QMetaObject::invokeMethod(qApp, [self, frames = std::move(frames), whole, error, broken, name, rules, token] {
            if (!self || token != self->token_) return;
            const QString set = QString::fromStdString(rules->name);
            if (broken < 0)
                self->summary_ = tr("%1 cannot be checked against %2: %3").arg(name, set, error);
            else if (broken == 0)
                self->summary_ = tr("%1 keeps every rule of %2").arg(name, set);
            else
                self->summary_ = tr("%1 breaks %n rule(s) of %2", nullptr, broken).arg(name, set) +
                                 (whole.isEmpty() ? QString() : QStringLiteral(": ") + whole.join(QStringLiteral("; ")));
            self->frames_->setSynthesisFrames(frames);
            self->services_->message(self->summary_, 10000);
            emit self->checked(broken);
        }, Qt::QueuedConnection);
    });
}

}  // namespace carbon::ui
