// carbon-cli project list / import / export. list and export only read (nothing is written to
// the file, which may be read-only); import stores everything it was given in one transaction or
// nothing, and removes a project it created when it fails. Without SQLite every entry point
// refuses with one clear message (this file and cli_project_store.cpp look at CARBON_HAVE_STORAGE).
#include "carbon/support/visible_text.h"
#include "cli_project.h"

#include "carbon/support/common.h"

#ifndef CARBON_HAVE_STORAGE

namespace carbon::cli {

int cmd_project(const std::vector<std::string>&) {
    throw Error("this carbon-cli was built without SQLite project support (--project and `project` need storage/; "
                "install libsqlite3-dev and zlib1g-dev and rebuild)");
}

}  // namespace carbon::cli

#else

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>

#include "carbon/runs/run_records.h"
#include "carbon/storage/browser_tracks.h"
#include "carbon/storage/formats.h"
#include "carbon/storage/order_files.h"
#include "carbon/storage/reference.h"
#include "carbon/storage/project.h"
#include "carbon/storage/recovery.h"
#include "carbon/storage/vep_result.h"
#include "carbon/support/output_file.h"
#include "cli_common.h"
#include "cli_project_open.h"

namespace carbon::cli {

namespace st = carbon::storage;

namespace {

const char* kProjectUsage = R"(usage: carbon-cli project list FILE
       carbon-cli project import FILE [--fasta IN.fa[.gz]] [--genbank IN.gb | --embl IN.embl]
             [--vcf IN.vcf[.gz] (--sequence NAME | --sequence-id ID)]
             [--vep SCORES.tsv [--model DIR]] [--recover RECOVERY.carbon] [--wait SECONDS]
       carbon-cli project construct FILE --add NAME [--upstream SEQ] [--downstream SEQ] [--description TEXT] | --remove NAME
       carbon-cli project export FILE --format fasta|sequences|tsv|csv|bedgraph|wig|bigwig|igv|genbank|vcf-results|vep
             |twist|idt|constructs-fasta|constructs-genbank
             --out OUT [--designs ID,ID,... | --selection NAME] [--width N] [--design ID] [--track KIND] [--channel N]
             [--sequence NAME | --sequence-id ID] [--run ID] [--reference GENOME.fa] [--value V]
             [--vcf FILE] [--tracks FILE,...] [--locus CHR:FROM-TO] [--upstream SEQ] [--downstream SEQ]
             [--construct NAME] [--plate 96|384] [--fill columns|rows]
  list and export only read the file. import stores everything it is given (FASTA, VCF, a
  recovery project) in one transaction, or nothing; --wait is how long it waits for another
  program writing to FILE (default 300 s). --recover stores a run that could not be stored when
  it was computed (the command then named the recovery file) and removes the recovery file.
  Sequence names need not be unique: --sequence NAME must name exactly one (project list shows
  the ids), --sequence-id ID picks one by id.
  fasta/tsv/csv: the chosen designs (default all), FASTA wrapped at --width (default 60, 0 = one
  line) with key=value headers. sequences: the stored sequences as FASTA. bedgraph/wig: --track
  KIND (default logp: logp, dist_acgt, entropy_bits) of --design ID or a stored sequence, column
  --channel (default 0). genbank: --design ID with its regions as features, or a stored sequence
  (--sequence NAME / --sequence-id ID) with the feature table it was imported with. --genbank /
  --embl: every entry of a GenBank or EMBL file (either option reads either format, plain or
  gzip) with its features; the whole file is checked before anything is stored. vcf-results: the
  variants of a stored sequence with their scores, as TSV. --vep stores a carbon-cli vep (or
  carbon-cluster vep) result as a "vep" run (--model: the folder it was scored with, whose
  config and tokenizer hashes the run records); --format vep --run ID writes it back, the same bytes.
  bigwig: a track as bedgraph writes it (same options), or with --run ID a vep run's scores, one
  base at each variant's position (--value window_delta_mean (default), window_delta,
  window_delta_rc or site_log_odds; where alleles share a position, the largest magnitude), the
  contigs and their lengths from --reference (default: the reference the run was scored on);
  binary and indexed, for whole genomes (browsers load bedGraph whole). igv: an IGV session
  (XML) that opens --reference with --tracks, the VCF (--vcf, default the run's) and, with --run
  ID, the run's scores written as OUT's name + .vep-runID.bw beside it; paths in it are relative
  to its folder.
  construct: a construct by name (--upstream and --downstream: A, C, G, T; adapters, primers, a
  promoter and reporter, overhangs), which generate --construct NAME designs in and orders use;
  --remove takes one away (runs made in it keep its bases).
  Orders (--designs ID,..., --selection NAME (a stored selection, in its order: carbon-cli select
  --save-as) or every design not discarded), each design as a construct: --upstream + design +
  --downstream, or --construct NAME, or by default the construct the design's run was made in
  (none for a run made in none; each run's said on stderr). twist: a Twist
  oligo pool CSV (Name,Sequence). idt: IDT plate sheets (.xlsx, a sheet per plate of --plate
  wells, default 96, filled by --fill columns (A1, B1, ...; default) or rows; Well Position, Name,
  Sequence). constructs-fasta / constructs-genbank: the whole constructs, the flanks and the
  design as GenBank features. Names are the designs' (vendor-safe, unique; changes are noted).
)";


// --sequence NAME or --sequence-id ID: the one stored sequence meant; nullopt when neither is
// given. A name several sequences share is an Error that lists them.
std::optional<st::SequenceRecord> chosen_sequence(st::Project& p, const Args& a) {
    const auto name = a.get("sequence");
    const auto id = a.optional_integer("sequence-id", 1, 1ll << 62);
    if (name && id) throw Error("give --sequence NAME or --sequence-id ID, not both");
    if (id) {
        auto s = p.sequence(*id);
        if (!s) throw Error(p.path() + ": no sequence with id " + std::to_string(*id) + " (carbon-cli project list shows the ids)");
        return s;
    }
    if (!name) return std::nullopt;
    std::optional<st::SequenceRecord> s;
    try {
        s = p.find_sequence(*name);
    } catch (const Error& e) {
        throw Error(std::string(e.what()) + " with --sequence-id ID");
    }
    if (!s) throw Error(p.path() + ": no sequence named '" + *name + "' (carbon-cli project list shows the names)");
    return s;
}

int project_list(const std::string& path) {
    auto p = st::Project::open(path, read_only_options());
    std::printf("project %s (schema %d)\n", visible_text(path).c_str(), p->file_schema_version());
    const auto seqs = p->list_sequences();
    std::printf("sequences: %zu\n", seqs.size());
    for (const auto& s : seqs)
        std::printf("  %lld\t%s\t%lld bp\t%s\n", static_cast<long long>(s.id), visible_text(s.name).c_str(), static_cast<long long>(s.length),
                    visible_text(s.origin).c_str());
    const auto runs = p->list_runs();
    std::printf("runs: %zu\n", runs.size());
    for (const auto& r : runs)
        std::printf("  %lld\t%s\t%s\tseed %llu\t%s\t%.1f bp/s\t%s\n", static_cast<long long>(r.id), visible_text(r.kind).c_str(),
                    visible_text(r.status).c_str(), static_cast<unsigned long long>(r.seed), visible_text(r.started).c_str(), r.bases_per_second,
                    visible_text(r.model_path).c_str());
    const auto designs = p->list_designs(0, false);
    std::printf("designs: %zu\n", designs.size());
    std::printf("  id\tname\trun\trank\tdesign_logp\tranking_logp\n");
    for (const auto& d : designs)
        std::printf("  %lld\t%s\t%lld\t%d\t%.6g\t%.6g\n", static_cast<long long>(d.id), visible_text(d.name).c_str(), static_cast<long long>(d.run_id), d.rank,
                    d.design_logp, d.ranking_logp);
    std::printf("variants: %lld, tracks: %lld, vep rows: %lld\n", static_cast<long long>(p->count("variants")),
                static_cast<long long>(p->count("tracks")), static_cast<long long>(p->count("vep_results")));
    const auto constructs = p->list_constructs();
    std::printf("constructs: %zu\n", constructs.size());
    for (const auto& c : constructs)
        std::printf("  %s\t%zu + %zu bp\t%s...%s\t%s\n", visible_text(c.name).c_str(), c.upstream.size(), c.downstream.size(),
                    visible_text(c.upstream.substr(0, 12)).c_str(),
                    visible_text(c.downstream.substr(c.downstream.size() - std::min<size_t>(12, c.downstream.size()))).c_str(),
                    visible_text(c.description).c_str());
    const auto selections = p->list_selections();
    std::printf("selections: %zu\n", selections.size());
    for (const auto& s : selections) {
        std::string ids;
        for (size_t k = 0; k < s.design_ids.size() && k < 20; ++k) ids += (k ? "," : "") + std::to_string(s.design_ids[k]);
        if (s.design_ids.size() > 20) ids += ",...";
        std::printf("  %s\t%zu design(s)\t%s\t%s\n", visible_text(s.name).c_str(), s.design_ids.size(), visible_text(s.created).c_str(), ids.c_str());
    }
    const auto predictors = p->list_predictors();
    std::printf("predictors: %zu\n", predictors.size());
    for (const auto& pr : predictors) {
        std::string conditions;
        for (const std::string& c : pr.conditions) conditions += (conditions.empty() ? "" : ",") + visible_text(c);
        std::printf("  %lld\t%s\t%s\t%s\tconditions %s\ttable %s\tmodel %s\n", static_cast<long long>(pr.id), visible_text(pr.name).c_str(),
                    visible_text(pr.kind).c_str(), visible_text(pr.created).c_str(), conditions.c_str(), visible_text(pr.table_path).c_str(),
                    visible_text(pr.model_path).c_str());
    }
    return 0;
}

int project_import(const std::string& path, const std::vector<std::string>& rest) {
    Args a(rest, {"fasta", "genbank", "embl", "vcf", "sequence", "sequence-id", "recover", "wait", "vep", "model"}, {});
    const auto fasta = a.get("fasta"), vcf = a.get("vcf"), recover = a.get("recover"), vep = a.get("vep");
    if (a.get("genbank") && a.get("embl")) throw Error("give --genbank or --embl (either reads both formats), not both");
    const auto flat = a.get("genbank") ? a.get("genbank") : a.get("embl");
    if (!fasta && !flat && !vcf && !recover && !vep)
        throw Error("project import: give --fasta IN, --genbank IN, --embl IN, --vcf IN --sequence NAME, --vep SCORES.tsv or --recover FILE");
    if (vep) st::VepResultReader check(*vep);  // not a vep result: refused before the project is touched
    if (a.get("model") && !vep) throw Error("--model names the model of a --vep result");
    if (!vcf && (a.get("sequence") || a.get("sequence-id"))) throw Error("--sequence and --sequence-id choose the sequence of --vcf");
    if (vcf && !a.get("sequence") && !a.get("sequence-id")) throw Error("--vcf needs --sequence NAME or --sequence-id ID");
    std::error_code same_ec;
    if (recover && std::filesystem::equivalent(*recover, path, same_ec)) throw Error("--recover names the project itself");
    std::unique_ptr<st::Project> from;  // opened first: a wrong recovery file creates nothing
    if (recover) from = st::Project::open(*recover, read_only_options());
    auto p = st::Project::open(path, write_options(path, a.number("wait", kDefaultProjectWait, 0, 86400)));
    std::vector<std::string> report;
    try {
        st::Transaction t(*p);  // the whole command: everything or nothing
        if (fasta) {
            const auto r = st::import_fasta(*p, *fasta);
            report.push_back(*fasta + ": " + std::to_string(r.sequence_ids.size()) + " sequence(s), " + std::to_string(r.bases) +
                             " bp imported into " + path);
            if (r.unnamed)
                report.push_back("note: " + std::to_string(r.unnamed) + " record(s) without a name were named record_N (N = record number)");
        }
        if (flat) {
            const auto r = st::import_flat_file(*p, *flat);
            for (const auto& n : r.notices) report.push_back("note: " + n);
            report.push_back(*flat + ": " + std::to_string(r.sequence_ids.size()) + " sequence(s), " + std::to_string(r.bases) + " bp, " +
                             std::to_string(r.features) + " feature(s) imported into " + path);
        }
        if (vcf) {
            const auto seq = chosen_sequence(*p, a);
            const auto r = st::import_vcf(*p, *vcf, seq->id);
            for (const auto& s : r.skipped) report.push_back("skipped: " + s);
            report.push_back(*vcf + ": " + std::to_string(r.imported) + " SNV(s) imported, " + std::to_string(r.skipped.size()) +
                             " record(s) skipped (sequence '" + seq->name + "', id " + std::to_string(seq->id) + ")");
        }
        if (vep) {
            // With --model, the run records that folder's identity (config and tokenizer hashes).
            const st::Run identity = a.get("model") ? runs::make_run(*a.get("model"), "", "vep", 0, {}) : st::Run{};
            const st::VepStored r = st::store_vep_result(*p, *vep, identity, "finished");
            report.push_back(*vep + ": stored as run " + std::to_string(r.run_id) + " with " + std::to_string(r.rows) + " row(s) in " + path);
        }
        if (recover) {
            const st::MergeResult m = st::merge_project(*p, *from);
            std::string runs;
            for (int64_t id : m.run_ids) runs += (runs.empty() ? "" : ", ") + std::to_string(id);
            report.push_back(*recover + ": stored " + std::to_string(m.run_ids.size()) + " run(s) (" + (runs.empty() ? "none" : "ids " + runs) +
                             "), " + std::to_string(m.designs) + " design(s), " + std::to_string(m.sequences_added) + " new sequence(s) (" +
                             std::to_string(m.sequences_reused) + " already there), " + std::to_string(m.tracks) + " track(s), " +
                             std::to_string(m.variants) + " variant(s), " + std::to_string(m.vep_rows) + " vep row(s), " +
                             std::to_string(m.predictors) + " predictor(s) in " + path);
        }
        t.commit();
    } catch (const std::exception& e) {
        std::string msg = e.what();
        const bool created = p->created();
        bool empty = false;
        try {
            empty = p->empty();
        } catch (const std::exception&) {
        }
        p.reset();
        if (created && empty) {
            st::remove_project_files(path);
            msg += "\nnothing was stored; the new project " + path + " was removed";
        } else {
            msg += "\nnothing of this import was stored in " + path;
        }
        throw Error(msg);
    }
    for (const std::string& line : report) std::fprintf(stderr, "%s\n", line.c_str());
    if (recover) {
        from.reset();
        st::remove_project_files(*recover);
        std::fprintf(stderr, "removed %s (its contents are now in %s)\n", recover->c_str(), path.c_str());
    }
    return 0;
}

// The reference of --reference (a session without a vep run).
std::unique_ptr<st::ReferenceGenome> session_reference(const Args& a) {
    const std::string ref = a.get_or("reference", "");
    if (ref.empty()) throw Error("--format igv needs --reference GENOME.fa, or --run ID of a vep run (its reference)");
    auto genome = st::ReferenceGenome::open(ref, st::ReferenceGenome::default_index_dir());
    if (!genome->index_note().empty()) std::fprintf(stderr, "note: %s\n", genome->index_note().c_str());
    return genome;
}

std::optional<st::Run> vep_run(st::Project& p, const Args& a, const char* format) {
    if (!a.get("run")) return std::nullopt;
    const int64_t id = a.integer("run", 0, 1, 1ll << 62);
    auto run = p.run(id);
    if (!run || run->kind != "vep")
        throw Error(p.path() + ": no vep run with id " + std::to_string(id) + " for --format " + format +
                    " (carbon-cli project list shows the runs)");
    return run;
}

void report_vep_track(const std::string& out, const st::VepTrackSummary& s, st::VepValue value) {
    std::fprintf(stderr, "%s: %zu position(s) of %s from %zu row(s); %zu row(s) without a value (not scored, or NA)\n", out.c_str(),
                 s.positions, st::vep_value_name(value), s.rows, s.without_value);
}

// --format bigwig and igv.
void export_for_browsers(st::Project& p, const Args& a, const std::string& format, std::ostream& out, const std::string& out_path,
                         const std::function<st::TrackOwner()>& owner) {
    const std::optional<st::Run> run = vep_run(p, a, format.c_str());
    const st::VepValue value = st::parse_vep_value(a.get_or("value", "window_delta_mean"));
    if (format == "bigwig") {
        if (run) {
            std::string genome;
            std::vector<std::string> notes;
            const auto contigs = st::vep_run_contigs(p, *run, a.get_or("reference", ""), st::ReferenceGenome::default_index_dir(), genome, notes);
            for (const std::string& n : notes) std::fprintf(stderr, "note: %s\n", n.c_str());
            report_vep_track(out_path, st::export_vep_bigwig(p, out, out_path, run->id, contigs, value), value);
        } else {
            st::export_track_bigwig(p, out, out_path, owner(), a.get_or("track", "logp"), int(a.integer("channel", 0, 0, 64)));
        }
        return;
    }
    // igv: the reference, the run's scores as a bigWig beside the session, its VCF, and --tracks.
    std::vector<std::string> tracks;
    const std::string list = a.get_or("tracks", "");
    for (size_t i = 0; i < list.size();) {
        const size_t j = std::min(list.find(',', i), list.size());
        if (j > i) tracks.push_back(list.substr(i, j - i));
        i = j + 1;
    }
    if (!run) {  // a session of the reference and the given tracks
        st::IgvSession session{session_reference(a)->path(), tracks, a.get_or("locus", "")};
        if (const std::string vcf = a.get_or("vcf", ""); !vcf.empty()) session.resources.insert(session.resources.begin(), vcf);
        st::write_igv_session(out, out_path, session);
        std::fprintf(stderr, "%s: an IGV session of %s with %zu track(s)\n", out_path.c_str(), session.genome.c_str(), session.resources.size());
        return;
    }
    st::VepBrowserExport request{run->id, out_path, a.get_or("reference", ""), a.get_or("vcf", ""), tracks, a.get_or("locus", ""), value,
                                 st::ReferenceGenome::default_index_dir()};
    const st::VepBrowserFiles files = st::export_vep_for_igv(p, out, request);
    for (const std::string& n : files.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    report_vep_track(files.bigwig, files.summary, value);
    std::fprintf(stderr, "%s: an IGV session of %s with %zu track(s)\n", out_path.c_str(), files.genome.c_str(), files.resources);
}

// The flanks of an order: --construct NAME (the project's), --upstream / --downstream, or
// nullopt: each design in its run's construct.
std::optional<st::ConstructFlanks> order_flanks(st::Project& p, const Args& a) {
    if (const auto name = a.get("construct")) {
        if (a.get("upstream") || a.get("downstream")) throw Error("give --construct NAME or --upstream / --downstream, not both");
        const auto c = p.find_construct(*name);
        if (!c) throw Error(p.path() + ": no construct named '" + visible_text(*name, 80) + "' (carbon-cli project list shows them)");
        return st::ConstructFlanks{c->upstream, c->downstream};
    }
    if (a.get("upstream") || a.get("downstream")) return st::ConstructFlanks{a.get_or("upstream", ""), a.get_or("downstream", "")};
    return std::nullopt;
}

// project construct FILE --add NAME --upstream SEQ --downstream SEQ [--description TEXT] | --remove NAME
int project_construct(const std::string& path, const std::vector<std::string>& rest) {
    Args a(rest, {"add", "remove", "upstream", "downstream", "description", "wait"}, {});
    const auto add = a.get("add"), remove = a.get("remove");
    if (bool(add) == bool(remove)) throw Error("project construct: give --add NAME --upstream SEQ --downstream SEQ, or --remove NAME");
    if (remove && (a.get("upstream") || a.get("downstream") || a.get("description")))
        throw Error("project construct --remove takes only the name");
    if (add && !a.get("upstream") && !a.get("downstream")) throw Error("project construct --add needs --upstream SEQ and/or --downstream SEQ");
    auto p = st::Project::open(path, write_options(path, a.number("wait", kDefaultProjectWait, 0, 86400)));
    try {
        if (add) {
            st::ConstructRecord c;
            c.name = *add;
            c.upstream = a.get_or("upstream", "");
            c.downstream = a.get_or("downstream", "");
            c.description = a.get_or("description", "");
            p->add_construct(c);
            std::fprintf(stderr, "%s: construct '%s' added (%zu bp upstream, %zu bp downstream)\n", path.c_str(), visible_text(c.name).c_str(),
                         c.upstream.size(), c.downstream.size());
        } else {
            p->remove_construct(*remove);
            std::fprintf(stderr, "%s: construct '%s' removed (runs made in it keep its bases)\n", path.c_str(), visible_text(*remove).c_str());
        }
    } catch (...) {
        if (p->created()) {
            p.reset();
            st::remove_project_files(path);
        }
        throw;
    }
    return 0;
}

int project_export(const std::string& path, const std::vector<std::string>& rest) {
    Args a(rest, {"format", "out", "designs", "width", "design", "track", "channel", "sequence", "sequence-id", "run", "reference", "vcf",
                  "tracks", "value", "locus", "upstream", "downstream", "construct", "selection", "plate", "fill"},
           {});
    const std::string format = a.required("format"), out_path = a.required("out");
    auto p = st::Project::open(path, read_only_options());
    if (a.get("designs") && a.get("selection")) throw Error("give --designs ID,... or --selection NAME, not both");
    std::vector<int64_t> ids = parse_ids(a.get_or("designs", ""), "--designs");
    if (a.get("designs") && ids.empty()) throw Error("--designs names no design id (leave it out for every design)");
    if (const auto name = a.get("selection")) {
        const auto sel = p->find_selection(*name);
        if (!sel) throw Error(path + ": no selection named '" + visible_text(*name, 80) + "' (carbon-cli project list shows them)");
        if (sel->design_ids.empty())
            throw Error(path + ": selection '" + visible_text(*name, 80) + "' holds no designs any more (they were deleted); nothing to export");
        ids = sel->design_ids;
    }
    auto design_id = [&] { return int64_t(a.integer("design", 0, 1, 1ll << 62)); };
    // Tracks of a design (--design ID) or of a stored sequence (--sequence NAME / --sequence-id ID).
    auto owner = [&] {
        st::TrackOwner o;
        if (auto s = chosen_sequence(*p, a)) {
            o.sequence_id = s->id;
        } else {
            o.design_id = design_id();
            if (!o.design_id) throw Error("--format " + format + " needs --design ID, --sequence NAME or --sequence-id ID");
        }
        return o;
    };
    OutputFile out_file(out_path);
    std::ostream& out = out_file.stream();
    std::vector<std::string> notes;  // what the export had to change to stay in its format
    if (format == "fasta") notes = st::export_designs_fasta(*p, out, ids, size_t(a.integer("width", 60, 0, 1 << 30)));
    else if (format == "sequences") notes = st::export_sequences_fasta(*p, out, size_t(a.integer("width", 60, 0, 1 << 30)));
    else if (format == "tsv") st::export_designs_table(*p, out, ids, '\t');
    else if (format == "csv") st::export_designs_table(*p, out, ids, ',');
    else if (format == "bedgraph") st::export_track_bedgraph(*p, out, owner(), a.get_or("track", "logp"), int(a.integer("channel", 0, 0, 64)));
    else if (format == "wig") st::export_track_wig(*p, out, owner(), a.get_or("track", "logp"), int(a.integer("channel", 0, 0, 64)));
    else if (format == "bigwig" || format == "igv") export_for_browsers(*p, a, format, out, out_path, owner);
    else if (format == "twist" || format == "idt" || format == "constructs-fasta" || format == "constructs-genbank") {
        st::OrderSelection sel = st::order_constructs(*p, ids, order_flanks(*p, a));
        notes = std::move(sel.notes);
        if (format == "twist") st::write_twist_pool_csv(out, sel.constructs);
        else if (format == "constructs-fasta") st::write_constructs_fasta(out, sel.constructs, size_t(a.integer("width", 60, 0, 1 << 30)));
        else if (format == "constructs-genbank") {
            const auto more = st::write_constructs_genbank(out, sel.constructs);
            notes.insert(notes.end(), more.begin(), more.end());
        } else {
            const std::string fill = a.get_or("fill", "columns");
            if (fill != "columns" && fill != "rows") throw Error("--fill must be columns or rows, not '" + visible_text(fill, 40) + "'");
            const int wells = int(a.integer("plate", 96, 96, 384));
            if (wells != 96 && wells != 384) throw Error("--plate must be 96 or 384, not " + std::to_string(wells));
            st::write_idt_plates_xlsx(out, out_path, sel.constructs, wells, fill == "rows" ? st::PlateFill::Rows : st::PlateFill::Columns);
        }
        std::fprintf(stderr, "%s: %zu construct(s)\n", out_path.c_str(), sel.constructs.size());
    }
    else if (format == "genbank") {
        if (auto s = chosen_sequence(*p, a)) notes = st::export_genbank_sequence(*p, out, s->id);
        else if (a.get("design")) notes = st::export_genbank(*p, out, design_id());
        else throw Error("--format genbank needs --design ID or --sequence NAME / --sequence-id ID");
    }
    else if (format == "vcf-results") {
        const auto s = chosen_sequence(*p, a);
        if (!s) throw Error("--format vcf-results needs --sequence NAME or --sequence-id ID");
        st::export_variants_tsv(*p, out, s->id);
    } else if (format == "vep") {
        if (!a.get("run")) throw Error("--format vep needs --run ID (carbon-cli project list shows the vep runs)");
        st::export_vep_tsv(*p, out, a.integer("run", 0, 1, 1ll << 62));
    } else {
        throw Error("--format must be fasta, sequences, tsv, csv, bedgraph, wig, bigwig, igv, genbank, vcf-results, vep, twist, idt, "
                    "constructs-fasta or constructs-genbank, not '" +
                    visible_text(format, 40) + "'");
    }
    out_file.commit();
    for (const std::string& n : notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    return 0;
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
    if (args[0] == "construct") return project_construct(args[1], rest);
    throw Error("unknown project subcommand '" + args[0] + "' (expected list, import, export or construct)");
}

}  // namespace carbon::cli

#endif
