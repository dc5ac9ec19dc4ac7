// visible_text (visible_text.h).
#include "carbon/support/visible_text.h"

#include <cstdio>

namespace carbon {

namespace {

// Bytes of the UTF-8 sequence starting at text[i], or 0 when it is not one (overlong, surrogate,
// past U+10FFFF or cut short).
std::size_t utf8_length(std::string_view t, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(t[k]); };
    const unsigned c = b(i);
    std::size_t n = 0;
    unsigned cp = 0;
    if (c >= 0xc2 && c <= 0xdf) n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) n = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4) n = 4, cp = c & 0x07;
    else return 0;
    if (i + n > t.size()) return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (b(i + k) & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return n;
}

}  // namespace

std::string visible_text(std::string_view t, std::size_t max_bytes) {
    std::string out;
    char buf[16];
    for (std::size_t i = 0; i < t.size();) {
        if (max_bytes && out.size() >= max_bytes) {
            out += "...";
            break;
        }
        const unsigned char c = static_cast<unsigned char>(t[i]);
        if (c == '\n') out += "\\n", ++i;
        else if (c == '\r') out += "\\r", ++i;
        else if (c == '\t') out += "\\t", ++i;
        else if (c == '\\') out += "\\\\", ++i;
        else if (c < 0x20 || c == 0x7f) {
            std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(c));
            out += buf, ++i;
        } else if (c < 0x80) {
            out += char(c), ++i;
        } else if (const std::size_t n = utf8_length(t, i); n == 0) {
            std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(c));
            out += buf, ++i;
        } else if (n == 2 && c == 0xc2 && static_cast<unsigned char>(t[i + 1]) < 0xa0) {  // C1 controls
            std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(static_cast<unsigned char>(t[i + 1])));
            out += buf, i += 2;
        } else {
            out.append(t.substr(i, n)), i += n;
        }
    }
    return out;
}

bool is_utf8(std::string_view t) {
    for (std::size_t i = 0; i < t.size();) {
        if (static_cast<unsigned char>(t[i]) < 0x80) {
            ++i;
            continue;
        }
        const std::size_t n = utf8_length(t, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

std::string latin1_to_utf8(std::string_view t) {
    std::string out;
    out.reserve(t.size() + t.size() / 4);
    for (const char ch : t) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c < 0x80) {
            out += ch;
        } else {
            out += char(0xc0 | (c >> 6));
            out += char(0x80 | (c & 0x3f));
        }
    }
    return out;
}

std::size_t first_control_char(std::string_view t) {
    for (std::size_t i = 0; i < t.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(t[i]);
        if (c < 0x20 || c == 0x7f) return i;
    }
    return std::string_view::npos;
}

}  // namespace carbon
