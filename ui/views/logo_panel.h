// The Sequence Logo dock: a logo of the model's distributions over the editor's selection (kept
// up to date as the selection or the likelihood track changes) or of the base frequencies of the
// designs selected in the designs table, with SVG and PNG export.
#pragma once

#include <QWidget>

#include "sequence_logo.h"

class QLabel;
class QPushButton;

namespace carbon::ui {

class LogoPanel : public QWidget {
    Q_OBJECT
public:
    explicit LogoPanel(QWidget* parent = nullptr);
    SequenceLogoView* view() const { return view_; }
    void setLogo(SequenceLogo logo, const QString& summary);
    void setMessage(const QString& text);
    // No logo (another sequence was opened), and `text` saying what to do.
    void clear(const QString& text);
    // The source the logo follows: the editor's selection (true) or a set of designs (chosen by
    // the panel's buttons).
    bool followsSelection() const { return followSelection_; }

signals:
    void fromSelectionRequested();
    void fromDesignsRequested();
    void exportRequested(bool svg);

private:
    SequenceLogoView* view_;
    QLabel* summary_;
    QPushButton* exportSvg_;
    QPushButton* exportPng_;
    bool followSelection_ = true;
};

}  // namespace carbon::ui
