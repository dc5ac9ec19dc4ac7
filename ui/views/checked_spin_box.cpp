// CheckedSpinBox (see checked_spin_box.h).
#include "checked_spin_box.h"

#include <QLocale>
#include <algorithm>

namespace carbon::ui {

namespace {
constexpr int kTyped = 999'999'999;  // what may be typed, either sign
}

CheckedSpinBox::CheckedSpinBox(int lowest, int highest, QWidget* parent) : QSpinBox(parent), lo_(lowest), hi_(highest) {
    setRange(-kTyped, kTyped);
    setValue(lowest);
}

QString CheckedSpinBox::rangeText() const { return tr("%1 to %2").arg(QLocale().toString(lo_), QLocale().toString(hi_)); }

void CheckedSpinBox::stepBy(int steps) {
    setValue(std::clamp(value() + steps * singleStep(), lo_, hi_));
}

QAbstractSpinBox::StepEnabled CheckedSpinBox::stepEnabled() const {
    StepEnabled e = StepNone;
    if (value() < hi_) e |= StepUpEnabled;
    if (value() > lo_) e |= StepDownEnabled;
    return e;
}

QSize CheckedSpinBox::sizeHint() const {
    // QSpinBox sizes itself for its longest value; the allowed range's is what matters.
    QSpinBox probe;
    probe.setRange(lo_, hi_);
    probe.setPrefix(prefix());
    probe.setSuffix(suffix());
    probe.setSpecialValueText(specialValueText());
    probe.setFont(font());
    return probe.sizeHint();
}

QSize CheckedSpinBox::minimumSizeHint() const {
    QSpinBox probe;
    probe.setRange(lo_, hi_);
    probe.setPrefix(prefix());
    probe.setSuffix(suffix());
    probe.setFont(font());
    return probe.minimumSizeHint();
}

}  // namespace carbon::ui
