// The VCF panel reader (see carbon/storage/vcf.h): line checks by LineReader, columns and
// alleles here.
#include <cctype>
#include <sstream>

#include "carbon/common.h"
#include "carbon/storage/vcf.h"
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

VcfPanel read_panel(ByteSource& src, const std::string& path, const std::string& chrom, std::string_view bases) {
    LineReader lines(src, path, "VCF", kVcfMaxLine);
    VcfPanel r;
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
            throw Error(where() + "POS '" + pos_text.substr(0, 40) + "' is not a positive whole number");
        const long long pos = std::stoll(pos_text);
        if (pos < 1) throw Error(where() + "POS must be 1 or more (VCF positions are 1-based), not " + pos_text);
        const std::string ref = upper(f[3]);
        if (ref.empty() || ref.find_first_not_of("ACGTN") != std::string::npos)
            throw Error(where() + "REF '" + f[3].substr(0, 40) + "' is not a sequence of bases A, C, G, T, N");
        if (f[4].empty()) throw Error(where() + "ALT is empty (use '.' for no alternative)");
        if (f[0] != chrom) {
            r.skipped.push_back(where() + "CHROM '" + f[0].substr(0, 80) + "' is not the sequence '" + chrom + "'");
            continue;
        }
        if (pos > static_cast<long long>(bases.size())) {
            r.skipped.push_back(where() + "POS " + pos_text + " is past the end of '" + chrom + "' (" + std::to_string(bases.size()) + " bp)");
            continue;
        }
        const char stored = bases[size_t(pos - 1)];
        const char actual = char(std::toupper(static_cast<unsigned char>(stored)));
        if (ref.size() == 1 && ref[0] != actual) {
            r.skipped.push_back(where() + "REF " + ref + " does not match '" + chrom + "' at " + pos_text + ", which is " + std::string(1, stored));
            continue;
        }
        std::stringstream alts(f[4]);
        std::string alt;
        while (std::getline(alts, alt, ',')) {
            const std::string a = upper(alt);
            if (a == ".") continue;  // a monomorphic site
            if (ref.size() != 1 || a.size() != 1 || !is_acgt(ref[0]) || !is_acgt(a[0])) {
                r.skipped.push_back(where() + ref.substr(0, 40) + ">" + alt.substr(0, 40) +
                                    " is not a single-base substitution (indels and symbolic alleles are skipped)");
                continue;
            }
            if (a == ref) throw Error(where() + "ALT " + alt + " equals REF");
            VcfSnv v;
            v.position = pos - 1;
            v.ref = ref[0];
            v.alt = a[0];
            v.label = f[2] == "." ? "" : f[2];
            r.snvs.push_back(std::move(v));
        }
    }
    if (!saw_fileformat) throw Error(path + ": the file is empty");
    if (!saw_columns) throw Error(path + ": no #CHROM column header line (is this a VCF file?)");
    return r;
}

}  // namespace

VcfPanel read_vcf_panel(const std::string& path, const std::string& chrom, std::string_view bases) {
    FileSource src(path);
    return read_panel(src, path, chrom, bases);
}

VcfPanel read_vcf_panel_text(std::string_view text, const std::string& display_name, const std::string& chrom, std::string_view bases) {
    MemorySource src(text);
    return read_panel(src, display_name, chrom, bases);
}

}  // namespace carbon::storage
