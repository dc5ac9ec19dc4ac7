// The --project option of generate, score, variant and ism: the target checked before any work,
// each run stored whole in one transaction, and a run the project cannot take kept in a
// recovery project (never computed and dropped). Without SQLite, --project is refused.
#include "cli_project.h"

#include "carbon/support/common.h"

#ifndef CARBON_HAVE_STORAGE

namespace carbon::cli {

namespace {
[[noreturn]] void no_storage() {
    throw Error("this carbon-cli was built without SQLite project support (--project and `project` need storage/; "
                "install libsqlite3-dev and zlib1g-dev and rebuild)");
}
}  // namespace

std::optional<ProjectTarget> project_target(const Args& a) {
    if (a.get("project")) no_storage();
    return std::nullopt;
}
void store_generation(const ProjectTarget&, const Model&, const DesignRequest&, const GenerationResult&,
                      const std::vector<std::vector<BaseScore>>&, const RunSettings&, double, const std::string&) {
    no_storage();
}
void store_scores(const ProjectTarget&, const Model&, const std::vector<NamedSequence>&, const std::vector<SequenceScore>&,
                  const RunSettings&, double) {
    no_storage();
}
void store_variant(const ProjectTarget&, const Model&, const NamedSequence&, const VariantScore&, const RunSettings&) { no_storage(); }
void store_ism(const ProjectTarget&, const Model&, const NamedSequence&, const IsmResult&, const RunSettings&, const std::string&) {
    no_storage();
}
void store_vep(const ProjectTarget&, const Model&, const std::string&) { no_storage(); }

}  // namespace carbon::cli

#else

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "carbon/storage/engine_results.h"
#include "carbon/storage/project.h"
#include "carbon/storage/recovery.h"
#include "carbon/storage/vep_result.h"
#include "cli_project_open.h"

