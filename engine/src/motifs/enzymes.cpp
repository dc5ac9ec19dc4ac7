// The restriction enzyme table and site search (enzymes.h).
#include "carbon/motifs/enzymes.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

#include "carbon/fns/fns.h"
#include "carbon/support/common.h"
#include "enzymes_table.h"  // generated from resources/enzymes.tsv: kEnzymesTsv

namespace carbon {

namespace {

constexpr std::string_view kIupac = "ACGTRYSWKMBDHVN";

// The bases an IUPAC letter stands for, as a mask over A C G T (1, 2, 4, 8).
int iupac_bases(char c) {
    switch (c) {
        case 'A': return 1;
        case 'C': return 2;
        case 'G': return 4;
        case 'T': return 8;
        case 'R': return 1 | 4;
        case 'Y': return 2 | 8;
        case 'S': return 2 | 4;
        case 'W': return 1 | 8;
        case 'K': return 4 | 8;
        case 'M': return 1 | 2;
        case 'B': return 2 | 4 | 8;
        case 'D': return 1 | 4 | 8;
        case 'H': return 1 | 2 | 8;
        case 'V': return 1 | 2 | 4;
        case 'N': return 15;
        default: return 0;
    }
}

// Whether `site` matches at data[q..]: N (Biopython's '.') matches any character, the other
// letters the bases they stand for (in either case).
bool matches(std::string_view site, std::string_view data, size_t q) {
    for (size_t i = 0; i < site.size(); ++i) {
        const char s = site[i];
        if (s == 'N') continue;
        const char d = char(std::toupper(static_cast<unsigned char>(data[q + i])));
        const int b = (d == 'A' || d == 'C' || d == 'G' || d == 'T') ? iupac_bases(d) : 0;
        if (!(b & iupac_bases(s))) return false;
    }
    return true;
}

std::vector<std::string> split_tabs(std::string_view line) {
    std::vector<std::string> out;
    size_t at = 0;
    while (true) {
        const size_t tab = line.find('\t', at);
        out.emplace_back(line.substr(at, tab == std::string_view::npos ? std::string_view::npos : tab - at));
        if (tab == std::string_view::npos) return out;
        at = tab + 1;
    }
}

}  // namespace

EnzymeTable EnzymeTable::parse(std::string_view text, const std::string& source) {
    EnzymeTable t;
    t.source_ = source;
    static const char* kColumns[] = {"name", "site", "fst5", "fst3", "scd5", "scd3", "ovhg", "suppliers"};
    bool header = false;
    size_t line_no = 0, at = 0;
    while (at < text.size()) {
        const size_t nl = text.find('\n', at);
        std::string_view line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
        at = nl == std::string_view::npos ? text.size() : nl + 1;
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty() || line.front() == '#') continue;
        const std::string where = source + ":" + std::to_string(line_no);
        const auto cols = split_tabs(line);
        if (!header) {
            for (size_t i = 0; i < 8; ++i)
                if (cols.size() != 8 || cols[i] != kColumns[i])
                    throw Error(where + ": the header must be name, site, fst5, fst3, scd5, scd3, ovhg, suppliers (tab-separated)");
            header = true;
            continue;
        }
        if (cols.size() != 8)
            throw Error(where + ": " + std::to_string(cols.size()) + " columns where the table has 8");
        Enzyme e;
        e.name = cols[0];
        if (e.name.empty() || !std::all_of(e.name.begin(), e.name.end(),
                                           [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }))
            throw Error(where + ": name '" + e.name + "' is not letters, digits, '_' and '-' (as REBASE spells names)");
        e.site = cols[1];
        if (e.site.empty() || e.site.find_first_not_of(kIupac) != std::string::npos)
            throw Error(where + ": " + e.name + "'s site '" + e.site + "' is not upper-case IUPAC letters (A C G T R Y S W K M B D H V N)");
        auto number = [&](size_t col, bool optional) -> std::optional<int> {
            const std::string& s = cols[col];
            if (optional && s == ".") return std::nullopt;
            int v = 0;
            const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
            if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || v < -1000 || v > 1000)
                throw Error(where + ": " + e.name + "'s " + kColumns[col] + " '" + s + "' is not a whole number from -1000 to 1000" +
                            (optional ? " or '.'" : ""));
            return v;
        };
        e.fst5 = *number(2, false);
        e.fst3 = *number(3, false);
        e.scd5 = number(4, true);
        e.scd3 = number(5, true);
        if (e.scd5.has_value() != e.scd3.has_value())
            throw Error(where + ": " + e.name + " has a second cut on one strand only (scd5 and scd3 are both numbers or both '.')");
        e.ovhg = *number(6, false);
        e.suppliers = cols[7];
        e.palindromic = reverse_complement(e.site) == e.site;
        t.enzymes_.push_back(std::move(e));
    }
    if (!header) throw Error(source + ": no header line (name, site, fst5, fst3, scd5, scd3, ovhg, suppliers)");
    std::sort(t.enzymes_.begin(), t.enzymes_.end(), [](const Enzyme& a, const Enzyme& b) { return a.name < b.name; });
    for (size_t i = 1; i < t.enzymes_.size(); ++i)
        if (t.enzymes_[i].name == t.enzymes_[i - 1].name) throw Error(source + ": enzyme " + t.enzymes_[i].name + " appears twice");
    return t;
}

