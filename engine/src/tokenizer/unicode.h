// Unicode support for the tokenizer: strict UTF-8, the classes its pre-tokenizer patterns use
// (\p{L}, \p{N}, \s, \w), NFC, and the Qwen2 / GPT-2 splitters; tables in unicode_tables.inc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace carbon::unicode {

// Decodes strict UTF-8 (no overlong forms, surrogates or values above U+10FFFF). Throws Error
// "invalid UTF-8 in <what> at byte offset N ..." on the first bad byte.
std::u32string decode_utf8(std::string_view s, std::string_view what);
// Byte offset of the first invalid UTF-8 sequence, or npos when `s` is valid.
size_t find_invalid_utf8(std::string_view s);
void append_utf8(std::string& out, char32_t cp);
std::string encode_utf8(std::u32string_view cps);

bool is_letter(char32_t c);      // \p{L}
bool is_number(char32_t c);      // \p{N}
bool is_whitespace(char32_t c);  // \s: White_Space
bool is_word_char(char32_t c);   // \w in Rust's regex crate (used by single_word added tokens)
int combining_class(char32_t c);

// Unicode Normalization Form C. The input must be valid UTF-8 (callers validate first).
std::u32string nfc(std::u32string_view s);
std::string nfc(std::string_view utf8);

// The Unicode version of the generated tables.
const char* tables_version();

// The regular expressions tokenizers use to pre-tokenize, matched by hand with the regex's own
// leftmost-first alternation and greedy backtracking (Oniguruma semantics).
enum class SplitPattern { Qwen2, Gpt2 };
// The exact pattern strings as tokenizer.json spells them.
extern const char* const kQwen2Pattern;
extern const char* const kGpt2Pattern;

// Pieces of `s` as [begin, end) code point indices, covering all of `s` in order: every match
// becomes a piece and so does any text between matches (tokenizers' "Isolated" behaviour).
std::vector<std::pair<size_t, size_t>> split(SplitPattern pattern, std::u32string_view s);

}  // namespace carbon::unicode
