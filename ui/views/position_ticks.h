// Labelled positions for an axis along a sequence (the mutagenesis heat map, the sequence logo).
#pragma once

#include <QVector>

namespace carbon::ui {

// 1-based positions of [start, start + length) (0-based start) at steps of 1, 2 or 5 x 10^k
// bases: the smallest step that keeps labels at least `minSpacingPx` apart over `widthPx`; the
// first base when no multiple of the step falls inside.
inline QVector<qint64> positionTicks(qint64 start, qint64 length, double widthPx, double minSpacingPx = 60) {
    QVector<qint64> ticks;
    if (length <= 0 || widthPx <= 0) return ticks;
    const double perBase = widthPx / double(length);
    qint64 step = 0;
    for (qint64 decade = 1; step == 0; decade *= 10)
        for (qint64 f : {1, 2, 5})
            if (step == 0 && (double(f * decade) * perBase >= minSpacingPx || f * decade >= length)) step = f * decade;
    const qint64 first = start + 1, last = start + length;
    for (qint64 p = (first + step - 1) / step * step; p <= last; p += step) ticks.append(p);
    if (ticks.isEmpty()) ticks.append(first);
    return ticks;
}

}  // namespace carbon::ui
