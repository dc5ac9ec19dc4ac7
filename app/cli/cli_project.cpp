// carbon-cli project list / import / export, and the --project storing of generate, score,
// variant and ism results. The only file that looks at CARBON_HAVE_STORAGE: without SQLite every
// entry point refuses with one clear message.
#include "cli_project.h"

#include "carbon/common.h"

#ifndef CARBON_HAVE_STORAGE

namespace carbon::cli {

namespace {
[[noreturn]] void no_storage() {
    throw Error("this carbon-cli was built without SQLite project support (--project and `project` need storage/; "
                "install libsqlite3-dev and zlib1g-dev and rebuild)");
}
}  // namespace

int cmd_project(const std::vector<std::string>&) { no_storage(); }
void store_generation(const std::string&, const Model&, const DesignRequest&, const GenerationResult&,
                      const std::vector<std::vector<BaseScore>>&, const RunSettings&, double) {
    no_storage();
}
void store_scores(const std::string&, const Model&, const std::vector<NamedSequence>&, const std::vector<SequenceScore>&,
                  const RunSettings&, double) {
    no_storage();
}
void store_variant(const std::string&, const Model&, const NamedSequence&, const VariantScore&, const RunSettings&) { no_storage(); }
void store_ism(const std::string&, const Model&, const NamedSequence&, const IsmResult&, const RunSettings&) { no_storage(); }

}  // namespace carbon::cli

#else

#include <cmath>
#include <cstring>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "carbon/output_file.h"
#include "carbon/storage/engine_results.h"
#include "carbon/storage/fasta.h"
#include "carbon/storage/formats.h"
#include "carbon/storage/project.h"
#include "cli_args.h"

