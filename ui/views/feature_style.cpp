// Feature colours, lanes, bars and words (see feature_style.h).
#include "feature_style.h"

#include <QFontMetrics>
#include <QHash>
#include <QPainter>
#include <QPainterPath>
#include <QRect>
#include <algorithm>
#include <numeric>

namespace carbon::ui {

QColor featureColor(const QString& key) {
    // Families of keys share a hue: transcription control green, coding yellow-orange, genes
    // blue, binding sites magenta, replication and structure brown and grey.
    static const QHash<QString, QColor> colors = {
        {QStringLiteral("promoter"), QColor(0x4c, 0xaf, 0x50)},
        {QStringLiteral("regulatory"), QColor(0x2e, 0x8b, 0x57)},
        {QStringLiteral("enhancer"), QColor(0x00, 0x96, 0x88)},
        {QStringLiteral("tata_signal"), QColor(0x8b, 0xc3, 0x4a)},
        {QStringLiteral("-10_signal"), QColor(0x8b, 0xc3, 0x4a)},
        {QStringLiteral("-35_signal"), QColor(0x8b, 0xc3, 0x4a)},
        {QStringLiteral("terminator"), QColor(0xd3, 0x2f, 0x2f)},
        {QStringLiteral("polya_signal"), QColor(0xe5, 0x73, 0x73)},
        {QStringLiteral("cds"), QColor(0xff, 0xb3, 0x00)},
        {QStringLiteral("exon"), QColor(0xff, 0xcc, 0x80)},
        {QStringLiteral("intron"), QColor(0xbc, 0xaa, 0xa4)},
        {QStringLiteral("5'utr"), QColor(0xff, 0xe0, 0x82)},
        {QStringLiteral("3'utr"), QColor(0xff, 0xe0, 0x82)},
        {QStringLiteral("mrna"), QColor(0x64, 0xb5, 0xf6)},
        {QStringLiteral("gene"), QColor(0x19, 0x76, 0xd2)},
        {QStringLiteral("rbs"), QColor(0xab, 0x47, 0xbc)},
        {QStringLiteral("ribosome_binding_site"), QColor(0xab, 0x47, 0xbc)},
        {QStringLiteral("protein_bind"), QColor(0xc2, 0x18, 0x5b)},
        {QStringLiteral("primer_bind"), QColor(0x00, 0x83, 0x8f)},
        {QStringLiteral("rep_origin"), QColor(0x8d, 0x6e, 0x63)},
        {QStringLiteral("repeat_region"), QColor(0x78, 0x90, 0x9c)},
        {QStringLiteral("mobile_element"), QColor(0x60, 0x7d, 0x8b)},
        {QStringLiteral("misc_feature"), QColor(0x9e, 0x9e, 0x9e)},
    };
    if (key.isEmpty()) return QColor(0x5c, 0x6b, 0xc0);  // the user's own annotation
    return colors.value(key.toLower(), QColor(0xb0, 0xbe, 0xc5));
}

QColor featureTextColor(const QColor& fill) {
    // Relative luminance (sRGB weights): black text on light fills, white on dark ones.
    const double y = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
    return y > 0.5 ? QColor(0x10, 0x10, 0x10) : QColor(0xff, 0xff, 0xff);
}

bool isDrawnFeature(const Region& r) {
    return r.kind == Region::Kind::Annotation && r.key.compare(QLatin1String("source"), Qt::CaseInsensitive) != 0;
}

FeatureLanes assignFeatureLanes(const QList<Region>& regions, int maxLanes) {
    FeatureLanes lanes;
    lanes.laneOf.fill(-1, regions.size());
    QVector<int> order;
    for (int i = 0; i < regions.size(); ++i)
        if (isDrawnFeature(regions[i])) order << i;
    // By start, longer first, so that a gene sits above the exons it holds.
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const Region &x = regions[a], &y = regions[b];
        return x.start != y.start ? x.start < y.start : (x.end - x.start) > (y.end - y.start);
    });
    QVector<qsizetype> laneEnd;
    for (int i : order) {
        const Region& r = regions[i];
        const qsizetype end = std::max(r.end, r.start + 1);  // a site (a^b) takes a base's room
        int lane = -1;
        for (int l = 0; l < laneEnd.size(); ++l)
            if (laneEnd[l] <= r.start) {
                lane = l;
                break;
            }
        if (lane < 0 && laneEnd.size() < maxLanes) {
            lane = int(laneEnd.size());
            laneEnd << 0;
        }
        if (lane < 0) lane = maxLanes - 1;
        laneEnd[lane] = std::max(laneEnd[lane], end);
        lanes.laneOf[i] = lane;
    }
    lanes.count = int(laneEnd.size());
    return lanes;
}

