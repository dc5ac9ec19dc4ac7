// VCF panel import (SNVs against a stored sequence), variant results as TSV, and GenBank export
// of a design with its regions as features. See formats.h.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>

#include "carbon/storage/fasta.h"
#include "carbon/storage/formats.h"
#include "format_util.h"
#include "gzip_reader.h"

namespace carbon::storage {

namespace {

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> out;
    size_t a = 0;
    for (;;) {
        const size_t b = line.find('\t', a);
        out.push_back(line.substr(a, b == std::string::npos ? std::string::npos : b - a));
        if (b == std::string::npos) break;
        a = b + 1;
    }
    return out;
}

bool is_acgt(char c) { return c == 'A' || c == 'C' || c == 'G' || c == 'T'; }

std::string upper(std::string s) {
    for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace

VcfImportResult import_vcf(Project& project, const std::string& path, const std::string& sequence_name) {
    const auto seq = project.find_sequence(sequence_name);
    if (!seq) throw Error(project.path() + ": no sequence named '" + sequence_name + "' to import the variants of " + path + " against");
    FileSource src(path);
    LineReader lines(src);
    VcfImportResult r;
    std::vector<VariantRecord> variants;
    std::string line;
    bool saw_fileformat = false, saw_columns = false;
    auto where = [&] { return path + ":" + std::to_string(lines.line_number()) + ": "; };
    while (lines.next(line)) {
        if (lines.line_number() == 1) {
            if (line.rfind("##fileformat=VCF", 0) != 0)
                throw Error(where() + "not a VCF file: the first line must be ##fileformat=VCFv4.x");
            saw_fileformat = true;
            continue;
        }
        if (line.rfind("##", 0) == 0) continue;
        if (line.rfind("#CHROM", 0) == 0) {
            const auto cols = split_tabs(line);
            static const char* const kCols[] = {"#CHROM", "POS", "ID", "REF", "ALT"};
            for (size_t i = 0; i < 5; ++i)
                if (i >= cols.size() || cols[i] != kCols[i])
                    throw Error(where() + "the column header must start #CHROM POS ID REF ALT, separated by tabs");
            saw_columns = true;
            continue;
        }
        if (line.empty()) continue;
        if (!saw_columns) throw Error(where() + "a data line before the #CHROM column header line");
        const auto f = split_tabs(line);
        if (f.size() < 5)
            throw Error(where() + "a data line needs at least 5 tab-separated columns (CHROM POS ID REF ALT), this one has " +
                        std::to_string(f.size()));
        const std::string& pos_text = f[1];
        if (pos_text.empty() || pos_text.size() > 15 || pos_text.find_first_not_of("0123456789") != std::string::npos)
            throw Error(where() + "POS '" + pos_text + "' is not a positive whole number");
        const long long pos = std::stoll(pos_text);
        if (pos < 1) throw Error(where() + "POS must be 1 or more (VCF positions are 1-based), not " + pos_text);
        const std::string ref = upper(f[3]);
        if (ref.empty() || ref.find_first_not_of("ACGTN") != std::string::npos)
            throw Error(where() + "REF '" + f[3] + "' is not a sequence of bases A, C, G, T, N");
        if (f[4].empty()) throw Error(where() + "ALT is empty (use '.' for no alternative)");
        if (f[0] != sequence_name) {
            r.skipped.push_back(where() + "CHROM '" + f[0] + "' is not the sequence '" + sequence_name + "'");
            continue;
        }
        if (pos > seq->length) {
            r.skipped.push_back(where() + "POS " + pos_text + " is past the end of '" + sequence_name + "' (" +
                                std::to_string(seq->length) + " bp)");
            continue;
        }
        const char actual = char(std::toupper(static_cast<unsigned char>(seq->bases[size_t(pos - 1)])));
        if (ref.size() == 1 && ref[0] != actual) {
            r.skipped.push_back(where() + "REF " + ref + " does not match '" + sequence_name + "' at " + pos_text + ", which is " +
                                std::string(1, seq->bases[size_t(pos - 1)]));
            continue;
        }
        std::stringstream alts(f[4]);
        std::string alt;
        while (std::getline(alts, alt, ',')) {
            const std::string a = upper(alt);
            if (a == ".") continue;  // a monomorphic site
            if (ref.size() != 1 || a.size() != 1 || !is_acgt(ref[0]) || !is_acgt(a[0])) {
                r.skipped.push_back(where() + ref + ">" + alt + " is not a single-base substitution (indels and symbolic alleles are skipped)");
                continue;
            }
            if (a == ref) throw Error(where() + "ALT " + alt + " equals REF");
            VariantRecord v;
            v.sequence_id = seq->id;
            v.position = pos - 1;
            v.ref = ref[0];
            v.alt = a[0];
            v.label = f[2] == "." ? "" : f[2];
            variants.push_back(v);
        }
    }
    if (!saw_fileformat) throw Error(path + ": the file is empty");
    if (!saw_columns) throw Error(path + ": no #CHROM column header line (is this a VCF file?)");
    project.add_variants(variants);  // one transaction
    r.imported = variants.size();
    return r;
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

void export_genbank(Project& project, std::ostream& out, int64_t design_id) {
    const auto d = project.design(design_id);
    if (!d) throw Error(project.path() + ": no design with id " + std::to_string(design_id));
    // LOCUS names are one word of at most 16 characters in the strict column layout; longer ones
    // are still read by Biopython and SnapGene when separated by blanks.
    std::string locus;
    for (char c : d->name) locus += std::isspace(static_cast<unsigned char>(c)) ? '_' : c;
    if (locus.empty()) locus = "design_" + std::to_string(d->id);
    static const char* const kMonths[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
    const std::string created = d->created.size() >= 10 ? d->created : utc_now_iso8601();
    const int month = std::atoi(created.substr(5, 2).c_str());
    const std::string date = created.substr(8, 2) + "-" + kMonths[(month >= 1 && month <= 12) ? month - 1 : 0] + "-" + created.substr(0, 4);
    char head[256];
    std::snprintf(head, sizeof head, "LOCUS       %-16s %11zu bp    DNA     linear   SYN %s\n", locus.c_str(), d->bases.size(), date.c_str());
    out << head;
    const auto run = project.run(d->run_id);
    out << "DEFINITION  Carbon Studio design " << d->name << " (run " << d->run_id << ", rank " << d->rank << ", design_logp "
        << num(d->design_logp) << ", ranking_logp " << num(d->ranking_logp) << ").\n";
    out << "ACCESSION   .\nVERSION     .\nKEYWORDS    .\nSOURCE      synthetic DNA construct\n"
        << "  ORGANISM  synthetic DNA construct\n            other sequences; artificial sequences.\n";
    if (run) out << "COMMENT     model " << (run->model_path.empty() ? "?" : run->model_path) << "; seed " << run->seed << ".\n";
    out << "FEATURES             Location/Qualifiers\n";
    out << "     source          1.." << d->bases.size() << "\n                     /mol_type=\"other DNA\"\n"
        << "                     /organism=\"synthetic DNA construct\"\n";
    for (const Region& r : project.regions_of_design(design_id)) {
        if (r.end <= r.start) continue;  // GenBank has no empty features
        const std::string loc = r.end - r.start == 1 ? std::to_string(r.start + 1) : std::to_string(r.start + 1) + ".." + std::to_string(r.end);
        out << "     misc_feature    " << loc << "\n";
        std::string note = region_kind_name(r.kind);
        if (r.kind == RegionKind::Design) note = "design region";
        if (r.kind == RegionKind::Pinned) note = "pinned motif";
        if (!r.label.empty()) note += ": " + r.label;
        for (char& c : note)
            if (c == '"') c = '\'';
        out << "                     /note=\"" << note << "\"\n";
        if (!r.template_iupac.empty()) out << "                     /label=\"" << r.template_iupac.substr(0, 60) << "\"\n";
    }
    out << "ORIGIN\n";
    for (size_t i = 0; i < d->bases.size(); i += 60) {
        char pos[32];
        std::snprintf(pos, sizeof pos, "%9zu", i + 1);
        out << pos;
        for (size_t j = i; j < i + 60 && j < d->bases.size(); j += 10)
        {
            std::string block = d->bases.substr(j, 10);  // GenBank writes ORIGIN in lower case
            for (char& c : block) c = char(std::tolower(static_cast<unsigned char>(c)));
            out << ' ' << block;
        }
        out << '\n';
    }
    out << "//\n";
    if (!out) throw Error("cannot write the GenBank export (disk full?)");
}

}  // namespace carbon::storage
