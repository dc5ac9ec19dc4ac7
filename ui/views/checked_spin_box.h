// CheckedSpinBox: a whole number the user may type out of range, said instead of changed. A
// QSpinBox corrects a typed 0 or 9999999 to its previous value or its limit without a word; this
// one takes any number typed, keeps the arrows and the wheel inside the range it allows, and
// tells (inRange, rangeText) so that the form refuses the value with the range.
#pragma once

#include <QSpinBox>

namespace carbon::ui {

class CheckedSpinBox : public QSpinBox {
    Q_OBJECT
public:
    CheckedSpinBox(int lowest, int highest, QWidget* parent = nullptr);

    int lowest() const { return lo_; }
    int highest() const { return hi_; }
    bool inRange() const { return value() >= lo_ && value() <= hi_; }
    QString rangeText() const;  // "1 to 10,000"

    void stepBy(int steps) override;  // stays inside the range
    StepEnabled stepEnabled() const override;  // the arrows stop at the range's ends
    QSize sizeHint() const override;  // as wide as the range allowed needs, not the range typed
    QSize minimumSizeHint() const override;

private:
    int lo_, hi_;
};

}  // namespace carbon::ui
