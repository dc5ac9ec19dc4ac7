// Storing a result whole or keeping it in a recovery project, and merging a project into
// another (see carbon/storage/recovery.h).
#include "carbon/storage/recovery.h"
#include "carbon/storage/vep_result.h"

#include <unistd.h>

#include <filesystem>
#include <map>

#include "carbon/support/common.h"

namespace carbon::storage {

namespace {

StoreOutcome keep(const std::string& project_path, const ProjectWriter& write, StoreOutcome out) {
    for (const bool temp : {false, true}) {
        const std::string r = recovery_path_for(project_path, temp);
        try {
            OpenOptions o;
            o.check = IntegrityCheck::None;
            auto p = Project::open(r, o);
            Transaction t(*p);
            write(*p);
            t.commit();
            out.kept_in = r;
            return out;
        } catch (const std::exception& e) {
            remove_project_files(r);
            out.keep_error += (out.keep_error.empty() ? "" : "; ") + std::string(e.what());
        }
    }
    return out;
}

}  // namespace

std::string recovery_path_for(const std::string& project_path, bool in_temp_folder) {
    namespace fs = std::filesystem;
    const fs::path p(project_path);
    std::string stamp = utc_now_iso8601();  // 2024-05-01T12:34:56.789Z -> 20240501T123456
    std::string compact;
    for (const char c : stamp.substr(0, 19))
        if (c != '-' && c != ':') compact += c;
    const fs::path folder = in_temp_folder ? fs::temp_directory_path() : p.parent_path();  // "" beside a bare file name
    const std::string base = p.stem().string() + ".recovered-" + compact + "-" + std::to_string(::getpid());
    fs::path out = folder / (base + ".carbon");
    for (int n = 2; fs::exists(out); ++n) out = folder / (base + "-" + std::to_string(n) + ".carbon");
    return out.string();
}

StoreOutcome store_or_keep(Project& project, const ProjectWriter& write) {
    StoreOutcome out;
    try {
        Transaction t(project);
        write(project);
        t.commit();
        out.stored = true;
        return out;
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    return keep(project.path(), write, out);
}

StoreOutcome store_or_keep(const std::string& path, const OpenOptions& options, const ProjectWriter& write) {
    StoreOutcome out;
    try {
        auto p = Project::open(path, options);
        out = store_or_keep(*p, write);
        if (out.stored || !p->created()) return out;
        // The project was made for this result alone: it goes with the failure.
        bool nothing = false;
        try {
            nothing = p->empty();
        } catch (const std::exception&) {
        }
        p.reset();
        if (nothing) remove_project_files(path);
        return out;
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    return keep(path, write, out);
}

MergeResult merge_project(Project& into, Project& from) {
    MergeResult r;
    Transaction t(into);
    std::map<int64_t, int64_t> seq_ids, run_ids;
    for (SequenceRecord s : from.list_sequences(true)) {
        const int64_t old_id = s.id;
        int64_t id = 0;
        for (const SequenceRecord& c : into.find_sequences(s.name))
            if (c.bases == s.bases) id = c.id;
        if (id) {
            ++r.sequences_reused;
        } else {
            s.id = 0;
            id = into.add_sequence(s);
            ++r.sequences_added;
            for (Region reg : from.regions_of_sequence(old_id)) {
                reg.id = 0;
                reg.sequence_id = id;
                into.add_region(reg);
                ++r.regions;
            }
            if (auto features = from.features_of_sequence(old_id); !features.empty()) into.set_features(id, features);
        }
        seq_ids[old_id] = id;
        for (Track tr : from.tracks_of_sequence(old_id)) {
            tr.id = 0;
            tr.sequence_id = id;
            into.add_track(tr);
            ++r.tracks;
        }
    }
    for (Run run : from.list_runs()) {
        const int64_t old_id = run.id;
        run.id = 0;
        run_ids[old_id] = into.begin_run(run);
        r.run_ids.push_back(run_ids[old_id]);
    }
    for (DesignRecord d : from.list_designs(0, true)) {
        std::vector<Track> tracks = from.tracks_of_design(d.id);
        std::vector<Region> regions = from.regions_of_design(d.id);
        d.predictions = from.predictions_of_design(d.id);
        r.tracks += tracks.size();
        r.regions += regions.size();
        d.id = 0;
        d.run_id = run_ids.at(d.run_id);
        d.sequence_id = d.sequence_id ? seq_ids.at(d.sequence_id) : 0;
        into.add_design(d, std::move(tracks), std::move(regions));
        ++r.designs;
    }
    for (const auto& [old_id, new_id] : seq_ids) {
        std::vector<VariantRecord> vs = from.variants_of_sequence(old_id);
        for (VariantRecord& v : vs) {
            v.id = 0;
            v.sequence_id = new_id;
            v.run_id = v.run_id ? run_ids.at(v.run_id) : 0;
        }
        into.add_variants(vs);
        r.variants += vs.size();
    }
    for (const auto& [old_id, new_id] : run_ids) {
        constexpr size_t kBatch = 4096;
        std::vector<VepRow> rows;
        int64_t at = 0;
        auto flush = [&] {
            into.add_vep_rows(new_id, at, rows);
            at += int64_t(rows.size());
            r.vep_rows += rows.size();
            rows.clear();
        };
        from.each_vep_row(old_id, [&](VepRow&& row) {
            const auto it = seq_ids.find(row.sequence_id);
            row.sequence_id = it == seq_ids.end() ? 0 : it->second;
            rows.push_back(std::move(row));
            if (rows.size() == kBatch) flush();
        });
        flush();
    }
    for (PredictorRecord pr : from.list_predictors(true)) {
        const std::string base = pr.name;
        for (int k = 1; into.find_predictor(pr.name); ++k)
            pr.name = base.substr(0, 180) + " (recovered" + (k > 1 ? " " + std::to_string(k) : std::string()) + ")";
        into.add_predictor(pr);
        ++r.predictors;
    }
    t.commit();
    return r;
}

}  // namespace carbon::storage
