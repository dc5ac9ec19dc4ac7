// Round tick values on a chart's value axis: ticks at multiples of 1, 2 or 5 x 10^k (about
// `ticks` of them over the range), labelled with as many decimals as that step needs, so that an
// axis reads 0, -2, -4 rather than 0.1, -3.3, -6.7. The range itself is left as it is.
#pragma once

class QValueAxis;

namespace carbon::ui {

// The step: the smallest 1, 2 or 5 x 10^k with at most `ticks` intervals over [lo, hi].
double roundTickStep(double lo, double hi, int ticks = 6);
// Sets `axis`'s range to [lo, hi] with round ticks.
void setRoundTicks(QValueAxis* axis, double lo, double hi, int ticks = 6);

}  // namespace carbon::ui