namespace carbon::cli {

namespace st = carbon::storage;

namespace {

const char* kProjectUsage = R"(usage: carbon-cli project list FILE
       carbon-cli project import FILE [--fasta IN.fa[.gz]] [--vcf IN.vcf[.gz] --sequence NAME]
       carbon-cli project export FILE --format fasta|sequences|tsv|csv|bedgraph|wig|genbank|vcf-results --out OUT
             [--designs ID,ID,...] [--width N] [--design ID] [--track KIND] [--channel N] [--sequence NAME]
  fasta/tsv/csv: the chosen designs (default all), FASTA wrapped at --width (default 60, 0 = one
  line) with key=value headers. sequences: the stored sequences as FASTA. bedgraph/wig: --track
  KIND (default logp: logp, dist_acgt, entropy_bits) of --design ID or --sequence NAME, column
  --channel (default 0). genbank: --design ID with its regions as features. vcf-results: the
  variants of --sequence NAME with their scores, as TSV.
)";

std::unique_ptr<st::Project> open_project(const std::string& path) { return st::Project::open(path); }

std::vector<int64_t> parse_ids(const std::string& s) {
    std::vector<int64_t> ids;
    std::stringstream ss(s);
    std::string part;
    while (std::getline(ss, part, ','))
        if (!part.empty()) {
            if (part.find_first_not_of("0123456789") != std::string::npos || part.size() > 18)
                throw Error("--designs: '" + part + "' is not a design id");
            ids.push_back(std::stoll(part));
        }
    return ids;
}

int project_list(const std::string& path) {
    auto p = st::Project::open(path, {.create = false});
    std::printf("project %s (schema %d)\n", path.c_str(), st::schema_version());
    const auto seqs = p->list_sequences();
    std::printf("sequences: %zu\n", seqs.size());
    for (const auto& s : seqs) std::printf("  %lld\t%s\t%lld bp\t%s\n", static_cast<long long>(s.id), s.name.c_str(), static_cast<long long>(s.length), s.origin.c_str());
    const auto runs = p->list_runs();
    std::printf("runs: %zu\n", runs.size());
    for (const auto& r : runs)
        std::printf("  %lld\t%s\t%s\tseed %llu\t%s\t%.1f bp/s\t%s\n", static_cast<long long>(r.id), r.kind.c_str(), r.status.c_str(),
                    static_cast<unsigned long long>(r.seed), r.started.c_str(), r.bases_per_second, r.model_path.c_str());
    const auto designs = p->list_designs(0, false);
    std::printf("designs: %zu\n", designs.size());
    std::printf("  id\tname\trun\trank\tdesign_logp\tranking_logp\n");
    for (const auto& d : designs)
        std::printf("  %lld\t%s\t%lld\t%d\t%.6g\t%.6g\n", static_cast<long long>(d.id), d.name.c_str(), static_cast<long long>(d.run_id), d.rank,
                    d.design_logp, d.ranking_logp);
    std::printf("variants: %lld, tracks: %lld\n", static_cast<long long>(p->count("variants")), static_cast<long long>(p->count("tracks")));
    return 0;
}

int project_import(const std::string& path, const std::vector<std::string>& rest) {
    Args a(rest, {"fasta", "vcf", "sequence"}, {});
    if (!a.get("fasta") && !a.get("vcf")) throw Error("project import: give --fasta IN and/or --vcf IN --sequence NAME");
    auto p = open_project(path);
    if (auto fa = a.get("fasta")) {
        const auto r = st::import_fasta(*p, *fa);
        std::fprintf(stderr, "%s: %zu sequence(s), %lld bp imported into %s\n", fa->c_str(), r.sequence_ids.size(),
                     static_cast<long long>(r.bases), path.c_str());
        if (r.unnamed) std::fprintf(stderr, "note: %zu record(s) without a name were named record_N (N = record number)\n", r.unnamed);
    }
    if (auto vcf = a.get("vcf")) {
        const auto r = st::import_vcf(*p, *vcf, a.required("sequence"));
        for (const auto& s : r.skipped) std::fprintf(stderr, "skipped: %s\n", s.c_str());
        std::fprintf(stderr, "%s: %zu SNV(s) imported, %zu record(s) skipped\n", vcf->c_str(), r.imported, r.skipped.size());
    }
    return 0;
}

int project_export(const std::string& path, const std::vector<std::string>& rest) {
    Args a(rest, {"format", "out", "designs", "width", "design", "track", "channel", "sequence"}, {});
    const std::string format = a.required("format"), out_path = a.required("out");
    auto p = st::Project::open(path, {.create = false});
    OutputFile out_file(out_path);
    std::ostream& out = out_file.stream();
    const std::vector<int64_t> ids = parse_ids(a.get_or("designs", ""));
    auto design_id = [&] { return int64_t(a.integer("design", 0, 1, 1ll << 62)); };
    // Tracks of a design (--design ID) or of a stored sequence (--sequence NAME).
    auto owner = [&] {
        st::TrackOwner o;
        if (auto name = a.get("sequence")) {
            const auto s = p->find_sequence(*name);
            if (!s) throw Error(path + ": no sequence named '" + *name + "'");
            o.sequence_id = s->id;
        } else {
            o.design_id = int64_t(a.integer("design", 0, 1, 1ll << 62));
            if (!o.design_id) throw Error("--format bedgraph/wig needs --design ID or --sequence NAME");
        }
        return o;
    };
    if (format == "fasta") st::export_designs_fasta(*p, out, ids, size_t(a.integer("width", 60, 0, 1 << 30)));
    else if (format == "sequences") st::export_sequences_fasta(*p, out, size_t(a.integer("width", 60, 0, 1 << 30)));
    else if (format == "tsv") st::export_designs_table(*p, out, ids, '\t');
    else if (format == "csv") st::export_designs_table(*p, out, ids, ',');
    else if (format == "bedgraph") st::export_track_bedgraph(*p, out, owner(), a.get_or("track", "logp"), int(a.integer("channel", 0, 0, 64)));
    else if (format == "wig") st::export_track_wig(*p, out, owner(), a.get_or("track", "logp"), int(a.integer("channel", 0, 0, 64)));
    else if (format == "genbank") st::export_genbank(*p, out, design_id());
    else if (format == "vcf-results") {
        const std::string name = a.required("sequence");
        const auto s = p->find_sequence(name);
        if (!s) throw Error(path + ": no sequence named '" + name + "'");
        st::export_variants_tsv(*p, out, s->id);
    } else {
        throw Error("--format must be fasta, sequences, tsv, csv, bedgraph, wig, genbank or vcf-results, not '" + format + "'");
    }
    out_file.commit();
    return 0;
}

// The sequence a result refers to: reused when the project already holds the same name and
// bases, else added.
int64_t sequence_id_for(st::Project& p, const NamedSequence& r, const std::string& origin) {
    if (auto s = p.find_sequence(r.name); s && s->bases == r.bases) return s->id;
    st::SequenceRecord s;
    s.name = r.name;
    s.description = r.description;
    s.bases = r.bases;
    s.origin = origin;
    return p.add_sequence(s);
}

}  // namespace

