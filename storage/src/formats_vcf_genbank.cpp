// VCF panel import (SNVs against a stored sequence, read by vcf_reader.cpp), variant results as
// TSV, and GenBank export of a design with its regions as features. See formats.h.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "carbon/storage/fasta.h"
#include "carbon/storage/formats.h"
#include "carbon/storage/vcf.h"
#include "format_util.h"

namespace carbon::storage {

VcfImportResult import_vcf(Project& project, const std::string& path, int64_t sequence_id) {
    const auto seq = project.sequence(sequence_id);
    if (!seq) throw Error(project.path() + ": no sequence with id " + std::to_string(sequence_id) + " to import the variants of " + path + " against");
    VcfPanel panel = read_vcf_panel(path, seq->name, seq->bases);
    std::vector<VariantRecord> variants;
    variants.reserve(panel.snvs.size());
    for (VcfSnv& s : panel.snvs) {
        VariantRecord v;
        v.sequence_id = seq->id;
        v.position = s.position;
        v.ref = s.ref;
        v.alt = s.alt;
        v.label = std::move(s.label);
        variants.push_back(std::move(v));
    }
    project.add_variants(variants);  // one transaction
    VcfImportResult r;
    r.imported = variants.size();
    r.skipped = std::move(panel.skipped);
    return r;
}

VcfImportResult import_vcf(Project& project, const std::string& path, const std::string& sequence_name) {
    const auto seq = project.find_sequence(sequence_name);  // an Error when the name is ambiguous
    if (!seq) throw Error(project.path() + ": no sequence named '" + sequence_name + "' to import the variants of " + path + " against");
    return import_vcf(project, path, seq->id);
}

void export_variants_tsv(Project& project, std::ostream& out, int64_t sequence_id) {
    const auto seq = project.sequence(sequence_id);
    if (!seq) throw Error(project.path() + ": no sequence with id " + std::to_string(sequence_id));
    out << "sequence\tpos\tref\talt\tid\trun\tsite_log_odds\twindow_start\twindow_end\twindow_delta\twindow_delta_rc\tism_score\n";
    for (const VariantRecord& v : project.variants_of_sequence(sequence_id)) {
        out << seq->name << '\t' << v.position + 1 << '\t' << v.ref << '\t' << v.alt << '\t' << (v.label.empty() ? "." : v.label) << '\t'
            << (v.run_id ? std::to_string(v.run_id) : "NA") << '\t' << num(v.site_log_odds) << '\t'
            << (v.window_start >= 0 ? std::to_string(v.window_start + 1) : "NA") << '\t'
            << (v.window_start >= 0 ? std::to_string(v.window_end) : "NA") << '\t' << num(v.window_delta) << '\t'
            << num(v.window_delta_rc) << '\t' << num(v.ism_score) << '\n';
    }
    if (!out) throw Error("cannot write the variants export (disk full?)");
}

std::vector<std::string> export_genbank(Project& project, std::ostream& out, int64_t design_id) {
    const auto d = project.design(design_id);
    if (!d) throw Error(project.path() + ": no design with id " + std::to_string(design_id));
    const std::string what = "design " + std::to_string(d->id);
    // Everything a stored text puts on a line is checked first: nothing is written for a design
    // the export would have to refuse half-way.
    const auto regions = project.regions_of_design(design_id);
    for (const Region& r : regions)
        if (r.start < 0 || r.end > int64_t(d->bases.size()) || r.end < r.start)
            throw Error(project.path() + ": " + what + ": its region " + std::to_string(r.start + 1) + ".." + std::to_string(r.end) +
                        " does not fit its " + std::to_string(d->bases.size()) + " bases (the project was changed elsewhere); nothing was exported");
    std::vector<std::string> notes;
    // One line each: control characters written as escapes (\n, \x1b), said in the notes.
    auto one_line = [&](const std::string& field, const std::string& text) {
        const std::string v = visible_text(text);
        if (v != text)
            notes.push_back(what + ": its " + field + " holds control characters or bytes that are not UTF-8, written as escapes ('" +
                            visible_text(text, 60) + "')");
        return v;
    };
    out << genbank_locus_line(genbank_locus_name(d->name, "design_" + std::to_string(d->id), what, notes), d->bases.size(), "SYN", d->created);
    const auto run = project.run(d->run_id);
    out << "DEFINITION  Carbon Studio design " << one_line("name", d->name) << " (run " << d->run_id << ", rank " << d->rank
        << ", design_logp " << num(d->design_logp) << ", ranking_logp " << num(d->ranking_logp) << ").\n";
    out << "ACCESSION   .\nVERSION     .\nKEYWORDS    .\nSOURCE      synthetic DNA construct\n"
        << "  ORGANISM  synthetic DNA construct\n            other sequences; artificial sequences.\n";
    if (run) out << "COMMENT     model " << (run->model_path.empty() ? "?" : one_line("run's model path", run->model_path)) << "; seed " << run->seed << ".\n";
    out << "FEATURES             Location/Qualifiers\n";
    out << "     source          1.." << d->bases.size() << "\n                     /mol_type=\"other DNA\"\n"
        << "                     /organism=\"synthetic DNA construct\"\n";
    for (const Region& r : regions) {
        if (r.end <= r.start) continue;  // GenBank has no empty features
        const std::string loc = r.end - r.start == 1 ? std::to_string(r.start + 1) : std::to_string(r.start + 1) + ".." + std::to_string(r.end);
        out << "     misc_feature    " << loc << "\n";
        std::string note = region_kind_name(r.kind);
        if (r.kind == RegionKind::Design) note = "design region";
        if (r.kind == RegionKind::Pinned) note = "pinned motif";
        if (!r.label.empty()) note += ": " + one_line("region label", r.label);
        for (char& c : note)
            if (c == '"') c = '\'';
        out << "                     /note=\"" << note << "\"\n";
        if (!r.template_iupac.empty())
            out << "                     /label=\"" << one_line("region template", r.template_iupac.substr(0, 60)) << "\"\n";
    }
    write_genbank_origin(out, d->bases);
    if (!out) throw Error("cannot write the GenBank export (disk full?)");
    return notes;
}

}  // namespace carbon::storage
