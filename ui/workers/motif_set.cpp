// MotifSet (see motif_set.h).
#include "motif_set.h"

#include <algorithm>

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
