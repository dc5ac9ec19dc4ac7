// Motif file formats: JASPAR (bracketed rows or the bare .pfm), MEME minimal and TRANSFAC.
// Each reader walks the text line by line, so every message can name FILE:LINE.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "carbon/motifs/motif.h"
#include "carbon/support/common.h"
#include "carbon/support/input_file.h"

namespace carbon {

namespace {

constexpr size_t kMaxMotifFile = size_t(64) << 20;
// The widest matrix read: MEME finds motifs of at most 300 positions (its -maxw limit) and JASPAR's
// are under 40; the score-distribution grid behind every p-value grows with the width, so a wider
// "matrix" (10^5 columns took minutes) is refused with this reason instead.
constexpr size_t kMaxMotifColumns = 300;
// The largest count or nsites read: real matrices hold counts of sites (JASPAR's largest are in the
// tens of thousands); beyond this, sums overflow towards infinity and every probability reads 0.
constexpr double kMaxMotifCount = 1e12;

struct Line {
    std::string_view text;
    size_t number = 0;  // 1-based
};

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

std::vector<Line> split_lines(std::string_view text) {
    std::vector<Line> lines;
    size_t n = 0;
    while (!text.empty()) {
        const size_t eol = text.find('\n');
        lines.push_back({trim(text.substr(0, eol)), ++n});
        if (eol == std::string_view::npos) break;
        text.remove_prefix(eol + 1);
    }
    return lines;
}

std::vector<std::string_view> words(std::string_view s) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
        size_t j = i;
        while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
        if (j > i) out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

class Reader {
public:
    Reader(std::string_view text, std::string origin) : lines_(split_lines(text)), origin_(std::move(origin)) {}

    [[noreturn]] void fail(const Line& l, const std::string& what) const {
        throw Error(origin_ + ":" + std::to_string(l.number) + ": " + what);
    }
    std::string where(const Line& l) const { return origin_ + ":" + std::to_string(l.number); }

    // A matrix entry (or nsites): a finite number >= 0 and at most kMaxMotifCount.
    double number(const Line& l, std::string_view w) const {
        const double v = finite_number(l, w);
        if (v > kMaxMotifCount)
            fail(l, "'" + std::string(w.substr(0, 40)) + "' is larger than any count of sites (at most 1e12): the matrix's sums would "
                    "overflow and every probability read 0");
        return v;
    }

    double finite_number(const Line& l, std::string_view w) const {
        double v = 0;
        const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
        if (ec != std::errc() || end != w.data() + w.size())
            fail(l, "'" + std::string(w.substr(0, 40)) + "' is not a number (a motif matrix holds counts or probabilities)");
        if (!std::isfinite(v) || v < 0) fail(l, "'" + std::string(w.substr(0, 40)) + "': a matrix entry must be a finite number >= 0");
        return v;
    }

    std::vector<double> numbers(const Line& l, std::vector<std::string_view> ws) const {
        std::vector<double> out;
        for (std::string_view w : ws) out.push_back(number(l, w));
        return out;
    }

    const std::vector<Line>& lines() const { return lines_; }

    [[noreturn]] void too_wide(const Line& l, const std::string& id, double width) const {
        char w[32];
        std::snprintf(w, sizeof w, "%.15g", width);
        fail(l, "motif '" + id + "' is " + w + " positions wide; at most " + std::to_string(kMaxMotifColumns) +
                    " are read (MEME's widest; the p-value grid grows with the width)");
    }

