// INSDC feature locations (see flatfile.h): a recursive-descent parser over the grammar of the
// INSDC Feature Table Definition, section 3.4:
//   location := complement(location) | join(location, ...) | order(location, ...)
//             | [ACCESSION[.VERSION]:]range
//   range    := [<]n[..[>]m] | n^m
#include <algorithm>
#include <cctype>

#include "carbon/storage/flatfile.h"
#include "carbon/support/common.h"

namespace carbon::storage {

namespace {

class LocationParser {
public:
    LocationParser(std::string_view text, int64_t length, const std::string& where)
        : s_(text), length_(length), where_(where) {}

    ParsedLocation parse() {
        ParsedLocation out;
        if (s_.empty()) fail("the location is empty");
        out.parts = location(out.remote, 0);
        if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
        if (out.parts.empty() && !out.remote) fail("no part of the location is in this entry");
        return out;
    }

private:
    std::vector<LocationPart> location(bool& remote, int depth) {
        if (depth > 64) fail("locations nested more than 64 deep");
        for (const char* op : {"complement(", "join(", "order("}) {
            const std::string_view o(op);
            if (s_.substr(pos_, o.size()) != o) continue;
            pos_ += o.size();
            std::vector<LocationPart> parts;
            if (o == "complement(") {
                parts = location(remote, depth + 1);
                std::reverse(parts.begin(), parts.end());
                for (LocationPart& p : parts) p.reverse = !p.reverse;
            } else {
                for (;;) {
                    std::vector<LocationPart> more = location(remote, depth + 1);
                    parts.insert(parts.end(), more.begin(), more.end());
                    if (pos_ < s_.size() && s_[pos_] == ',') {
                        ++pos_;
                        continue;
                    }
                    break;
                }
            }
            expect(')');
            return parts;
        }
        // A remote part: an accession (letters, digits, '_'), an optional .version, then ':'.
        size_t j = pos_;
        while (j < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '_' || s_[j] == '.')) ++j;
        if (j < s_.size() && s_[j] == ':' && j > pos_ && std::isalpha(static_cast<unsigned char>(s_[pos_]))) {
            pos_ = j + 1;
            (void)range(0);  // its numbers are positions in that entry: parsed, not checked against ours
            remote = true;
            return {};
        }
        return {range(length_)};
    }

    // A range; `length` 0: a remote entry's, whose length is unknown here.
    LocationPart range(int64_t length) {
        LocationPart p;
        if (pos_ < s_.size() && s_[pos_] == '(') fail("uncertain positions such as (1.5) are not supported");
        const int64_t a = position(p.before_start);
        if (pos_ < s_.size() && s_[pos_] == '^') {  // a site between two bases
            ++pos_;
            const int64_t b = number();
            if (a < 1) fail("positions start at 1 (a site before the first base of a circular sequence is n^1)");
            if (length && a > length) fail("position " + std::to_string(a) + " is past the end of the " + std::to_string(length) + " bp sequence");
            if (!(b == a + 1 || (length && a == length && b == 1)))
                fail("a site " + std::to_string(a) + "^" + std::to_string(b) + " must be between adjacent bases");
            p.start = p.end = a;
            return p;
        }
        int64_t b = a;
        if (s_.substr(pos_, 2) == "..") {
            pos_ += 2;
            b = position(p.after_end);
        } else if (pos_ < s_.size() && s_[pos_] == '.') {
            fail("one-of positions such as 1.5 are not supported");
        }
        if (a < 1) fail("positions start at 1");
        if (b < a) fail("the range " + std::to_string(a) + ".." + std::to_string(b) + " ends before it starts");
        if (length && b > length) fail("position " + std::to_string(b) + " is past the end of the " + std::to_string(length) + " bp sequence");
        p.start = a - 1;
        p.end = b;
        return p;
    }

    // A number with an optional < or > before it (INSDC writes < on starts and > on ends; the
    // other way round occurs past a circular origin): the part is partial on that side.
    int64_t position(bool& partial) {
        if (pos_ < s_.size() && (s_[pos_] == '<' || s_[pos_] == '>')) {
            partial = true;
            ++pos_;
        }
        return number();
    }

    int64_t number() {
        const size_t start = pos_;
        int64_t v = 0;
        while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
            if (v > (int64_t(1) << 50)) fail("a position is too large");
            v = v * 10 + (s_[pos_] - '0');
            ++pos_;
        }
        if (pos_ == start) fail(pos_ < s_.size() ? "expected a position, found '" + std::string(1, s_[pos_]) + "'" : "the location ends early");
        return v;
    }

    void expect(char c) {
        if (pos_ >= s_.size()) fail(std::string("expected '") + c + "', the location ends early");
        if (s_[pos_] != c) fail(std::string("expected '") + c + "', found '" + s_[pos_] + "'");
        ++pos_;
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw Error(where_ + ": malformed location '" + std::string(s_.substr(0, 200)) + (s_.size() > 200 ? "...'" : "'") +
                    " (character " + std::to_string(std::min(pos_, s_.size()) + 1) + "): " + what);
    }

    std::string_view s_;
    int64_t length_;
    const std::string& where_;
    size_t pos_ = 0;
};

}  // namespace

ParsedLocation parse_insdc_location(std::string_view text, int64_t length, const std::string& where) {
    return LocationParser(text, length, where).parse();
}

namespace {

std::string part_text(const LocationPart& p) {
    if (p.start == p.end) {
        if (p.start < 1) throw Error("a site before the first base has no INSDC location");
        return std::to_string(p.start) + "^" + std::to_string(p.start + 1);
    }
    std::string t = (p.before_start ? "<" : "") + std::to_string(p.start + 1);
    if (p.end - p.start > 1 || p.after_end) t += ".." + std::string(p.after_end ? ">" : "") + std::to_string(p.end);
    return t;
}

}  // namespace

std::string format_insdc_location(const std::vector<LocationPart>& parts) {
    if (parts.empty()) throw Error("a feature location needs at least one part");
    const bool all_reverse = std::all_of(parts.begin(), parts.end(), [](const LocationPart& p) { return p.reverse; });
    if (parts.size() == 1) return parts[0].reverse ? "complement(" + part_text(parts[0]) + ")" : part_text(parts[0]);
    std::string t;
    if (all_reverse) {  // complement(join(...)) lists the parts in forward order: the reverse of biological
        for (size_t i = parts.size(); i-- > 0;) t += (t.empty() ? "" : ",") + part_text(parts[i]);
        return "complement(join(" + t + "))";
    }
    for (const LocationPart& p : parts) t += (t.empty() ? "" : ",") + (p.reverse ? "complement(" + part_text(p) + ")" : part_text(p));
    return "join(" + t + ")";
}

}  // namespace carbon::storage
