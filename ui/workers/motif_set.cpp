// MotifSet (see motif_set.h).
#include "motif_set.h"

#include <QLocale>
#include <QObject>
#include <algorithm>
#include <cmath>

namespace carbon::ui {

namespace {
constexpr double kPseudocount = 0.5;  // carbon-cli motifs scan's default
}

std::shared_ptr<const MotifSet> MotifSet::load(const QString& path, double maxPvalue) {
    auto set = std::make_shared<MotifSet>();
    set->path_ = path;
    set->maxPvalue_ = maxPvalue;
    for (const carbon::Motif& m : carbon::read_motifs(path.toStdString())) {
        set->pssms_.push_back(carbon::make_pssm(m, carbon::uniform_background(), kPseudocount));
        set->dists_.emplace_back(set->pssms_.back());
    }
    return set;
}

QString parsePvalue(const QString& text, double& out) {
    bool ok = false;
    const double p = QLocale::c().toDouble(text.trimmed(), &ok);
    const double q = ok ? p : QLocale().toDouble(text.trimmed(), &ok);  // "0,0001" where that is the locale's way
    if (!ok || !std::isfinite(q)) return QObject::tr("\"%1\" is not a number: give a p-value such as 1e-4").arg(text);
    if (q <= 0 || q > 0.05) return QObject::tr("%1 is not a useful p-value threshold: give one above 0 and at most 0.05, such as 1e-4").arg(text);
    out = q;
    return {};
}

double MotifSet::bestPvalue(int motif) const {
    // P(every column at its highest-scoring base) under the background.
    const carbon::Pssm& m = pssms_[size_t(motif)];
    double p = 1;
    for (const carbon::BaseWeights& column : m.score) {
        const double best = *std::max_element(column.begin(), column.end());
        double mass = 0;
        for (size_t b = 0; b < column.size(); ++b)
            if (column[b] >= best - 1e-12) mass += m.background[b];
        p *= mass;
    }
    return p;
}

QStringList MotifSet::unreachable() const {
    QStringList out;
    for (int i = 0; i < size(); ++i)
        if (bestPvalue(i) > maxPvalue_)
            out << QObject::tr("%1 (%2 bp, at best p = %3)").arg(name(i)).arg(pssms_[size_t(i)].length()).arg(bestPvalue(i), 0, 'e', 1);
    return out;
}

QString MotifSet::name(int motif) const {
    const carbon::Pssm& p = pssms_[size_t(motif)];
    return p.name.empty() || p.name == p.id ? QString::fromStdString(p.id) : QStringLiteral("%1 %2").arg(QString::fromStdString(p.id), QString::fromStdString(p.name));
}

QVector<MotifMark> MotifSet::scan(const QByteArray& bases) const {
    QVector<MotifMark> marks;
    const std::string_view s(bases.constData(), size_t(bases.size()));
    for (size_t i = 0; i < pssms_.size(); ++i)
        for (const carbon::MotifHit& h : carbon::scan_motif(pssms_[i], dists_[i], s, maxPvalue_))
            marks.append({qint64(h.start), qint64(h.start + pssms_[i].length()), h.strand, int(i), h.score, h.pvalue});
    std::stable_sort(marks.begin(), marks.end(), [](const MotifMark& a, const MotifMark& b) { return a.start < b.start; });
    return marks;
}

QVector<int> MotifSet::counts(const QByteArray& bases) const {
    QVector<int> n(size(), 0);
    const std::string_view s(bases.constData(), size_t(bases.size()));
    for (size_t i = 0; i < pssms_.size(); ++i) n[qsizetype(i)] = int(carbon::scan_motif(pssms_[i], dists_[i], s, maxPvalue_).size());
    return n;
}

}  // namespace carbon::ui