const EnzymeTable& EnzymeTable::builtin() {
    static const EnzymeTable t = parse(kEnzymesTsv, "resources/enzymes.tsv (compiled in)");
    return t;
}

const Enzyme* EnzymeTable::find(std::string_view name) const {
    const auto it = std::lower_bound(enzymes_.begin(), enzymes_.end(), name, [](const Enzyme& e, std::string_view n) { return e.name < n; });
    return it != enzymes_.end() && it->name == name ? &*it : nullptr;
}

std::string EnzymeTable::site_or_motif(const std::string& item) const {
    if (const Enzyme* e = find(item)) return e->site;
    std::string upper = item;
    for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
    if (!upper.empty() && upper.find_first_not_of(kIupac) == std::string::npos) return upper;
    std::string near;  // enzymes whose names differ from the item only in case
    for (const Enzyme& e : enzymes_) {
        std::string n = e.name;
        for (char& c : n) c = char(std::toupper(static_cast<unsigned char>(c)));
        if (n == upper) near += (near.empty() ? "" : ", ") + e.name;
    }
    // Letters only, all upper case, and no enzyme so spelled: meant as a motif; say which letter
    // is not IUPAC.
    if (near.empty() && !item.empty() &&
        std::all_of(item.begin(), item.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); })) {
        const size_t bad = upper.find_first_not_of(kIupac);
        throw Error("'" + item + "': '" + std::string(1, item[bad]) + "' at position " + std::to_string(bad + 1) +
                    " is not an IUPAC nucleotide code (A C G T R Y S W K M B D H V N), and '" + item + "' is not one of the " +
                    std::to_string(enzymes_.size()) + " enzymes of " + source_);
    }
    throw Error("'" + item + "' is neither a DNA motif (IUPAC letters: A C G T R Y S W K M B D H V N) nor one of the " +
                std::to_string(enzymes_.size()) + " enzymes of " + source_ +
                (near.empty() ? std::string(" (names as REBASE spells them, e.g. EcoRI, BsaI)") : "; did you mean " + near + "?"));
}

std::vector<EnzymeSite> enzyme_sites(const Enzyme& e, std::string_view sequence) {
    std::vector<EnzymeSite> out;
    const size_t n = e.site.size();
    if (sequence.size() < n) return out;
    const std::string rc = reverse_complement(e.site);
    for (size_t q = 0; q + n <= sequence.size(); ++q) {
        if (matches(e.site, sequence, q)) out.push_back({q, false});
        if (!e.palindromic && matches(rc, sequence, q)) out.push_back({q, true});
    }
    return out;
}

std::vector<int64_t> enzyme_cuts(const Enzyme& e, std::string_view sequence) {
    // Bio.Restriction reads the sequence with a space in front (1-based positions); a site's N,
    // its '.', can match that space.
    std::string data = " ";
    data += sequence;
    const size_t n = e.site.size();
    const int64_t length = int64_t(sequence.size());
    std::vector<int64_t> cuts;
    if (data.size() < n) return cuts;
    const std::string rc = reverse_complement(e.site);
    for (size_t q = 0; q + n <= data.size(); ++q) {
        const int64_t s = int64_t(q);
        if (matches(e.site, data, q)) {
            cuts.push_back(s + e.fst5);
            if (e.scd5) cuts.push_back(s + *e.scd5);
        } else if (!e.palindromic && matches(rc, data, q)) {
            cuts.push_back(s - e.fst3);
            if (e.scd3) cuts.push_back(s - *e.scd3);
        }
    }
    // A linear molecule: both strands' cuts inside it (Bio.Restriction's _drop).
    std::vector<int64_t> kept;
    for (int64_t c : cuts)
        if (1 < c && c <= length && 1 < c - e.ovhg && c - e.ovhg <= length) kept.push_back(c);
    std::sort(kept.begin(), kept.end());
    return kept;
}

}  // namespace carbon
