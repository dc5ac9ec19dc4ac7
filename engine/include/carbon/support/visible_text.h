// Text from a file someone else wrote, made safe to print in one line of a terminal, a log or a
// message: control characters (C0, DEL and UTF-8's C1) and bytes that are not UTF-8 are written as
// escapes (\n, \t, \x1b, \u009b), so a stored name can neither move the cursor, recolour the
// terminal nor start a line of its own. Valid UTF-8 is kept as it is.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace carbon {

// `text` with its control and non-UTF-8 bytes escaped; at most `max_bytes` of the result, then
// "..." (0: no limit).
std::string visible_text(std::string_view text, std::size_t max_bytes = 0);

// Whether `text` is valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool is_utf8(std::string_view text);

// `text` read as Latin-1 (ISO 8859-1), written as UTF-8: each byte its own code point.
std::string latin1_to_utf8(std::string_view text);

// The first control character (C0 or DEL) in `text`, as an offset; npos when there is none.
std::size_t first_control_char(std::string_view text);

}  // namespace carbon
