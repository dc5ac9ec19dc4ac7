// Feature tables <-> editor regions (see feature_regions.h).
#include "feature_regions.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "carbon/storage/flatfile.h"

namespace carbon::ui {

namespace st = carbon::storage;

namespace {

// Parts of a stored location, whatever length the sequence had then.
std::vector<st::LocationPart> storedParts(const std::string& location) {
    return st::parse_insdc_location(location, int64_t(1) << 60, "feature").parts;
}

}  // namespace

QString featureLabel(const QString& key, const std::vector<std::pair<std::string, std::optional<std::string>>>& qualifiers) {
    const QString name = QString::fromStdString(st::feature_name(qualifiers));
    return key + (name.isEmpty() ? QString() : QStringLiteral(": ") + name);
}

QList<Region> featureRegions(const std::vector<st::FeatureRecord>& features, qint64 length) {
    QList<Region> out;
    for (size_t k = 0; k < features.size(); ++k) {
        const st::FeatureRecord& f = features[k];
        const QString label = featureLabel(QString::fromStdString(f.key), f.qualifiers);
        const std::vector<st::LocationPart> parts = st::parse_insdc_location(f.location, length, "feature").parts;
        for (size_t i = 0; i < parts.size(); ++i) {
            Region r;
            r.kind = Region::Kind::Annotation;
            r.start = qsizetype(parts[i].start);
            r.end = qsizetype(parts[i].end);
            r.label = label;
            r.feature = int(k);
            r.part = int(i);
            r.reverse = parts[i].reverse;
            r.beforeStart = parts[i].before_start;
            r.afterEnd = parts[i].after_end;
            r.key = QString::fromStdString(f.key);
            r.qualifiers = f.qualifiers;
            out.append(r);
        }
    }
    return out;
}

std::vector<st::FeatureRecord> featuresFromRegions(const std::vector<st::FeatureRecord>& stored, const QList<Region>& regions) {
    std::map<int, std::vector<const Region*>> parts;
    for (const Region& r : regions)
        if (r.feature >= 0) parts[r.feature].push_back(&r);
    std::vector<st::FeatureRecord> out;
    for (size_t k = 0; k < stored.size(); ++k) {
        const std::vector<st::LocationPart> before = storedParts(stored[k].location);
        auto it = parts.find(int(k));
        if (it == parts.end()) {
            if (before.empty()) out.push_back(stored[k]);  // wholly in other entries: nothing here moved it
            continue;                                       // every part deleted: the feature goes with them
        }
        std::vector<const Region*> rs = it->second;
        std::sort(rs.begin(), rs.end(), [](const Region* a, const Region* b) { return a->part < b->part; });
        std::vector<st::LocationPart> now;
        for (const Region* r : rs) now.push_back({int64_t(r->start), int64_t(r->end), r->reverse, r->beforeStart, r->afterEnd});
        st::FeatureRecord f = stored[k];
        f.qualifiers = rs.front()->qualifiers;  // as edited in the window (Edit Qualifiers)
        if (now != before) {
            // A site moved to before the first base cannot be written: it goes.
            now.erase(std::remove_if(now.begin(), now.end(), [](const st::LocationPart& p) { return p.start == p.end && p.start < 1; }),
                      now.end());
            if (now.empty()) continue;
            f.location = st::format_insdc_location(now);
        }
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace carbon::ui
