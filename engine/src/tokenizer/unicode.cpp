// Unicode support for the tokenizer (see unicode.h): table lookups, strict UTF-8, NFC and the
// hand-written matchers for the Qwen2 and GPT-2 pre-tokenizer regular expressions.
#include "unicode.h"

#include <algorithm>
#include <cstdio>

#include "carbon/support/common.h"

namespace carbon::unicode {
namespace {

struct CodepointRange {
    char32_t lo, hi;
};
struct CombiningClassRange {
    char32_t lo, hi;
    int ccc;
};
struct Decomposition {
    char32_t cp;
    int offset, length;
};
struct Composition {
    char32_t first, second, composite;
};

#include "unicode_tables.inc"

template <size_t N>
bool in_ranges(const CodepointRange (&table)[N], char32_t c) {
    const CodepointRange* end = table + N;
    const CodepointRange* it =
        std::upper_bound(table, end, c, [](char32_t v, const CodepointRange& r) { return v < r.lo; });
    return it != table && c <= (it - 1)->hi;
}

constexpr char32_t kHangulSBase = 0xAC00, kHangulLBase = 0x1100, kHangulVBase = 0x1161, kHangulTBase = 0x11A7;
constexpr int kHangulLCount = 19, kHangulVCount = 21, kHangulTCount = 28, kHangulNCount = kHangulVCount * kHangulTCount,
              kHangulSCount = kHangulLCount * kHangulNCount;

bool is_hangul_syllable(char32_t c) {
    return c >= kHangulSBase && c < kHangulSBase + char32_t(kHangulSCount);
}

const Decomposition* find_decomposition(char32_t c) {
    const Decomposition* begin = kDecompositions;
    const Decomposition* end = begin + std::size(kDecompositions);
    const Decomposition* it =
        std::lower_bound(begin, end, c, [](const Decomposition& d, char32_t v) { return d.cp < v; });
    return (it != end && it->cp == c) ? it : nullptr;
}

// Canonical composite of a pair, or 0 when the pair does not compose.
char32_t compose_pair(char32_t a, char32_t b) {
    if (a >= kHangulLBase && a < kHangulLBase + kHangulLCount && b >= kHangulVBase && b < kHangulVBase + kHangulVCount)
        return kHangulSBase + ((a - kHangulLBase) * kHangulVCount + (b - kHangulVBase)) * kHangulTCount;
    if (is_hangul_syllable(a) && (a - kHangulSBase) % kHangulTCount == 0 && b > kHangulTBase &&
        b < kHangulTBase + kHangulTCount)
        return a + (b - kHangulTBase);
    const Composition* begin = kCompositions;
    const Composition* end = begin + std::size(kCompositions);
    const Composition* it = std::lower_bound(begin, end, std::make_pair(a, b), [](const Composition& x, auto key) {
        return x.first != key.first ? x.first < key.first : x.second < key.second;
    });
    return (it != end && it->first == a && it->second == b) ? it->composite : 0;
}

bool is_cr_or_lf(char32_t c) {
    return c == '\r' || c == '\n';
}
// [^\s\p{L}\p{N}]: punctuation, symbols and anything else that is neither space nor word.
bool is_other(char32_t c) {
    return !is_whitespace(c) && !is_letter(c) && !is_number(c);
}
char32_t ascii_lower(char32_t c) {
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

// Contractions 's 't 're 've 'm 'll 'd at i; returns the end or i. `fold` makes the letters
// match either case, as (?i:...) does in Qwen2's pattern (ASCII only: Oniguruma does not fold
// U+017F LONG S to 's' here, checked against tokenizers).
size_t match_contraction(std::u32string_view s, size_t i, bool fold) {
    size_t n = s.size();
    if (s[i] != '\'' || i + 1 >= n) return i;
    char32_t a = fold ? ascii_lower(s[i + 1]) : s[i + 1];
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
    if (i + 2 >= n) return i;
    char32_t b = fold ? ascii_lower(s[i + 2]) : s[i + 2];
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
    return i;
}

// ` ?X+`: an optional space, then a greedy run of class X. Backtracking over the optional space
// can only help when the space itself is in X, which none of the callers' classes allow.
template <class Pred>
size_t match_space_then_run(std::u32string_view s, size_t i, Pred in_class) {
    size_t n = s.size();
    size_t j = (s[i] == ' ' && i + 1 < n && in_class(s[i + 1])) ? i + 1 : i;
    if (j >= n || !in_class(s[j])) return i;
    while (j < n && in_class(s[j])) ++j;
    return j;
}

// `\s+(?!\S)|\s+` at i (s[i] is whitespace). Greedy \s+ stops before a non-space; the lookahead
// then fails and backtracking gives back one space, so a run followed by a word leaves its last
// space to that word. A single space before a word falls through to plain \s+.
size_t match_trailing_space(std::u32string_view s, size_t i, size_t run_end) {
    if (run_end == s.size()) return run_end;
    if (run_end - 1 > i) return run_end - 1;
    return run_end;
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
size_t match_qwen2(std::u32string_view s, size_t i) {
    size_t n = s.size();
    char32_t c = s[i];
    if (size_t e = match_contraction(s, i, true); e > i) return e;
    // [^\r\n\p{L}\p{N}]?\p{L}+ : one optional leading non-letter, non-digit, non-newline char.
    {
        size_t j = (!is_letter(c) && !is_number(c) && !is_cr_or_lf(c)) ? i + 1 : i;
        if (j < n && is_letter(s[j])) {
            while (j < n && is_letter(s[j])) ++j;
            return j;
        }
    }
    if (is_number(c)) return i + 1;
    if (size_t e = match_space_then_run(s, i, is_other); e > i) {
        while (e < n && is_cr_or_lf(s[e])) ++e;
        return e;
    }
    if (!is_whitespace(c)) return i;
    size_t run_end = i;
    size_t last_newline = std::u32string_view::npos;
    while (run_end < n && is_whitespace(s[run_end])) {
        if (is_cr_or_lf(s[run_end])) last_newline = run_end;
        ++run_end;
    }
    // \s*[\r\n]+ : greedy \s* backs off to the last CR/LF of the run; [\r\n]+ takes just that one
    // because what follows it is not CR/LF.
    if (last_newline != std::u32string_view::npos) return last_newline + 1;
    return match_trailing_space(s, i, run_end);
}

// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
size_t match_gpt2(std::u32string_view s, size_t i) {
    size_t n = s.size();
    if (size_t e = match_contraction(s, i, false); e > i) return e;
    if (size_t e = match_space_then_run(s, i, is_letter); e > i) return e;
    if (size_t e = match_space_then_run(s, i, is_number); e > i) return e;
    if (size_t e = match_space_then_run(s, i, is_other); e > i) return e;
    if (!is_whitespace(s[i])) return i;
    size_t run_end = i;
    while (run_end < n && is_whitespace(s[run_end])) ++run_end;
    return match_trailing_space(s, i, run_end);
}

}  // namespace

const char* const kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* const kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

const char* tables_version() {
    return kUnicodeTablesVersion;
}

bool is_letter(char32_t c) {
    if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
    return in_ranges(kLetterRanges, c);
}
bool is_number(char32_t c) {
    if (c < 0x80) return c >= '0' && c <= '9';
    return in_ranges(kNumberRanges, c);
}
bool is_whitespace(char32_t c) {
    if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D);
    return in_ranges(kWhiteSpaceRanges, c);
}
bool is_word_char(char32_t c) {
    if (c < 0x80) return c == '_' || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9');
    return in_ranges(kWordRanges, c);
}
int combining_class(char32_t c) {
    if (c < 0x300) return 0;
    const CombiningClassRange* begin = kCombiningClassRanges;
    const CombiningClassRange* end = begin + std::size(kCombiningClassRanges);
    const CombiningClassRange* it =
        std::upper_bound(begin, end, c, [](char32_t v, const CombiningClassRange& r) { return v < r.lo; });
    return (it != begin && c <= (it - 1)->hi) ? (it - 1)->ccc : 0;
}

// Length of the valid UTF-8 sequence at s[i], or 0 when it is invalid (the Unicode "well-formed
// byte sequences" table: no overlongs, no surrogates, nothing above U+10FFFF).
static size_t utf8_sequence_length(std::string_view s, size_t i, char32_t* out) {
    auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = b(i);
    size_t n = s.size();
    if (c < 0x80) {
        *out = c;
        return 1;
    }
    auto cont = [&](size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
        return k < n && b(k) >= lo && b(k) <= hi;
    };
    if (c >= 0xC2 && c <= 0xDF) {
        if (!cont(i + 1)) return 0;
        *out = char32_t(c & 0x1F) << 6 | (b(i + 1) & 0x3F);
        return 2;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        unsigned char lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        if (!cont(i + 1, lo, hi) || !cont(i + 2)) return 0;
        *out = char32_t(c & 0x0F) << 12 | char32_t(b(i + 1) & 0x3F) << 6 | (b(i + 2) & 0x3F);
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        unsigned char lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        if (!cont(i + 1, lo, hi) || !cont(i + 2) || !cont(i + 3)) return 0;
        *out = char32_t(c & 0x07) << 18 | char32_t(b(i + 1) & 0x3F) << 12 | char32_t(b(i + 2) & 0x3F) << 6 |
               (b(i + 3) & 0x3F);
        return 4;
    }
    return 0;
}

size_t find_invalid_utf8(std::string_view s) {
    char32_t cp;
    for (size_t i = 0; i < s.size();) {
        size_t len = utf8_sequence_length(s, i, &cp);
        if (len == 0) return i;
        i += len;
    }
    return std::string_view::npos;
}

std::u32string decode_utf8(std::string_view s, std::string_view what) {
    std::u32string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        char32_t cp;
        size_t len = utf8_sequence_length(s, i, &cp);
        if (len == 0) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned char>(s[i]));
            throw Error("invalid UTF-8 in " + std::string(what) + " at byte offset " + std::to_string(i) + " (byte " +
                        buf + ")");
        }
        out.push_back(cp);
        i += len;
    }
    return out;
}

