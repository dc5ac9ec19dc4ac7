// The measurement-table reader (see carbon/storage/measurements.h): the file read whole (bounded),
// split into lines and then into fields (quotes honoured), the header classified into name,
// sequence, condition and standard-error columns, each row checked cell by cell.
#include "carbon/storage/measurements.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <unordered_map>

#include "carbon/support/common.h"
#include "carbon/support/visible_text.h"

namespace carbon::storage {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return out;
}

bool ends_with_ci(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && lower(s.substr(s.size() - suffix.size())) == suffix;
}

// FNV-1a 64 exactly as file_hash in storage/runs/src/run_records.cpp computes it (its offset basis
// included), so that a table's hash compares with the hashes the project already stores.
std::string fnv1a64(std::string_view bytes) {
    uint64_t h = 1469598103934665603ull;
    for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    char out[32];
    std::snprintf(out, sizeof out, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
    return out;
}

// The delimiter a file name promises, or 0 when the header has to decide.
char delimiter_of_name(const std::string& name) {
    const std::string ext = lower(std::filesystem::path(name).extension().string());
    if (ext == ".csv") return ',';
    if (ext == ".tsv" || ext == ".txt" || ext == ".tab") return '\t';
    return 0;
}

std::string shown(std::string_view s) {
    return in_quotes(visible_text(s, 40));
}

std::string count_text(size_t n) {
    std::string s = std::to_string(n);
    for (size_t i = s.size(); i > 3; i -= 3) s.insert(i - 3, ",");
    return s;
}

// How a line failed to split into fields.
enum class SplitFault { None, OpenQuote, AfterQuote };
struct SplitResult {
    size_t fields = 0;
    SplitFault fault = SplitFault::None;
    size_t fault_field = 0;  // 0-based
};

// Splits `line` at `delim`, honouring double quotes; keeps at most `keep` fields in `out` (blanks
// trimmed, quotes removed) and counts the rest, so that a ragged or endless row costs no memory.
SplitResult split_fields(std::string_view line, char delim, size_t keep, std::vector<std::string>& out) {
    out.clear();
    const bool csv = delim == ',';
    auto blank = [&](char c) { return c == ' ' || (csv && c == '\t'); };
    SplitResult r;
    const size_t n = line.size();
    size_t i = 0;
    for (;;) {
        size_t a = i;
        while (a < n && blank(line[a])) ++a;
        std::string field;
        if (a < n && line[a] == '"') {
            size_t j = a + 1;
            for (;;) {
                if (j >= n) return {r.fields, SplitFault::OpenQuote, r.fields};
                if (line[j] == '"') {
                    if (j + 1 < n && line[j + 1] == '"') {
                        if (r.fields < keep) field += '"';
                        j += 2;
                        continue;
                    }
                    ++j;
                    break;
                }
                if (r.fields < keep) field += line[j];
                ++j;
            }
            while (j < n && blank(line[j])) ++j;
            if (j < n && line[j] != delim) return {r.fields, SplitFault::AfterQuote, r.fields};
            // Blanks inside the quotes go too: a name or number never means them.
            size_t f0 = 0, f1 = field.size();
            while (f0 < f1 && blank(field[f0])) ++f0;
            while (f1 > f0 && blank(field[f1 - 1])) --f1;
            field = field.substr(f0, f1 - f0);
            i = j;
        } else {
            size_t b = line.find(delim, a);
            if (b == std::string_view::npos) b = n;
            size_t e = b;
            while (e > a && blank(line[e - 1])) --e;
            if (r.fields < keep) field.assign(line.substr(a, e - a));
            i = b;
        }
        if (r.fields < keep) out.push_back(std::move(field));
        ++r.fields;
        if (i >= n) return r;
        ++i;  // the delimiter
    }
}

// The role of each header column.
struct Layout {
    int name_col = -1, seq_col = -1;
    std::vector<size_t> cond_col;  // per condition
    std::vector<int> se_col;       // per condition, -1 when none
    std::vector<std::string> header;
};

class Parser {
public:
    Parser(std::string_view text, std::string path, const MeasurementLimits& limits)
        : text_(text), path_(std::move(path)), limits_(limits) {}

    MeasurementTable run();

private:
    [[noreturn]] void fail(size_t line, const std::string& what) const {
        throw Error(path_ + ":" + std::to_string(line) + ": " + what);
    }
    std::string column(size_t k) const {
        return k < layout_.header.size() ? "column " + shown(layout_.header[k]) : "field " + std::to_string(k + 1);
    }
    bool next_line(std::string_view& line);
    SplitResult split_or_fail(std::string_view line, size_t keep, bool header);
    void read_header(std::string_view line, char delim_from_name);
    void read_row(std::string_view line, MeasurementRow& row);
    std::optional<double> read_value(const std::string& cell, size_t col, bool is_se) const;
    void check_name(const std::string& name, size_t line, const std::string& what) const;
    void check_unique();

    std::string_view text_;
    std::string path_;
    const MeasurementLimits& limits_;
    size_t pos_ = 0, line_ = 0;
    char delim_ = '\t';
    Layout layout_;
    std::vector<std::string> fields_;
    MeasurementTable table_;
};

// The next line that is neither blank nor a comment, without its line break; false at the end.
bool Parser::next_line(std::string_view& line) {
    while (pos_ < text_.size()) {
        ++line_;
        const size_t nl = text_.find('\n', pos_);
        const size_t end = nl == std::string_view::npos ? text_.size() : nl;
        line = text_.substr(pos_, end - pos_);
        pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
        if (line.size() > limits_.max_line_bytes)
            fail(line_, "the line is longer than " + count_text(limits_.max_line_bytes) + " bytes (is this a table?)");
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const size_t first = line.find_first_not_of(" \t");
        if (first == std::string_view::npos || line[first] == '#') continue;
        if (line.find('\r') != std::string_view::npos)
            fail(line_,
                 "a carriage return inside the line (classic Mac line breaks, or a line break inside a quoted field?): "
                 "save the table with LF or CRLF line breaks");
        return true;
    }
    return false;
}

SplitResult Parser::split_or_fail(std::string_view line, size_t keep, bool header) {
    const SplitResult r = split_fields(line, delim_, keep, fields_);
    const std::string col =
        header ? "field " + std::to_string(r.fault_field + 1) + " of the header" : column(r.fault_field);
    if (r.fault == SplitFault::OpenQuote) {
        if (text_.find('"', pos_) != std::string_view::npos)
            fail(line_,
                 col +
                     ": a quoted field runs past the end of the line; line breaks inside a field are not supported "
                     "(put the field on one line)");
        fail(line_,
             col + ": a quote is opened and never closed (a quote inside a quoted field is written twice: \"\")");
    }
    if (r.fault == SplitFault::AfterQuote)
        fail(line_, col + ": text after the closing quote (a quote inside a quoted field is written twice: \"\")");
    return r;
}

void Parser::check_name(const std::string& name, size_t line, const std::string& what) const {
    if (name.size() > limits_.max_name_bytes)
        fail(line, what + " is longer than " + std::to_string(limits_.max_name_bytes) + " bytes: " + shown(name));
    if (first_control_char(name) != std::string::npos)
        fail(line, what + " " + shown(name) + " holds a control character; remove it");
    if (!is_utf8(name)) fail(line, what + " " + shown(name) + " is not UTF-8 text: save the table as UTF-8");
}

void Parser::read_header(std::string_view line, char delim_from_name) {
    delim_ = delim_from_name ? delim_from_name : line.find('\t') != std::string_view::npos ? '\t' : ',';
    const SplitResult r = split_or_fail(line, limits_.max_columns + 1, true);
    if (r.fields > limits_.max_columns)
        fail(line_, "the header has " + count_text(r.fields) + " columns; a measurement table may have at most " +
                        count_text(limits_.max_columns) + " (is the delimiter right?)");
    layout_.header = fields_;
    const auto& h = layout_.header;
    std::unordered_map<std::string, size_t> seen;  // lower-cased name -> column
    std::vector<size_t> se_like;
    for (size_t k = 0; k < h.size(); ++k) {
        if (h[k].empty())
            fail(line_, "column " + std::to_string(k + 1) + " of the header has no name: every column needs one");
        check_name(h[k], line_, "column " + std::to_string(k + 1) + " of the header");
        const std::string low = lower(h[k]);
        if (auto [it, fresh] = seen.emplace(low, k); !fresh)
            fail(line_, "columns " + std::to_string(it->second + 1) + " and " + std::to_string(k + 1) +
                            " are both named " + shown(h[k]) + " (names are compared ignoring case): rename one");
        const bool is_name = low == "name" || low == "id", is_seq = low == "sequence" || low == "seq";
        int& role = is_name ? layout_.name_col : layout_.seq_col;
        if (is_name || is_seq) {
            if (role >= 0)
                fail(line_, "columns " + shown(h[size_t(role)]) + " and " + shown(h[k]) + " both hold the " +
                                (is_name ? "name" : "sequence") + " of each row: keep one");
            role = int(k);
        } else if (ends_with_ci(h[k], "_se") || ends_with_ci(h[k], "_sem") || ends_with_ci(h[k], "_stderr")) {
            se_like.push_back(k);
        } else {
            layout_.cond_col.push_back(k);
        }
    }
    layout_.se_col.assign(layout_.cond_col.size(), -1);
    for (const size_t k : se_like) {
        const std::string& col = h[k];
        const std::string cond = col.substr(0, col.rfind('_'));
        size_t c = 0;
        while (c < layout_.cond_col.size() && h[layout_.cond_col[c]] != cond) ++c;
        if (c == layout_.cond_col.size())
            fail(line_, "column " + shown(col) + " is a standard error of " + shown(cond) +
                            ", which the table does not have: rename the column or add " + shown(cond));
        if (layout_.se_col[c] >= 0)
            fail(line_, "columns " + shown(h[size_t(layout_.se_col[c])]) + " and " + shown(col) +
                            " are both standard errors of " + shown(cond) + ": keep one");
        layout_.se_col[c] = int(k);
    }
    if (layout_.name_col < 0 && layout_.seq_col < 0)
        fail(line_,
             "the header has neither a 'name' (or 'id') column nor a 'sequence' (or 'seq') column: "
             "add one so that each row says what was measured");
    if (layout_.cond_col.empty())
        fail(line_, "the header has no condition column: add a column of measurements (its name is the condition)");
    table_.delimiter = delim_;
    for (size_t c = 0; c < layout_.cond_col.size(); ++c) {
        table_.conditions.push_back(h[layout_.cond_col[c]]);
        table_.has_se.push_back(layout_.se_col[c] >= 0);
    }
}

std::optional<double> Parser::read_value(const std::string& cell, size_t col, bool is_se) const {
    const std::string low = lower(cell);
    if (low.empty() || low == "na" || low == "n/a") return std::nullopt;
    const std::string where = column(col) + ": ";
    std::string_view s = cell;
    if (s.size() > 1 && s[0] == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);  // from_chars takes no '+'
    const std::string word = lower(s[0] == '-' || s[0] == '+' ? s.substr(1) : s);
    if (word.rfind("nan", 0) == 0)
        fail(line_, where + "NaN is not a measurement: leave the cell empty or write NA for a missing value");
    if (word == "inf" || word == "infinity")
        fail(line_, where + shown(cell) + " is not a measurement: write a finite number, or NA for a missing value");
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
    if (ec == std::errc::result_out_of_range && end == s.data() + s.size())
        fail(line_, where + shown(cell) + " is out of the range of a double (about 1e-308 to 1e308 in size)");
    if (ec != std::errc() || end != s.data() + s.size())
        fail(line_, where + shown(cell) +
                        " is not a number: write a decimal such as 1.25 or -3e-2, or NA for a missing value");
    if (is_se && v < 0) fail(line_, where + "a standard error cannot be negative (" + shown(cell) + ")");
    return v;
}

void Parser::read_row(std::string_view line, MeasurementRow& row) {
    const size_t width = layout_.header.size();
    const SplitResult r = split_or_fail(line, width, false);
    if (r.fields != width)
        fail(line_, "line " + std::to_string(line_) + " has " + std::to_string(r.fields) + " fields, the header " +
                        std::to_string(width) + ": every row needs one field per column" +
                        (delim_ == ',' ? " (a comma inside a value must be quoted: \"1,5\")" : std::string()));
    row.line = line_;
    if (layout_.name_col >= 0) {
        row.name = std::move(fields_[size_t(layout_.name_col)]);
        if (row.name.empty())
            fail(line_, column(size_t(layout_.name_col)) + ": the name is empty: every row needs one");
        check_name(row.name, line_, column(size_t(layout_.name_col)) + ": the name");
    }
    if (layout_.seq_col >= 0) {
        std::string& s = fields_[size_t(layout_.seq_col)];
        // A named row may leave its sequence to a FASTA file (resolve_measurement_sequences).
        if (s.empty() && layout_.name_col < 0)
            fail(line_, column(size_t(layout_.seq_col)) + ": the sequence is empty: every row needs one");
        for (size_t i = 0; i < s.size(); ++i) {
            char& c = s[i];
            if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
            if (c != 'A' && c != 'C' && c != 'G' && c != 'T' && c != 'N')
                fail(line_, column(size_t(layout_.seq_col)) + ": " + in_quotes(visible_text(std::string_view(&c, 1))) +
                                " at base " + std::to_string(i + 1) + " is not A, C, G, T or N");
        }
        row.sequence = std::move(s);
    }
    const size_t nc = layout_.cond_col.size();
    row.values.assign(nc, std::nullopt);
    row.se.assign(nc, std::nullopt);
    for (size_t c = 0; c < nc; ++c) {
        row.values[c] = read_value(fields_[layout_.cond_col[c]], layout_.cond_col[c], false);
        if (layout_.se_col[c] < 0) continue;
        const size_t k = size_t(layout_.se_col[c]);
        row.se[c] = read_value(fields_[k], k, true);
        if (row.se[c] && !row.values[c])
            fail(line_, column(k) + " holds " + shown(fields_[k]) + " but " + column(layout_.cond_col[c]) +
                            " is missing: a standard error needs its measurement (leave both empty)");
    }
}

// Names must be unique; so must sequences when they are what identifies a row.
void Parser::check_unique() {
    const bool by_name = layout_.name_col >= 0;
    std::unordered_map<std::string_view, size_t> seen;  // views into rows, which no longer move
    seen.reserve(table_.rows.size());
    for (const MeasurementRow& r : table_.rows) {
        const std::string& key = by_name ? r.name : r.sequence;
        const auto [it, fresh] = seen.emplace(key, r.line);
        if (fresh) continue;
        const std::string lines = " on lines " + std::to_string(it->second) + " and " + std::to_string(r.line);
        fail(r.line, (by_name ? "name " + shown(key) + lines
                              : "the same sequence" + lines + " (" + std::to_string(key.size()) +
                                    " bases) and no name column") +
                         ": average replicate measurements into one row first");
    }
}

MeasurementTable Parser::run() {
    table_.path = path_;
    table_.hash = fnv1a64(text_);
    if (text_.size() >= 2 && static_cast<unsigned char>(text_[0]) == 0x1f &&
        static_cast<unsigned char>(text_[1]) == 0x8b)
        fail(1, "gzip-compressed: decompress the table first");
    if (text_.size() >= 2 && ((text_[0] == '\xFF' && text_[1] == '\xFE') || (text_[0] == '\xFE' && text_[1] == '\xFF')))
        fail(1, "UTF-16 text (\"Unicode text\" in spreadsheets): save the table as UTF-8 or CSV");
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // a UTF-8 byte order mark, as spreadsheets write it
    std::string_view line;
    if (!next_line(line)) fail(std::max<size_t>(line_, 1), "no header line: the table is empty or holds only comments");
    const size_t header_line = line_;
    read_header(line, delimiter_of_name(path_));
    while (next_line(line)) {
        if (table_.rows.size() == limits_.max_rows)
            fail(line_, "more than " + count_text(limits_.max_rows) + " rows: split the table");
        read_row(line, table_.rows.emplace_back());
    }
    if (table_.rows.empty()) fail(header_line, "no measurements: the header is not followed by any row");
    check_unique();
    return std::move(table_);
}

}  // namespace

