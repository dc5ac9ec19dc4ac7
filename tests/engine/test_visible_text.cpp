// visible_text (carbon/support/visible_text.h): what a terminal, a log or a message line may
// receive of someone else's text. Control bytes, UTF-8's C1 controls and bytes that are not UTF-8
// come out as escapes; valid UTF-8 as it is; the limit cuts with "...".
#include "carbon/support/visible_text.h"
#include "check.h"

using carbon::first_control_char;
using carbon::visible_text;

TEST(plain_text_and_valid_utf8_are_kept) {
    CHECK_EQ(visible_text("chr1 promoter"), std::string("chr1 promoter"));
    CHECK_EQ(visible_text("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80"), std::string("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80"));
}

TEST(control_characters_come_out_as_escapes) {
    CHECK_EQ(visible_text("a\nb\rc\td"), std::string("a\\nb\\rc\\td"));
    CHECK_EQ(visible_text("red\x1b[31m\x07"), std::string("red\\x1b[31m\\x07"));
    CHECK_EQ(visible_text(std::string("nul\0end", 7)), std::string("nul\\x00end"));
    CHECK_EQ(visible_text("del\x7f"), std::string("del\\x7f"));
    CHECK_EQ(visible_text("back\\slash"), std::string("back\\\\slash"));
    CHECK_EQ(visible_text("csi\xc2\x9b" "31m"), std::string("csi\\u009b31m"));  // C1 CSI: a terminal escape on its own
}

TEST(bytes_that_are_not_utf8_come_out_as_escapes) {
    CHECK_EQ(visible_text("latin1 \xe9t\xe9"), std::string("latin1 \\xe9t\\xe9"));
    CHECK_EQ(visible_text("overlong \xc0\xaf"), std::string("overlong \\xc0\\xaf"));
    CHECK_EQ(visible_text("surrogate \xed\xa0\x80"), std::string("surrogate \\xed\\xa0\\x80"));
    CHECK_EQ(visible_text("cut \xe2\x86"), std::string("cut \\xe2\\x86"));
}

TEST(the_limit_cuts_with_an_ellipsis) {
    CHECK_EQ(visible_text(std::string(100, 'a'), 10), std::string(10, 'a') + "...");
    CHECK_EQ(visible_text("short", 10), std::string("short"));
}

TEST(first_control_char_finds_the_first) {
    CHECK_EQ(first_control_char("abc"), std::string_view::npos);
    CHECK_EQ(first_control_char("ab\ncd\x1b"), std::size_t(2));
    CHECK_EQ(first_control_char("\x7f"), std::size_t(0));
}

CHECK_MAIN()