namespace carbon::cli {

namespace st = carbon::storage;

namespace {

// The sequence a result refers to: one with the same name and bases is reused; otherwise it is
// added, and when other sequences already have its name the note says which id this one got
// (names need not be unique; --sequence-id picks one).
int64_t sequence_id_for(st::Project& p, const NamedSequence& r, const std::string& origin, std::vector<std::string>& notes) {
    const std::vector<st::SequenceRecord> same_name = p.find_sequences(r.name);
    for (const st::SequenceRecord& s : same_name)
        if (s.bases == r.bases) return s.id;
    st::SequenceRecord s;
    s.name = r.name;
    s.description = r.description;
    s.bases = r.bases;
    s.origin = origin;
    const int64_t id = p.add_sequence(s);
    if (!same_name.empty()) {
        std::string ids;
        for (const st::SequenceRecord& o : same_name) ids += (ids.empty() ? "" : ", ") + std::to_string(o.id);
        notes.push_back("the project already holds a sequence named '" + r.name + "' with other bases (id " + ids +
                        "); this one is stored as id " + std::to_string(id) + " (choose it with --sequence-id " + std::to_string(id) + ")");
    }
    return id;
}

// Stores what `write` writes, whole, or keeps it; Error (exit status 1) when it is not in the
// project, saying where it is instead.
void store(const ProjectTarget& t, const std::string& what, const st::ProjectWriter& write, std::vector<std::string>& notes,
           const std::string& elsewhere) {
    const st::StoreOutcome r = st::store_or_keep(t.path, write_options(t.path, t.wait_s), write);
    if (r.stored) {
        for (const std::string& n : notes) std::fprintf(stderr, "note: %s\n", n.c_str());
        return;
    }
    std::string msg = "could not store the " + what + " in " + t.path + ": " + r.error + "\nnothing of it is in " + t.path + ".";
    if (!r.kept_in.empty())
        msg += " It is kept whole in " + r.kept_in + "; store it in the project later with:\n  carbon-cli project import " + t.path + " --recover " +
               r.kept_in;
    else
        msg += " Keeping it in a recovery project failed too: " + r.keep_error + (elsewhere.empty() ? "" : "\n" + elsewhere);
    throw Error(msg);
}

}  // namespace

std::optional<ProjectTarget> project_target(const Args& a) {
    const auto path = a.get("project");
    if (!path) {
        if (a.get("project-wait")) throw Error("--project-wait needs --project FILE");
        return std::nullopt;
    }
    ProjectTarget t{*path, a.number("project-wait", kDefaultProjectWait, 0, 86400)};
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool exists = fs::exists(t.path, ec);
    if (ec) throw Error("--project " + t.path + ": cannot be reached: " + ec.message());
    if (exists) {
        st::OpenOptions o = write_options(t.path, t.wait_s);
        o.create = false;
        st::Project::open(t.path, o);  // a project this program may write, brought up to date
        return t;
    }
    const fs::path folder = fs::path(t.path).has_parent_path() ? fs::path(t.path).parent_path() : fs::path(".");
    if (!fs::is_directory(folder, ec))
        throw Error("--project " + t.path + ": the folder " + folder.string() +
                    (ec && ec != std::errc::no_such_file_or_directory ? " cannot be reached: " + ec.message()
                                                                       : std::string(" does not exist")));
    if (::access(folder.c_str(), W_OK) != 0)
        throw Error("--project " + t.path + ": cannot create a project in " + folder.string() + ": " + std::strerror(errno));
    return t;
}

void store_generation(const ProjectTarget& project, const Model& model, const DesignRequest& req, const GenerationResult& result,
                      const std::vector<std::vector<BaseScore>>& design_tracks, const RunSettings& settings,
                      double bases_per_second, const std::string& elsewhere) {
    std::vector<std::string> notes;
    int64_t run_id = 0;
    auto write = [&](st::Project& p) {
        notes.clear();
        int64_t context_id = 0;
        if (!req.left_context.empty())
            context_id = sequence_id_for(p, {"context", "left context of a generation run", req.left_context}, "carbon-cli generate", notes);
        st::RunSettings all = st::generation_settings(req);
        all.insert(all.end(), settings.begin(), settings.end());
        for (auto& kv : st::speculative_settings(result.speculative)) all.push_back(std::move(kv));
        run_id = p.begin_run(st::make_run(model, "generate", req.sampling.seed, std::move(all)));
        for (size_t di = 0; di < result.designs.size(); ++di) {
            const Design& d = result.designs[di];
            std::vector<st::Track> tracks;
            if (di < design_tracks.size()) tracks = st::base_score_tracks(design_tracks[di]);
            p.add_design(st::design_record(d, run_id, context_id), std::move(tracks), st::design_regions(req.template_iupac, d.bases.size()));
        }
        p.finish_run(run_id, result.cancelled ? "cancelled" : "finished", bases_per_second);
    };
    store(project, "run", write, notes, elsewhere);
    std::fprintf(stderr, "stored run %lld with %zu design(s) in %s\n", static_cast<long long>(run_id), result.designs.size(),
                 project.path.c_str());
}

void store_scores(const ProjectTarget& project, const Model& model, const std::vector<NamedSequence>& records,
                  const std::vector<SequenceScore>& scores, const RunSettings& settings, double bases_per_second) {
    std::vector<std::string> notes;
    int64_t run_id = 0;
    auto write = [&](st::Project& p) {
        notes.clear();
        run_id = p.begin_run(st::make_run(model, "score", 0, settings));
        for (size_t i = 0; i < records.size() && i < scores.size(); ++i) {
            const int64_t sid = sequence_id_for(p, records[i], "carbon-cli score", notes);
            for (st::Track& tr : st::base_score_tracks(scores[i].track)) {
                tr.sequence_id = sid;
                p.add_track(tr);
            }
        }
        p.finish_run(run_id, "finished", bases_per_second);
    };
    store(project, "scores", write, notes, "the scores are in the rows printed above");
    std::fprintf(stderr, "stored run %lld with %zu scored sequence(s) in %s\n", static_cast<long long>(run_id), records.size(),
                 project.path.c_str());
}

void store_variant(const ProjectTarget& project, const Model& model, const NamedSequence& record, const VariantScore& v,
                   const RunSettings& settings) {
    std::vector<std::string> notes;
    int64_t run_id = 0;
    auto write = [&](st::Project& p) {
        notes.clear();
        run_id = p.begin_run(st::make_run(model, "variant", 0, settings));
        std::vector<st::VariantRecord> vs(1);
        vs[0].sequence_id = sequence_id_for(p, record, "carbon-cli variant", notes);
        vs[0].run_id = run_id;
        vs[0].position = int64_t(v.position);
        vs[0].ref = v.ref;
        vs[0].alt = v.alt;
        vs[0].site_log_odds = v.site_log_odds;
        vs[0].window_start = int64_t(v.window.start);
        vs[0].window_end = int64_t(v.window.end);
        vs[0].window_delta = v.window_delta;
        vs[0].window_delta_rc = v.window_delta_rc;
        p.add_variants(vs);
        p.finish_run(run_id, v.cancelled ? "cancelled" : "finished", 0);
    };
    store(project, "variant score", write, notes, "the score is in the row printed above");
    std::fprintf(stderr, "stored run %lld with 1 variant score in %s\n", static_cast<long long>(run_id), project.path.c_str());
}

void store_ism(const ProjectTarget& project, const Model& model, const NamedSequence& record, const IsmResult& r,
               const RunSettings& settings, const std::string& elsewhere) {
    std::vector<std::string> notes;
    int64_t run_id = 0;
    auto write = [&](st::Project& p) {
        notes.clear();
        run_id = p.begin_run(st::make_run(model, "ism", 0, settings));
        const int64_t sid = sequence_id_for(p, record, "carbon-cli ism", notes);
        std::vector<st::VariantRecord> vs;
        for (const IsmEntry& e : r.entries) {
            st::VariantRecord v;
            v.sequence_id = sid;
            v.run_id = run_id;
            v.position = int64_t(e.position);
            v.ref = e.ref;
            v.alt = e.alt;
            v.ism_score = e.score;
            v.window_start = int64_t(r.window.start);
            v.window_end = int64_t(r.window.end);
            vs.push_back(v);
        }
        p.add_variants(vs);
        p.finish_run(run_id, r.cancelled ? "cancelled" : "finished", 0);
    };
    store(project, "mutant scores", write, notes, elsewhere);
    std::fprintf(stderr, "stored run %lld with %zu mutant score(s) in %s\n", static_cast<long long>(run_id), r.entries.size(),
                 project.path.c_str());
}

void store_vep(const ProjectTarget& project, const Model& model, const std::string& tsv) {
    std::vector<std::string> notes;
    int64_t run_id = 0;
    int64_t rows = 0;
    auto write = [&](st::Project& p) {
        const st::VepStored r = st::store_vep_result(p, tsv, st::make_run(model, "vep", 0, {}), "finished");
        run_id = r.run_id;
        rows = r.rows;
    };
    store(project, "variant effects", write, notes, "the variant effects are in " + tsv);
    std::fprintf(stderr, "stored run %lld with %lld variant effect row(s) of %s in %s\n", static_cast<long long>(run_id),
                 static_cast<long long>(rows), tsv.c_str(), project.path.c_str());
}

}  // namespace carbon::cli

#endif