MeasurementTable parse_measurement_table(std::string_view text, std::string display_name,
                                         const MeasurementLimits& limits) {
    return Parser(text, std::move(display_name), limits).run();
}

MeasurementTable read_measurement_table(const std::string& path, const MeasurementLimits& limits) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw Error(path + ": cannot open the measurement table: no such file");
    if (fs::is_directory(st)) throw Error(path + ": is a folder, not a measurement table");
    if (!fs::is_regular_file(st)) throw Error(path + ": not a regular file (a pipe or device cannot be imported)");
    const uintmax_t size = fs::file_size(path, ec);
    if (ec) throw Error(path + ": cannot read the size of the measurement table: " + ec.message());
    if (size > limits.max_file_bytes) {
        char mib[64];
        std::snprintf(mib, sizeof mib, "%.1f MiB", double(size) / double(1 << 20));
        throw Error(path + ": the measurement table is " + mib + " (" + count_text(size_t(size)) + " bytes); at most " +
                    count_text(limits.max_file_bytes) + " bytes are read: split it");
    }
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error(path + ": cannot open the measurement table");
    std::string text(size_t(size), '\0');
    f.read(text.data(), std::streamsize(size));
    if (size_t(f.gcount()) != size || f.peek() != std::char_traits<char>::eof())
        throw Error(path + ": the measurement table changed while it was read; try again");
    return parse_measurement_table(text, path, limits);
}

