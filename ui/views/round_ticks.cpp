// Round ticks on a value axis (see round_ticks.h).
#include "round_ticks.h"

#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace carbon::ui {

double roundTickStep(double lo, double hi, int ticks) {
    const double span = hi - lo;
    if (!(span > 0) || !std::isfinite(span)) return 1.0;
    const double raw = span / std::max(1, ticks);
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    for (double f : {1.0, 2.0, 5.0, 10.0})
        if (f * decade >= raw) return f * decade;
    return 10 * decade;
}

void setRoundTicks(QValueAxis* axis, double lo, double hi, int ticks) {
    if (!(hi > lo)) hi = lo + 1;
    const double step = roundTickStep(lo, hi, ticks);
    axis->setRange(lo, hi);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0.0);
    axis->setTickInterval(step);
    const int decimals = std::max(0, int(-std::floor(std::log10(step) + 1e-9)));
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
}

}  // namespace carbon::ui
