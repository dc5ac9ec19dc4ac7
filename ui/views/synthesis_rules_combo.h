// The choice of synthesis rules offered in the Generation panel and the Designs table: nothing,
// the built-in vendor sets (synthesis_rules.h), the rules files the user has added this session,
// and "Rules File…", which asks for one (the view says so through a signal; its controller shows
// the file dialog). An item's data is the set's id, or the file's absolute path, as
// SynthesisRuleSet::find takes either.
#pragma once

#include <QComboBox>
#include <QString>
#include <memory>

#include "carbon/generation/synthesis_rules.h"

namespace carbon::ui {

class SynthesisRulesCombo : public QComboBox {
    Q_OBJECT
public:
    SynthesisRulesCombo(const QString& noneText, QWidget* parent = nullptr);
    // Reads a rules file and offers it (chosen): the error (file:line and why) when it cannot be
    // read, or empty. A file offered already is chosen again.
    QString addRulesFile(const QString& path);
    // The chosen set (null for none); an unreadable file is null with `error` set.
    std::shared_ptr<const carbon::SynthesisRuleSet> chosen(QString* error = nullptr) const;
    // The chosen item's id or path ("" for none).
    QString chosenId() const;
    // Chooses the item of `id` (a built-in id or an offered file); a path not yet offered is read
    // and offered first (its error returned). "" chooses none.
    QString choose(const QString& id);

signals:
    void rulesFileRequested();  // "Rules File…" was picked; the choice stays as it was
    void rulesChosen(const QString& id);

private:
    int previous_ = 0;
};

}  // namespace carbon::ui
