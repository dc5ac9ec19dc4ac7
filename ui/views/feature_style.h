// How imported features and the user's annotations look wherever they are drawn (the editor's
// feature track, the sequence map, the feature list): a colour per INSDC key, as SnapGene and
// Benchling colour by type; which are drawn (not `source`, which spans the whole entry); stacked
// lanes so overlapping features never hide each other; a bar with an arrow head in the strand's
// direction and the label inside when it fits; the location and qualifiers in words.
#pragma once

#include <QColor>
#include <QList>
#include <QString>
#include <QVector>

#include "document/sequence_document.h"

class QPainter;
class QRect;

namespace carbon::ui {

// The fill colour for a feature key (case-insensitive; unknown keys share one neutral colour, a
// user's annotation, with no key, another).
QColor featureColor(const QString& key);
// A text colour readable on that fill.
QColor featureTextColor(const QColor& fill);

// An annotation region that is drawn: an imported feature other than `source`, or a user's annotation.
bool isDrawnFeature(const Region& r);

// Lanes for the drawn features of `regions`: laneOf[i] for region i (-1: not drawn), greedily by
// start so that features that overlap get different lanes; at most `maxLanes`, the rest share the
// last lane (their tooltip still names each).
struct FeatureLanes {
    QVector<int> laneOf;
    int count = 0;
};
FeatureLanes assignFeatureLanes(const QList<Region>& regions, int maxLanes);

// A feature's bar in `rect`: an arrow head at the end it points to when that end is inside the
// rect (`pointEnd`), the label inside when it fits (elided otherwise, never outside).
void paintFeatureBar(QPainter& p, const QRect& rect, const Region& r, bool pointEnd, const QString& label);

// "complement(120..340)", 1-based as GenBank writes a part; "120..340" on the forward strand.
QString featureSpanText(const Region& r);
// The tooltip of a feature: key and name, the part and its span, length, qualifiers (the first
// eight, long values shortened).
QString featureTooltip(const Region& r);

}  // namespace carbon::ui