    // Every column needs some mass: a column of zeros gives no distribution.
    void check(const Motif& m, const Line& l) const {
        if (m.counts.empty()) fail(l, "motif '" + m.id + "' has no positions");
        if (m.counts.size() > kMaxMotifColumns) too_wide(l, m.id, double(m.counts.size()));
        for (size_t j = 0; j < m.counts.size(); ++j) {
            const BaseWeights& c = m.counts[j];
            if (c[0] + c[1] + c[2] + c[3] <= 0) fail(l, "motif '" + m.id + "': position " + std::to_string(j + 1) + " holds no counts");
        }
    }

private:
    std::vector<Line> lines_;
    std::string origin_;
};

int base_index(std::string_view letter) { return letter.size() == 1 ? motif_base(letter[0]) : -1; }

// JASPAR: optional ">ID NAME" header, then four rows (A, C, G, T; labelled "A [ ... ]" or bare
// numbers in that order).
std::vector<Motif> read_jaspar(const Reader& r, const std::string& stem) {
    std::vector<Motif> out;
    const auto& ls = r.lines();
    size_t i = 0;
    while (i < ls.size()) {
        if (ls[i].text.empty()) { ++i; continue; }
        Motif m;
        const Line& first = ls[i];
        m.source = r.where(first);
        if (first.text.front() == '>') {
            const auto w = words(first.text.substr(1));
            if (w.empty()) r.fail(first, "a JASPAR header '>' without a motif id");
            m.id = std::string(w[0]);
            m.name = w.size() > 1 ? std::string(w[1]) : m.id;
            ++i;
        } else {
            m.id = m.name = stem + (out.empty() ? "" : "_" + std::to_string(out.size() + 1));
        }
        std::array<std::vector<double>, 4> rows;
        std::array<const Line*, 4> row_line{};
        std::array<bool, 4> seen{};
        for (int k = 0; k < 4; ++k) {
            while (i < ls.size() && ls[i].text.empty()) ++i;
            if (i >= ls.size() || ls[i].text.front() == '>')
                r.fail(i < ls.size() ? ls[i] : ls.back(), "motif '" + m.id + "' has " + std::to_string(k) + " rows; JASPAR needs four (A, C, G, T)");
            const Line& l = ls[i++];
            std::string body(l.text);
            std::replace(body.begin(), body.end(), '[', ' ');
            std::replace(body.begin(), body.end(), ']', ' ');
            auto w = words(body);
            int b = k;
            if (!w.empty() && (std::isalpha(static_cast<unsigned char>(w[0][0])) != 0) && w[0].size() == 1) {
                b = base_index(w[0]);
                if (b < 0) r.fail(l, "row '" + std::string(w[0]) + "': the alphabet must be A, C, G, T");
                w.erase(w.begin());
            }
            // Labelled or not, each of A, C, G, T once: an unlabelled row takes its place in that
            // order, so "C [..]" then an unlabelled row would give C twice and A none (found by
            // engine.fuzz_motifs: the lengths check then named a row that was never read).
            if (seen[b])
                r.fail(l, std::string("row ") + "ACGT"[b] + " appears twice in motif '" + m.id +
                              "' (rows are A, C, G, T: label them all, or none)");
            seen[b] = true;
            row_line[b] = &l;
            rows[b] = r.numbers(l, w);
            if (rows[b].empty()) r.fail(l, "a row without numbers in motif '" + m.id + "'");
        }
        const size_t len = rows[0].size();
        for (int b = 1; b < 4; ++b)
            if (rows[b].size() != len)
                r.fail(*row_line[b], "motif '" + m.id + "': rows of different lengths (" + std::to_string(len) + " in row A, " +
                                         std::to_string(rows[b].size()) + " here)");
        for (size_t j = 0; j < len; ++j) m.counts.push_back({rows[0][j], rows[1][j], rows[2][j], rows[3][j]});
        r.check(m, first);
        out.push_back(std::move(m));
    }
    return out;
}

// MEME minimal: "MOTIF ID [NAME]" then "letter-probability matrix: alength= 4 w= W nsites= N"
// and W rows of four probabilities; counts are probabilities x nsites (20 when not given).
std::vector<Motif> read_meme(const Reader& r) {
    std::vector<Motif> out;
    const auto& ls = r.lines();
    for (size_t i = 0; i < ls.size(); ++i) {
        const Line& l = ls[i];
        if (l.text.starts_with("ALPHABET")) {
            std::string_view a = trim(l.text.substr(l.text.find('=') == std::string_view::npos ? 8 : l.text.find('=') + 1));
            if (a != "ACGT") r.fail(l, "alphabet '" + std::string(a) + "': only DNA motifs (ACGT) can be scanned");
        }
        if (!l.text.starts_with("MOTIF")) continue;
        const auto w = words(l.text);
        if (w.size() < 2) r.fail(l, "a MOTIF line without a motif id");
        Motif m;
        m.id = std::string(w[1]);
        m.name = w.size() > 2 ? std::string(w[2]) : m.id;
        m.source = r.where(l);
        size_t j = i + 1;
        while (j < ls.size() && !ls[j].text.starts_with("letter-probability matrix") && !ls[j].text.starts_with("MOTIF")) ++j;
        if (j >= ls.size() || !ls[j].text.starts_with("letter-probability matrix"))
            r.fail(l, "motif '" + m.id + "' has no 'letter-probability matrix:' line");
        const Line& head = ls[j];
        const auto hw = words(head.text.substr(head.text.find(':') + 1));
        long width = -1;
        double nsites = 20;
        for (size_t k = 0; k + 1 < hw.size(); ++k) {
            if (hw[k] == "alength=" && hw[k + 1] != "4") r.fail(head, "alength= " + std::string(hw[k + 1]) + ": a DNA motif has 4 letters");
            if (hw[k] == "w=") {
                const double declared = r.finite_number(head, hw[k + 1]);
                if (declared > double(kMaxMotifColumns)) r.too_wide(head, m.id, declared);
                if (declared != std::floor(declared)) r.fail(head, "w= " + std::string(hw[k + 1]) + " is not a whole number of positions");
                width = long(declared);
            }
            if (hw[k] == "nsites=") nsites = r.number(head, hw[k + 1]);
        }
        if (nsites <= 0) nsites = 20;
        for (j = j + 1; j < ls.size(); ++j) {
            if (ls[j].text.empty()) {
                if (width < 0 || long(m.counts.size()) >= width) break;
                continue;
            }
            const char c = ls[j].text.front();
            if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+')) break;
            const auto row = r.numbers(ls[j], words(ls[j].text));
            if (row.size() != 4) r.fail(ls[j], "a row of " + std::to_string(row.size()) + " numbers; a DNA motif row has 4");
            m.counts.push_back({row[0] * nsites, row[1] * nsites, row[2] * nsites, row[3] * nsites});
            if (width >= 0 && long(m.counts.size()) == width) { ++j; break; }
        }
        if (width >= 0 && long(m.counts.size()) != width)
            r.fail(head, "motif '" + m.id + "' declares w= " + std::to_string(width) + " but has " + std::to_string(m.counts.size()) + " rows");
        r.check(m, l);
        out.push_back(std::move(m));
        i = j - 1;
    }
    return out;
}

// TRANSFAC: two-letter codes; AC (accession), ID, NA (name), P0/PO (the column letters), numbered
// rows, "//" ends a motif.
std::vector<Motif> read_transfac(const Reader& r) {
    std::vector<Motif> out;
    Motif m;
    std::array<int, 4> order{-1, -1, -1, -1};
    bool in_matrix = false;
    const Line* start = nullptr;
    auto finish = [&] {
        if (!start) return;
        if (m.counts.empty() && m.id.empty() && m.name.empty()) {  // a file header block (VV ... XX //)
            start = nullptr;
            in_matrix = false;
            return;
        }
        if (m.id.empty()) m.id = m.name.empty() ? "motif_" + std::to_string(out.size() + 1) : m.name;
        if (m.name.empty()) m.name = m.id;
        r.check(m, *start);
        out.push_back(std::move(m));
        m = Motif{};
        in_matrix = false;
        start = nullptr;
    };
    for (const Line& l : r.lines()) {
        if (l.text.empty()) continue;
        if (l.text.starts_with("//")) { finish(); continue; }
        if (!start) { start = &l; m.source = r.where(l); }
        const auto w = words(l.text);
        const std::string_view code = w[0];
        if (code == "AC" && w.size() > 1) m.id = std::string(w[1]);
        else if ((code == "ID" || code == "NA") && w.size() > 1 && (code == "NA" || m.name.empty())) m.name = std::string(w[1]);
        else if (code == "P0" || code == "PO") {
            if (w.size() != 5) r.fail(l, "the matrix header must name four columns (P0 A C G T)");
            std::array<bool, 4> seen{};
            for (int k = 0; k < 4; ++k) {
                const int b = base_index(w[size_t(k) + 1]);
                if (b < 0 || seen[b]) r.fail(l, "the matrix header must name A, C, G and T once each");
                seen[b] = true;
                order[k] = b;
            }
            in_matrix = true;
        } else if (in_matrix && std::isdigit(static_cast<unsigned char>(code[0]))) {
            if (w.size() < 5) r.fail(l, "a matrix row needs its position and four numbers");
            BaseWeights c{};
            for (int k = 0; k < 4; ++k) c[size_t(order[k])] = r.number(l, w[size_t(k) + 1]);
            m.counts.push_back(c);
        } else if (in_matrix) {
            in_matrix = false;  // XX or any other code ends the matrix rows
        }
    }
    if (start) r.fail(r.lines().back(), "the last motif ('" + (m.id.empty() ? m.name : m.id) + "') is not closed by '//'");
    return out;
}

}  // namespace

std::vector<Motif> parse_motifs(std::string_view text, const std::string& origin) {
    if (text.find('\0') != std::string_view::npos) throw Error(origin + ": holds NUL bytes: not a motif file");
    const Reader r(text, origin);
    bool meme = false, transfac = false;
    for (const Line& l : r.lines()) {
        if (l.text.starts_with("MEME version")) meme = true;
        if (l.text.starts_with("P0 ") || l.text.starts_with("PO ") || l.text.starts_with("P0\t") || l.text.starts_with("PO\t"))
            transfac = true;
    }
    std::string stem = std::filesystem::path(origin).stem().string();
    std::vector<Motif> out = meme ? read_meme(r) : transfac ? read_transfac(r) : read_jaspar(r, stem);
    if (out.empty()) throw Error(origin + ": no motif found (JASPAR, MEME minimal and TRANSFAC files are read)");
    return out;
}

std::vector<Motif> read_motifs(const std::filesystem::path& path) {
    return parse_motifs(read_regular_file(path, "motif file", kMaxMotifFile), path.string());
}

}  // namespace carbon