int cmd_project(const std::vector<std::string>& args) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::fputs(kProjectUsage, args.empty() ? stderr : stdout);
        return args.empty() ? 1 : 0;
    }
    if (args.size() < 2) throw Error("project " + args[0] + ": give the project FILE\n" + kProjectUsage);
    const std::vector<std::string> rest(args.begin() + 2, args.end());
    if (args[0] == "list") {
        if (!rest.empty()) throw Error("project list takes only the project FILE");
        return project_list(args[1]);
    }
    if (args[0] == "import") return project_import(args[1], rest);
    if (args[0] == "export") return project_export(args[1], rest);
    throw Error("unknown project subcommand '" + args[0] + "' (expected list, import or export)");
}

void store_generation(const std::string& project, const Model& model, const DesignRequest& req, const GenerationResult& result,
                      const std::vector<std::vector<BaseScore>>& design_tracks, const RunSettings& settings,
                      double bases_per_second) {
    auto p = open_project(project);
    int64_t context_id = 0;
    if (!req.left_context.empty()) context_id = sequence_id_for(*p, {"context", "left context of a generation run", req.left_context}, "carbon-cli generate");
    st::RunSettings all = st::generation_settings(req);
    all.insert(all.end(), settings.begin(), settings.end());
    for (auto& kv : st::speculative_settings(result.speculative)) all.push_back(std::move(kv));
    const int64_t run_id = p->begin_run(st::make_run(model, "generate", req.sampling.seed, std::move(all)));
    for (size_t di = 0; di < result.designs.size(); ++di) {
        const Design& d = result.designs[di];
        std::vector<st::Track> tracks;
        if (di < design_tracks.size()) tracks = st::base_score_tracks(design_tracks[di]);
        // The design, its tracks and regions land whole.
        p->add_design(st::design_record(d, run_id, context_id), std::move(tracks), st::design_regions(req.template_iupac, d.bases.size()));
    }
    p->finish_run(run_id, result.cancelled ? "cancelled" : "finished", bases_per_second);
    std::fprintf(stderr, "stored run %lld with %zu design(s) in %s\n", static_cast<long long>(run_id), result.designs.size(), project.c_str());
}

void store_scores(const std::string& project, const Model& model, const std::vector<NamedSequence>& records,
                  const std::vector<SequenceScore>& scores, const RunSettings& settings, double bases_per_second) {
    auto p = open_project(project);
    const int64_t run_id = p->begin_run(st::make_run(model, "score", 0, settings));
    for (size_t i = 0; i < records.size() && i < scores.size(); ++i) {
        st::Transaction t(*p);  // a sequence with its tracks lands whole
        const int64_t sid = sequence_id_for(*p, records[i], "carbon-cli score");
        const SequenceScore& s = scores[i];
        for (st::Track& tr : st::base_score_tracks(s.track)) {
            tr.sequence_id = sid;
            p->add_track(tr);
        }
        t.commit();
    }
    p->finish_run(run_id, "finished", bases_per_second);
    std::fprintf(stderr, "stored run %lld with %zu scored sequence(s) in %s\n", static_cast<long long>(run_id), records.size(), project.c_str());
}

void store_variant(const std::string& project, const Model& model, const NamedSequence& record, const VariantScore& v,
                   const RunSettings& settings) {
    auto p = open_project(project);
    const int64_t run_id = p->begin_run(st::make_run(model, "variant", 0, settings));
    st::Transaction t(*p);
    std::vector<st::VariantRecord> vs(1);
    vs[0].sequence_id = sequence_id_for(*p, record, "carbon-cli variant");
    vs[0].run_id = run_id;
    vs[0].position = int64_t(v.position);
    vs[0].ref = v.ref;
    vs[0].alt = v.alt;
    vs[0].site_log_odds = v.site_log_odds;
    vs[0].window_start = int64_t(v.window.start);
    vs[0].window_end = int64_t(v.window.end);
    vs[0].window_delta = v.window_delta;
    vs[0].window_delta_rc = v.window_delta_rc;
    p->add_variants(vs);
    t.commit();
    p->finish_run(run_id, v.cancelled ? "cancelled" : "finished", 0);
}

void store_ism(const std::string& project, const Model& model, const NamedSequence& record, const IsmResult& r,
               const RunSettings& settings) {
    auto p = open_project(project);
    const int64_t run_id = p->begin_run(st::make_run(model, "ism", 0, settings));
    st::Transaction t(*p);
    const int64_t sid = sequence_id_for(*p, record, "carbon-cli ism");
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
    p->add_variants(vs);
    t.commit();
    p->finish_run(run_id, r.cancelled ? "cancelled" : "finished", 0);
    std::fprintf(stderr, "stored run %lld with %zu mutant score(s) in %s\n", static_cast<long long>(run_id), vs.size(), project.c_str());
}

}  // namespace carbon::cli

#endif