void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out.push_back(char(cp));
    } else if (cp < 0x800) {
        out.push_back(char(0xC0 | (cp >> 6)));
        out.push_back(char(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(char(0xE0 | (cp >> 12)));
        out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(char(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(char(0xF0 | (cp >> 18)));
        out.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(char(0x80 | (cp & 0x3F)));
    }
}

std::string encode_utf8(std::u32string_view cps) {
    std::string out;
    out.reserve(cps.size());
    for (char32_t c : cps) append_utf8(out, c);
    return out;
}

std::u32string nfc(std::u32string_view s) {
    // Below U+0300 nothing combines, so such text is already NFC (the common, ASCII case).
    if (std::all_of(s.begin(), s.end(), [](char32_t c) { return c < 0x300; })) return std::u32string(s);

    std::u32string d;
    d.reserve(s.size() + 8);
    for (char32_t c : s) {
        if (is_hangul_syllable(c)) {
            int si = int(c - kHangulSBase);
            d.push_back(kHangulLBase + char32_t(si / kHangulNCount));
            d.push_back(kHangulVBase + char32_t((si % kHangulNCount) / kHangulTCount));
            if (si % kHangulTCount) d.push_back(kHangulTBase + char32_t(si % kHangulTCount));
        } else if (const Decomposition* dec = c >= 0xC0 ? find_decomposition(c) : nullptr) {
            d.append(kDecompositionData + dec->offset, size_t(dec->length));
        } else {
            d.push_back(c);
        }
    }

    // Canonical ordering: a stable sort of each run of non-starters by combining class.
    std::vector<int> cls(d.size());
    for (size_t i = 0; i < d.size(); ++i) cls[i] = combining_class(d[i]);
    for (size_t i = 0; i < d.size();) {
        if (cls[i] == 0) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < d.size() && cls[j] != 0) ++j;
        for (size_t a = i + 1; a < j; ++a)  // insertion sort keeps equal classes in order
            for (size_t b = a; b > i && cls[b - 1] > cls[b]; --b) {
                std::swap(cls[b - 1], cls[b]);
                std::swap(d[b - 1], d[b]);
            }
        i = j;
    }

    // Canonical composition: a character joins the last starter unless something between them
    // blocks it (a starter, or a mark of the same or higher class).
    std::u32string out;
    out.reserve(d.size());
    size_t starter = std::u32string::npos;
    int last_class = 0;
    for (size_t i = 0; i < d.size(); ++i) {
        char32_t c = d[i];
        int cc = cls[i];
        if (starter != std::u32string::npos) {
            bool adjacent = out.size() == starter + 1;
            if (adjacent || last_class < cc) {
                if (char32_t comp = compose_pair(out[starter], c)) {
                    out[starter] = comp;
                    continue;
                }
            }
        }
        if (cc == 0) starter = out.size();
        last_class = cc;
        out.push_back(c);
    }
    return out;
}

std::string nfc(std::string_view utf8) {
    if (std::all_of(utf8.begin(), utf8.end(), [](char c) { return static_cast<unsigned char>(c) < 0xCC; }))
        return std::string(utf8);  // every code point is below U+0300
    return encode_utf8(nfc(decode_utf8(utf8, "text")));
}

std::vector<std::pair<size_t, size_t>> split(SplitPattern pattern, std::u32string_view s) {
    std::vector<std::pair<size_t, size_t>> pieces;
    size_t last = 0;
    for (size_t pos = 0; pos < s.size();) {
        size_t end = pattern == SplitPattern::Qwen2 ? match_qwen2(s, pos) : match_gpt2(s, pos);
        if (end == pos) {
            ++pos;
            continue;
        }
        if (last < pos) pieces.emplace_back(last, pos);
        pieces.emplace_back(pos, end);
        pos = last = end;
    }
    if (last < s.size()) pieces.emplace_back(last, s.size());
    return pieces;
}

}  // namespace carbon::unicode
