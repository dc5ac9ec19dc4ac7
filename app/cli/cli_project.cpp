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

// FNV-1a over a file's bytes: identifies the exact config / tokenizer a run used.
std::string file_hash(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
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

st::Run make_run(const Model& model, const std::string& kind, uint64_t seed, const RunSettings& settings) {
    st::Run r;
    r.kind = kind;
    const std::filesystem::path dir = model.checkpoint().dir();
    r.model_path = std::filesystem::absolute(dir).string();
    r.model_config_hash = file_hash(dir / "config.json");
    const std::string tok = file_hash(dir / "tokenizer.json");
    r.tokenizer_hash = tok.empty() ? file_hash(dir / "tokenizer_config.json") : tok;
    r.backend = const_cast<Model&>(model).backend().describe();
    r.seed = seed;
    r.engine_version = CARBON_VERSION;
    r.settings = settings;
    return r;
}

std::unique_ptr<st::Project> open_project(const std::string& path) { return st::Project::open(path); }

std::vector<int64_t> parse_ids(const std::string& s) {
    std::vector<int64_t> ids;
    std::stringstream ss(s);
    std::string part;
    while (std::getline(ss, part, ','))
        if (!part.empty()) {
            if (part.find_first_not_of("0123456789") != std::string::npos) throw Error("--designs: '" + part + "' is not a design id");
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
    std::ofstream out(out_path + ".partial", std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + out_path + ".partial");
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
    out.close();
    if (!out) throw Error("cannot write " + out_path + ".partial (disk full?)");
    std::filesystem::rename(out_path + ".partial", out_path);
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

st::Track base_track(const std::string& kind, int width) {
    st::Track t;
    t.kind = kind;
    t.width = width;
    t.dtype = width == 4 ? st::TrackDType::F16 : st::TrackDType::F32;
    return t;
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
    const int64_t run_id = p->begin_run(make_run(model, "generate", req.sampling.seed, settings));
    for (size_t di = 0; di < result.designs.size(); ++di) {
        const Design& d = result.designs[di];
        st::DesignRecord r;
        r.run_id = run_id;
        r.sequence_id = context_id;
        r.name = "run" + std::to_string(run_id) + "_design_" + std::to_string(d.index + 1);
        r.bases = d.bases;
        r.design_logp = d.design_logp;
        r.ranking_logp = d.ranking_logp;
        r.rank = d.rank;
        r.stream_index = int64_t(d.index);
        r.backtracks = int64_t(d.backtracks);
        std::vector<st::Region> regions(1);
        regions[0].kind = st::RegionKind::Design;
        regions[0].end = int64_t(d.bases.size());
        regions[0].template_iupac = req.template_iupac;
        // Pinned motifs: the template's stretches of fixed single bases.
        for (size_t i = 0; i < req.template_iupac.size();) {
            const char c = req.template_iupac[i];
            const bool fixed = c == 'A' || c == 'C' || c == 'G' || c == 'T';
            size_t j = i + 1;
            while (fixed && j < req.template_iupac.size() && std::strchr("ACGT", req.template_iupac[j])) ++j;
            if (fixed) {
                st::Region pin;
                pin.kind = st::RegionKind::Pinned;
                pin.start = int64_t(i);
                pin.end = int64_t(j);
                pin.label = req.template_iupac.substr(i, j - i);
                regions.push_back(pin);
            }
            i = j;
        }
        std::vector<st::Track> tracks;
        if (di < design_tracks.size() && !design_tracks[di].empty()) {
            st::Track logp = base_track("logp", 1), dist = base_track("dist_acgt", 4), ent = base_track("entropy_bits", 1);
            for (const BaseScore& b : design_tracks[di]) {
                logp.values.push_back(b.logp);
                for (int k : {0, 2, 3, 1}) dist.values.push_back(b.p[size_t(k)]);  // engine A,T,C,G -> stored A,C,G,T
                ent.values.push_back(b.entropy_bits);
            }
            tracks = {logp, dist, ent};
        }
        p->add_design(r, std::move(tracks), regions);  // the design, its tracks and regions land whole
    }
    p->finish_run(run_id, result.cancelled ? "cancelled" : "finished", bases_per_second);
    std::fprintf(stderr, "stored run %lld with %zu design(s) in %s\n", static_cast<long long>(run_id), result.designs.size(), project.c_str());
}

void store_scores(const std::string& project, const Model& model, const std::vector<NamedSequence>& records,
                  const std::vector<SequenceScore>& scores, const RunSettings& settings, double bases_per_second) {
    auto p = open_project(project);
    const int64_t run_id = p->begin_run(make_run(model, "score", 0, settings));
    for (size_t i = 0; i < records.size() && i < scores.size(); ++i) {
        st::Transaction t(*p);  // a sequence with its tracks lands whole
        const int64_t sid = sequence_id_for(*p, records[i], "carbon-cli score");
        const SequenceScore& s = scores[i];
        if (!s.track.empty()) {
            st::Track logp = base_track("logp", 1), dist = base_track("dist_acgt", 4), ent = base_track("entropy_bits", 1);
            for (const BaseScore& b : s.track) {
                logp.values.push_back(b.logp);
                // Engine order is A, T, C, G (the 6-mer index); stored A, C, G, T as users read them.
                for (int k : {0, 2, 3, 1}) dist.values.push_back(b.p[size_t(k)]);
                ent.values.push_back(b.entropy_bits);
            }
            for (st::Track* tr : {&logp, &dist, &ent}) {
                tr->sequence_id = sid;
                p->add_track(*tr);
            }
        }
        t.commit();
    }
    p->finish_run(run_id, "finished", bases_per_second);
    std::fprintf(stderr, "stored run %lld with %zu scored sequence(s) in %s\n", static_cast<long long>(run_id), records.size(), project.c_str());
}

void store_variant(const std::string& project, const Model& model, const NamedSequence& record, const VariantScore& v,
                   const RunSettings& settings) {
    auto p = open_project(project);
    const int64_t run_id = p->begin_run(make_run(model, "variant", 0, settings));
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
    const int64_t run_id = p->begin_run(make_run(model, "ism", 0, settings));
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
