// Engine results as project records (see run_records.h).
#include "carbon/runs/run_records.h"

#include <cstdio>
#include <cstring>
#include <fstream>

#include "carbon/model.h"

namespace carbon::runs {

using storage::DesignRecord;
using storage::Region;
using storage::RegionKind;
using storage::Run;
using storage::Track;
using storage::TrackDType;

std::string file_hash(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return "";
    uint64_t h = 1469598103934665603ull;
    char buf[1 << 14];
    while (f.read(buf, sizeof buf) || f.gcount() > 0) {
        for (std::streamsize i = 0; i < f.gcount(); ++i) h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ull;
        if (!f) break;
    }
    char out[32];
    std::snprintf(out, sizeof out, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
    return out;
}

Run make_run(const Model& model, const std::string& kind, uint64_t seed, RunSettings settings) {
    return make_run(model.checkpoint().dir(), model.backend().describe(), kind, seed, std::move(settings));
}

Run make_run(const std::filesystem::path& dir, const std::string& backend, const std::string& kind, uint64_t seed,
             RunSettings settings) {
    Run r;
    r.kind = kind;
    r.model_path = std::filesystem::absolute(dir).string();
    r.model_config_hash = file_hash(dir / "config.json");
    const std::string tok = file_hash(dir / "tokenizer.json");
    r.tokenizer_hash = tok.empty() ? file_hash(dir / "tokenizer_config.json") : tok;
    r.backend = backend;
    r.seed = seed;
    r.engine_version = CARBON_VERSION;
    r.settings = std::move(settings);
    return r;
}

std::vector<Region> design_regions(const std::string& template_iupac, size_t length) {
    std::vector<Region> regions(1);
    regions[0].kind = RegionKind::Design;
    regions[0].end = int64_t(length);
    regions[0].template_iupac = template_iupac;
    for (size_t i = 0; i < template_iupac.size();) {
        const bool fixed = std::strchr("ACGT", template_iupac[i]) != nullptr;
        size_t j = i + 1;
        while (fixed && j < template_iupac.size() && std::strchr("ACGT", template_iupac[j])) ++j;
        if (fixed) {
            Region pin;
            pin.kind = RegionKind::Pinned;
            pin.start = int64_t(i);
            pin.end = int64_t(j);
            pin.label = template_iupac.substr(i, j - i);
            regions.push_back(pin);
        }
        i = j;
    }
    return regions;
}

std::vector<Track> base_score_tracks(const std::vector<BaseScore>& scores) {
    if (scores.empty()) return {};
    auto make = [](const char* kind, int width) {
        Track t;
        t.kind = kind;
        t.width = width;
        t.dtype = width == 4 ? TrackDType::F16 : TrackDType::F32;
        return t;
    };
    Track logp = make("logp", 1), dist = make("dist_acgt", 4), ent = make("entropy_bits", 1);
    for (const BaseScore& b : scores) {
        logp.values.push_back(b.logp);
        // The engine's order is A, T, C, G (the 6-mer index); stored A, C, G, T as users read them.
        for (int k : {0, 2, 3, 1}) dist.values.push_back(b.p[size_t(k)]);
        ent.values.push_back(b.entropy_bits);
    }
    return {std::move(logp), std::move(dist), std::move(ent)};
}

DesignRecord design_record(const Design& d, int64_t run_id, int64_t sequence_id) {
    DesignRecord r;
    r.run_id = run_id;
    r.sequence_id = sequence_id;
    r.name = "run" + std::to_string(run_id) + "_design_" + std::to_string(d.index + 1);
    r.bases = d.bases;
    r.design_logp = d.design_logp;
    r.ranking_logp = d.ranking_logp;
    r.rank = d.rank;
    r.stream_index = int64_t(d.index);
    r.backtracks = int64_t(d.backtracks);
    r.specificity = d.specificity;
    return r;
}

Design design_of(const DesignRecord& r) {
    Design d;
    d.index = size_t(r.stream_index);
    d.bases = r.bases;
    d.design_logp = r.design_logp;
    d.ranking_logp = r.ranking_logp;
    d.specificity = r.specificity;
    d.rank = r.rank;
    d.backtracks = size_t(r.backtracks);
    return d;
}

int64_t sequence_id_for(storage::Project& p, const NamedSequence& r, const std::string& origin, std::vector<std::string>& notes) {
    const std::vector<storage::SequenceRecord> same_name = p.find_sequences(r.name);
    for (const storage::SequenceRecord& s : same_name)
        if (s.bases == r.bases) return s.id;
    storage::SequenceRecord s;
    s.name = r.name;
    s.description = r.description;
    s.bases = r.bases;
    s.origin = origin;
    const int64_t id = p.add_sequence(s);
    if (!same_name.empty()) {
        std::string ids;
        for (const storage::SequenceRecord& o : same_name) ids += (ids.empty() ? "" : ", ") + std::to_string(o.id);
        notes.push_back("the project already holds a sequence named '" + r.name + "' with other bases (id " + ids +
                        "); this one is stored as id " + std::to_string(id) + " (choose it with --sequence-id " + std::to_string(id) + ")");
    }
    return id;
}

}  // namespace carbon::runs
