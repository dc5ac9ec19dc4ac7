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
void store_generation(const ProjectTarget&, const runs::GenerationRun&, const RunSettings&, const std::string&) { no_storage(); }
void store_scores(const ProjectTarget&, const Model&, const std::vector<NamedSequence>&, const std::vector<SequenceScore>&,
                  const RunSettings&, double) {
    no_storage();
}
void store_variant(const ProjectTarget&, const Model&, const NamedSequence&, const VariantScore&, const RunSettings&) { no_storage(); }
void store_ism(const ProjectTarget&, const Model&, const NamedSequence&, const IsmResult&, const RunSettings&, const std::string&) {
    no_storage();
}
void store_vep(const ProjectTarget&, const Model&, const std::string&) { no_storage(); }
void store_evolution(const ProjectTarget&, const Model&, const NamedSequence&, const EvolutionResult&, const runs::EvolutionRecord&,
                     const RunSettings&, const std::string&) {
    no_storage();
}
void store_predictor(const ProjectTarget&, const Probe&, const std::string&, const std::string&) { no_storage(); }
Probe project_predictor(const std::string&, const std::string&) { no_storage(); }
bool project_has_predictor(const std::string&, const std::string&) { no_storage(); }
RunSettings project_construct(const std::string&, const std::string&) { no_storage(); }

}  // namespace carbon::cli

#else

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "carbon/runs/predictor_records.h"
#include "carbon/runs/run_records.h"
#include "carbon/runs/run_writers.h"
#include "carbon/runs/vep_run.h"
#include "carbon/storage/order_files.h"
#include "carbon/storage/project.h"
#include "carbon/storage/recovery.h"
#include "carbon/support/visible_text.h"
#include "cli_project_open.h"

namespace carbon::cli {

namespace st = carbon::storage;

namespace {

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

void store_generation(const ProjectTarget& project, const runs::GenerationRun& run, const RunSettings& settings,
                      const std::string& elsewhere) {
    std::vector<std::string> notes;
    runs::StoredGeneration stored;
    store(project, "run", [&](st::Project& p) {
        notes.clear();
        stored = runs::write_generation_run(p, run, runs::DesignedIn{0, "carbon-cli generate"}, settings, notes);
    }, notes, elsewhere);
    std::fprintf(stderr, "stored run %lld with %zu design(s) in %s\n", static_cast<long long>(stored.run_id),
                 run.result.designs.size(), project.path.c_str());
}

void store_scores(const ProjectTarget& project, const Model& model, const std::vector<NamedSequence>& records,
                  const std::vector<SequenceScore>& scores, const RunSettings& settings, double bases_per_second) {
    std::vector<std::string> notes;
    int64_t run_id = 0;
    store(project, "scores", [&](st::Project& p) {
        notes.clear();
        run_id = runs::write_scores(p, model, records, scores, settings, bases_per_second, notes);
    }, notes, "the scores are in the rows printed above");
    std::fprintf(stderr, "stored run %lld with %zu scored sequence(s) in %s\n", static_cast<long long>(run_id), records.size(),
                 project.path.c_str());
}

void store_variant(const ProjectTarget& project, const Model& model, const NamedSequence& record, const VariantScore& v,
                   const RunSettings& settings) {
    std::vector<std::string> notes;
    int64_t run_id = 0;
    store(project, "variant score", [&](st::Project& p) {
        notes.clear();
        run_id = runs::write_variant(p, model, record, v, settings, notes);
    }, notes, "the score is in the row printed above");
    std::fprintf(stderr, "stored run %lld with 1 variant score in %s\n", static_cast<long long>(run_id), project.path.c_str());
}

void store_ism(const ProjectTarget& project, const Model& model, const NamedSequence& record, const IsmResult& r,
               const RunSettings& settings, const std::string& elsewhere) {
    std::vector<std::string> notes;
    int64_t run_id = 0;
    store(project, "mutant scores", [&](st::Project& p) {
        notes.clear();
        run_id = runs::write_ism(p, model, record, r, settings, notes);
    }, notes, elsewhere);
    std::fprintf(stderr, "stored run %lld with %zu mutant score(s) in %s\n", static_cast<long long>(run_id), r.entries.size(),
                 project.path.c_str());
}

void store_evolution(const ProjectTarget& project, const Model& model, const NamedSequence& start, const EvolutionResult& result,
                     const runs::EvolutionRecord& what, const RunSettings& settings, const std::string& elsewhere) {
    std::vector<std::string> notes;
    int64_t run_id = 0;
    store(project, "evolution run", [&](st::Project& p) {
        notes.clear();
        run_id = runs::write_evolution(p, model, start, result, what, settings, notes);
    }, notes, elsewhere);
    std::fprintf(stderr, "stored run %lld with the start and %zu round(s) in %s\n", static_cast<long long>(run_id),
                 result.rounds.empty() ? size_t(0) : result.rounds.size() - 1, project.path.c_str());
}

void store_vep(const ProjectTarget& project, const Model& model, const std::string& tsv) {
    std::vector<std::string> notes;
    st::VepStored stored;
    store(project, "variant effects", [&](st::Project& p) {
        stored = runs::write_vep_run(p, tsv, runs::make_run(model, "vep", 0, {}), "finished");
    }, notes, "the variant effects are in " + tsv);
    std::fprintf(stderr, "stored run %lld with %lld variant effect row(s) of %s in %s\n", static_cast<long long>(stored.run_id),
                 static_cast<long long>(stored.rows), tsv.c_str(), project.path.c_str());
}

void store_predictor(const ProjectTarget& project, const Probe& probe, const std::string& name, const std::string& elsewhere) {
    std::vector<std::string> notes;
    int64_t id = 0;
    store(project, "predictor", [&](st::Project& p) { id = p.add_predictor(runs::predictor_record(probe, name)); }, notes, elsewhere);
    std::fprintf(stderr, "stored predictor '%s' (id %lld) in %s\n", name.c_str(), static_cast<long long>(id), project.path.c_str());
}

bool project_has_predictor(const std::string& path, const std::string& name) {
    return st::Project::open(path, read_only_options())->find_predictor(name).has_value();
}

Probe project_predictor(const std::string& path, const std::string& name) {
    auto p = st::Project::open(path, read_only_options());
    if (auto rec = p->find_predictor(name)) return runs::probe_of(*rec, path);
    std::string names;
    for (const st::PredictorRecord& r : p->list_predictors()) names += (names.empty() ? "" : ", ") + ("'" + r.name + "'");
    throw Error(path + ": no predictor named '" + name + "' (" + (names.empty() ? "the project has none" : "it has " + names) + ")");
}

RunSettings project_construct(const std::string& path, const std::string& name) {
    if (!std::filesystem::exists(path)) throw Error(path + ": no such project (a construct is added with carbon-cli project construct)");
    auto p = st::Project::open(path, read_only_options());
    if (auto c = p->find_construct(name)) return st::construct_settings(*c);
    std::string names;
    for (const st::ConstructRecord& c : p->list_constructs()) names += (names.empty() ? "" : ", ") + ("'" + visible_text(c.name, 80) + "'");
    throw Error(path + ": no construct named '" + visible_text(name, 80) + "' (" +
                (names.empty() ? "the project has none; add one with carbon-cli project construct" : "it has " + names) + ")");
}

}  // namespace carbon::cli

#endif