void resolve_measurement_sequences(MeasurementTable& t,
                                   const std::function<std::optional<std::string>(const std::string&)>& lookup,
                                   const std::string& source_description) {
    std::vector<std::pair<size_t, std::string>> found;  // row, sequence: applied when every one is known
    for (size_t i = 0; i < t.rows.size(); ++i) {
        const MeasurementRow& r = t.rows[i];
        if (!r.sequence.empty()) continue;
        auto where = [&] { return t.path + ":" + std::to_string(r.line) + ": "; };
        std::optional<std::string> s = lookup(r.name);
        if (!s) throw Error(where() + "no sequence named " + shown(r.name) + " in " + source_description);
        if (s->empty())
            throw Error(where() + "the sequence named " + shown(r.name) + " in " + source_description + " is empty");
        for (size_t k = 0; k < s->size(); ++k) {
            char& c = (*s)[k];
            if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
            if (c != 'A' && c != 'C' && c != 'G' && c != 'T' && c != 'N')
                throw Error(where() + "the sequence named " + shown(r.name) + " in " + source_description + " has " +
                            in_quotes(visible_text(std::string_view(&c, 1))) + " at base " + std::to_string(k + 1) +
                            ", which is not A, C, G, T or N");
        }
        found.emplace_back(i, std::move(*s));
    }
    for (auto& [i, s] : found) t.rows[i].sequence = std::move(s);
}

}  // namespace carbon::storage
