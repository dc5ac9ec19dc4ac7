#include "synthesis_rules_combo.h"

#include <QFileInfo>
#include <QSignalBlocker>

namespace carbon::ui {

namespace {
const QString kAskForFile = QStringLiteral("\x01rules-file");  // no id or path looks like it
}

SynthesisRulesCombo::SynthesisRulesCombo(const QString& noneText, QWidget* parent) : QComboBox(parent) {
    addItem(noneText, QString());
    for (const carbon::SynthesisRuleSet& set : carbon::SynthesisRuleSet::builtin())
        addItem(QString::fromStdString(set.name), QString::fromStdString(set.id));
    addItem(tr("Rules File…"), kAskForFile);
    setItemData(count() - 1, tr("Your own rules file (the format of carbon-cli check --list-rules; share/carbon-studio/synthesis holds the "
                                "built-in ones to copy)"),
                Qt::ToolTipRole);
    setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    setMinimumContentsLength(12);
    connect(this, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (itemData(i).toString() == kAskForFile) {
            {
                const QSignalBlocker quiet(this);  // back to what it was, quietly; the file, once read, is chosen
                setCurrentIndex(previous_);
            }
            // Asked once this signal has returned: no modal file dialog inside a combo box's signal.
            QMetaObject::invokeMethod(this, &SynthesisRulesCombo::rulesFileRequested, Qt::QueuedConnection);
            return;
        }
        previous_ = i;
        emit rulesChosen(itemData(i).toString());
    });
}

QString SynthesisRulesCombo::addRulesFile(const QString& path) {
    const QString abs = QFileInfo(path).absoluteFilePath();
    if (const int i = findData(abs); i >= 0) {
        setCurrentIndex(i);
        return {};
    }
    try {
        const carbon::SynthesisRuleSet set = carbon::SynthesisRuleSet::load(abs.toStdString());
        const int at = count() - 1;  // before "Rules File…"
        insertItem(at, tr("%1 (%2)").arg(QString::fromStdString(set.name), QFileInfo(abs).fileName()), abs);
        setItemData(at, abs, Qt::ToolTipRole);
        setCurrentIndex(at);
        return {};
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
}

QString SynthesisRulesCombo::chosenId() const { return currentData().toString(); }

std::shared_ptr<const carbon::SynthesisRuleSet> SynthesisRulesCombo::chosen(QString* error) const {
    const QString id = chosenId();
    if (id.isEmpty()) return nullptr;
    try {
        return std::make_shared<const carbon::SynthesisRuleSet>(carbon::SynthesisRuleSet::find(id.toStdString()));
    } catch (const std::exception& e) {  // a file changed or removed since it was offered
        if (error) *error = QString::fromUtf8(e.what());
        return nullptr;
    }
}

QString SynthesisRulesCombo::choose(const QString& id) {
    if (id.isEmpty()) {
        setCurrentIndex(0);
        return {};
    }
    if (const int i = findData(id); i >= 0 && id != kAskForFile) {
        setCurrentIndex(i);
        return {};
    }
    if (id.contains(QLatin1Char('/'))) return addRulesFile(id);
    return tr("no synthesis rule set '%1'").arg(id);
}

}  // namespace carbon::ui