void paintFeatureBar(QPainter& p, const QRect& rect, const Region& r, bool pointEnd, const QString& label) {
    const QColor fill = featureColor(r.key);
    const int h = rect.height();
    const int head = pointEnd ? std::min(h / 2 + 2, std::max(0, rect.width() - 2)) : 0;
    QPainterPath path;
    if (!r.reverse) {
        path.moveTo(rect.left(), rect.top());
        path.lineTo(rect.right() + 1 - head, rect.top());
        path.lineTo(rect.right() + 1, rect.top() + h / 2.0);
        path.lineTo(rect.right() + 1 - head, rect.bottom() + 1);
        path.lineTo(rect.left(), rect.bottom() + 1);
    } else {
        path.moveTo(rect.right() + 1, rect.top());
        path.lineTo(rect.left() + head, rect.top());
        path.lineTo(rect.left(), rect.top() + h / 2.0);
        path.lineTo(rect.left() + head, rect.bottom() + 1);
        path.lineTo(rect.right() + 1, rect.bottom() + 1);
    }
    path.closeSubpath();
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(fill.darker(140), 1));
    p.setBrush(fill);
    p.drawPath(path);
    const QRect textRect = rect.adjusted(r.reverse ? head + 2 : 3, 0, r.reverse ? -3 : -head - 2, 0);
    if (!label.isEmpty() && textRect.width() > p.fontMetrics().horizontalAdvance(QStringLiteral("M…"))) {
        p.setPen(featureTextColor(fill));
        p.drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft, p.fontMetrics().elidedText(label, Qt::ElideRight, textRect.width()));
    }
    p.restore();
}

QString featureSpanText(const Region& r) {
    QString span = r.end > r.start ? QStringLiteral("%1%2..%3%4")
                                         .arg(r.beforeStart ? QStringLiteral("<") : QString())
                                         .arg(r.start + 1)
                                         .arg(r.afterEnd ? QStringLiteral(">") : QString())
                                         .arg(r.end)
                                   : QStringLiteral("%1^%2").arg(r.start).arg(r.start + 1);
    return r.reverse ? QStringLiteral("complement(%1)").arg(span) : span;
}

QString featureTooltip(const Region& r) {
    QStringList lines;
    lines << (r.key.isEmpty() ? QObject::tr("annotation: %1").arg(r.label) : r.label);
    lines << QObject::tr("%1, %2 bp, %3 strand").arg(featureSpanText(r)).arg(r.end - r.start).arg(r.reverse ? QStringLiteral("−") : QStringLiteral("+"));
    if (r.part > 0) lines.back() += QObject::tr(" (part %1)").arg(r.part + 1);
    int shown = 0;
    for (const auto& [name, value] : r.qualifiers) {
        if (++shown > 8) {
            lines << QObject::tr("… %n more qualifier(s)", nullptr, int(r.qualifiers.size()) - 8);
            break;
        }
        QString v = value ? QString::fromStdString(*value) : QString();
        if (v.size() > 80) v = v.left(77) + QStringLiteral("…");
        lines << QStringLiteral("/%1%2").arg(QString::fromStdString(name), value ? QStringLiteral("=") + v : QString());
    }
    return lines.join(QLatin1Char('\n'));
}

}  // namespace carbon::ui
