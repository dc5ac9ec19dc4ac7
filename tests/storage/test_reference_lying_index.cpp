// Issue 31, class 2 (the reference's side): an index is checked against the file it indexes
// before it is trusted. A corpus of .fai files that lie (a contig's length, offset, line layout,
// name, order; contigs missing or added; the index of another file; a .gzi of another file), each
// newer than its FASTA so that only its content can give it away: ReferenceGenome uses an index
// built into its own folder instead, says why (index_note), every window equals the bases the
// file holds, and the user's index is left byte-identical. A FASTA edited after it was indexed
// (lines of one contig no longer all the same length, the same total size) gives, for every
// window, either its true bases or a refusal naming the line, never other bases. Two contigs of
// one name are refused with the line of the second. Plain and bgzip; without bgzip (Debian:
// tabix) the bgzip half says it is skipped.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "carbon/storage/reference.h"
#include "carbon/support/common.h"
#include "check.h"
#include "storage_test_util.h"

using namespace carbon::storage;
namespace fs = std::filesystem;

#define CHECK_MSG(cond, msg)                                                 \
    do {                                                                     \
        if (!(cond)) ::check::fail(__FILE__, __LINE__, std::string(msg));    \
    } while (0)

namespace {

struct Contig {
    std::string name, bases;
    size_t width;
};

std::vector<Contig> genome() {
    std::mt19937 rng(11);
    auto seq = [&](size_t n) {
        std::string s(n, 'A');
        for (char& c : s) c = "ACGTacgtN"[rng() % 9];
        return s;
    };
    return {{"chr1", seq(1000), 60}, {"chr2", seq(240), 60}, {"chrM", seq(17), 70}, {"chr4", seq(333), 50}};
}

std::string fasta_text(const std::vector<Contig>& cs, const char* eol = "\n") {
    std::string t;
    for (const auto& c : cs) {
        t += ">" + c.name + " desc" + eol;
        for (size_t i = 0; i < c.bases.size(); i += c.width) t += c.bases.substr(i, c.width) + eol;
    }
    return t;
}

// The .fai samtools would write for `text`, as lines of NAME LENGTH OFFSET LINEBASES LINEWIDTH.
struct Line {
    std::string name;
    int64_t len, off, lb, lw;
};
std::vector<Line> true_fai(const std::vector<Contig>& cs, size_t eol = 1) {
    std::vector<Line> out;
    int64_t at = 0;
    for (const auto& c : cs) {
        at += int64_t(c.name.size() + 6 + eol);  // ">" NAME " desc" EOL
        out.push_back({c.name, int64_t(c.bases.size()), at, int64_t(c.width), int64_t(c.width + eol)});
        at += int64_t((c.bases.size() + c.width - 1) / c.width * eol + c.bases.size());
    }
    return out;
}
std::string fai_text(const std::vector<Line>& ls) {
    std::ostringstream o;
    for (const auto& l : ls) o << l.name << '\t' << l.len << '\t' << l.off << '\t' << l.lb << '\t' << l.lw << '\n';
    return o.str();
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
std::string upper(std::string s) {
    for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}
// An index newer than its FASTA: only its content can give it away.
void newer(const fs::path& index, const fs::path& fasta) {
    fs::last_write_time(index, fs::last_write_time(fasta) + std::chrono::hours(1));
}

void every_window_true(const ReferenceGenome& g, const std::vector<Contig>& cs) {
    CHECK_EQ(g.contigs().size(), cs.size());
    std::mt19937 rng(4);
    for (size_t i = 0; i < cs.size() && i < g.contigs().size(); ++i) {
        const int64_t len = int64_t(cs[i].bases.size());
        CHECK_EQ(g.contigs()[i].name, cs[i].name);
        CHECK_EQ(g.length(cs[i].name), len);
        CHECK_EQ(g.fetch(cs[i].name, 0, len), upper(cs[i].bases));
        for (int r = 0; r < 40; ++r) {
            const int64_t b = int64_t(rng() % uint64_t(len)), e = b + int64_t(rng() % uint64_t(len - b + 1));
            CHECK_EQ(g.fetch(cs[i].name, b, e), upper(cs[i].bases.substr(size_t(b), size_t(e - b))));
        }
    }
}

struct Lie {
    const char* what;
    std::string fai;
};

std::vector<Lie> lies(const std::vector<Contig>& cs) {
    const auto t = true_fai(cs);
    std::vector<Lie> out;
    auto with = [&](const char* what, auto edit) {
        auto ls = t;
        edit(ls);
        out.push_back({what, fai_text(ls)});
    };
    with("length one more", [](auto& ls) { ls[1].len += 1; });
    with("length one less", [](auto& ls) { ls[1].len -= 1; });
    with("length a whole line less", [](auto& ls) { ls[0].len -= 60; });
    with("length of the last contig one more", [](auto& ls) { ls[3].len += 1; });
    with("length of the last contig a line less", [](auto& ls) { ls[3].len -= 50; });
    with("offset one on", [](auto& ls) { ls[1].off += 1; });
    with("offset one back", [](auto& ls) { ls[2].off -= 1; });
    with("offset of another contig", [](auto& ls) { ls[1].off = ls[3].off; });
    with("line bases", [](auto& ls) { ls[0].lb = 61, ls[0].lw = 62; });
    with("line width", [](auto& ls) { ls[0].lw = 62; });
    with("two names swapped", [](auto& ls) { std::swap(ls[0].name, ls[1].name); });
    with("contigs in another order", [](auto& ls) { std::swap(ls[0], ls[1]); });
    with("a contig left out", [](auto& ls) { ls.erase(ls.begin() + 2); });
    with("the last contig left out", [](auto& ls) { ls.pop_back(); });
    with("a contig added", [](auto& ls) { ls.push_back({"chr9", 100, ls.back().off + 400, 60, 61}); });
    with("a contig listed twice", [](auto& ls) { ls.push_back(ls[0]); });
    out.push_back({"not an index", "chr1\tten\t6\t60\t61\n"});
    out.push_back({"a FASTQ index", "chr1\t1000\t6\t60\t61\t2000\n"});
    out.push_back({"empty", ""});
    std::vector<Contig> other = cs;
    other[0].width = 70;
    out.push_back({"the index of the same contigs wrapped at 70", fai_text(true_fai(other))});
    out.push_back({"the index of the file with CRLF line breaks", fai_text(true_fai(cs, 2))});
    return out;
}

}  // namespace

TEST(a_lying_fai_beside_a_plain_fasta_is_replaced_by_a_built_index_and_left_untouched) {
    const auto cs = genome();
    const fs::path dir = storage_test::fresh_dir("lying-fai"), cache = storage_test::fresh_dir("lying-fai-cache");
    const fs::path fa = dir / "genome.fa", fai = dir / "genome.fa.fai";
    write(fa, fasta_text(cs));
    // The true index is trusted as it is: nothing built.
    write(fai, fai_text(true_fai(cs)));
    newer(fai, fa);
    {
        auto g = ReferenceGenome::open(fa.string(), cache.string());
        CHECK(g->index_note().empty());
        CHECK(fs::is_empty(cache));
        every_window_true(*g, cs);
    }
    for (const Lie& lie : lies(cs)) {
        write(fai, lie.fai);
        newer(fai, fa);
        std::string note;
        try {
            auto g = ReferenceGenome::open(fa.string(), cache.string());
            note = g->index_note();
            every_window_true(*g, cs);
        } catch (const carbon::Error& e) {
            CHECK_MSG(false, std::string(lie.what) + ": refused: " + e.what());
        }
        CHECK_MSG(note.find("genome.fa.fai does not describe") != std::string::npos, std::string(lie.what) + ": note: " + note);
        CHECK_MSG(storage_test::file_bytes(fai) == lie.fai, std::string(lie.what) + ": the user's index was changed");
    }
    CHECK_EQ(std::distance(fs::directory_iterator(dir), {}), 2);  // nothing written beside the user's file
}

TEST(a_fasta_edited_after_it_was_indexed_gives_true_bases_or_a_refusal_never_others) {
    auto cs = genome();
    const fs::path dir = storage_test::fresh_dir("edited-fa"), cache = storage_test::fresh_dir("edited-fa-cache");
    const fs::path fa = dir / "genome.fa", fai = dir / "genome.fa.fai";
    const std::string index = fai_text(true_fai(cs));
    // chr1's fourth line loses a base and its fifth gains one: the same size, contig and lines
    // at both ends as the index says, bases in the middle moved by one.
    std::string text = fasta_text(cs);
    const size_t line4 = text.find('\n', text.find('\n', text.find('\n', text.find('\n') + 1) + 1) + 1) + 1;
    text.erase(line4 + 59, 1);                       // the break moves one back
    text.insert(text.find('\n', line4) + 61, "A");   // the next line is one longer
    write(fa, text);
    write(fai, index);
    newer(fai, fa);
    auto g = ReferenceGenome::open(fa.string(), cache.string());
    // What the file now holds, read without its index.
    std::string truth;
    {
        std::istringstream in(text);
        std::string line;
        std::getline(in, line);
        while (std::getline(in, line) && line[0] != '>') truth += upper(line);
    }
    CHECK_EQ(truth.size(), size_t(1000));
    int refused = 0, served = 0;
    for (int64_t b = 0; b < 1000; b += 7)
        for (int64_t len : {1, 30, 61, 200}) {
            const int64_t e = std::min<int64_t>(1000, b + len);
            try {
                const std::string got = g->fetch("chr1", b, e);
                CHECK_MSG(got == truth.substr(size_t(b), size_t(e - b)), "chr1:" + std::to_string(b + 1) + "-" + std::to_string(e) + " gave other bases");
                ++served;
            } catch (const carbon::Error& err) {
                const std::string m = err.what();  // the edited lines: the 4th and 5th of chr1
                CHECK_MSG(m.find("/genome.fa:5: ") != std::string::npos || m.find("/genome.fa:6: ") != std::string::npos, m);
                CHECK_MSG(std::string(err.what()).find("does not match its index") != std::string::npos, err.what());
                ++refused;
            }
        }
    CHECK(refused > 0);
    CHECK(served > 0);
}

TEST(two_contigs_of_one_name_are_refused_with_the_line_of_the_second) {
    auto cs = genome();
    cs[2].name = "chr1";  // the third contig, at line 24 (18 lines of chr1, 5 of chr2)
    const fs::path dir = storage_test::fresh_dir("dup-contig"), cache = storage_test::fresh_dir("dup-contig-cache");
    write(dir / "genome.fa", fasta_text(cs));
    CHECK_THROWS_WITH(ReferenceGenome::open((dir / "genome.fa").string(), cache.string()), "genome.fa: contig 'chr1' is named twice",
                      "again at ", "genome.fa:24 ");
    cs = genome();
    cs[3].name = "chr2";  // the last contig, at line 26
    write(dir / "last.fa", fasta_text(cs));
    CHECK_THROWS_WITH(ReferenceGenome::open((dir / "last.fa").string(), cache.string()), "contig 'chr2' is named twice", "last.fa:26 ");
    CHECK_EQ(std::distance(fs::directory_iterator(dir), {}), 2);
}

TEST(a_lying_index_of_a_bgzip_fasta_is_replaced_too) {
    if (std::system("command -v bgzip >/dev/null 2>&1") != 0) SKIP("bgzip (Debian: tabix) is not installed");
    const auto cs = genome();
    const fs::path dir = storage_test::fresh_dir("lying-bgzf"), cache = storage_test::fresh_dir("lying-bgzf-cache");
    const fs::path plain = dir / "plain.fa", fa = dir / "genome.fa.gz", fai = dir / "genome.fa.gz.fai", gzi = dir / "genome.fa.gz.gzi";
    write(plain, fasta_text(cs));
    CHECK_EQ(std::system(("bgzip -c -i -I '" + gzi.string() + "' '" + plain.string() + "' > '" + fa.string() + "'").c_str()), 0);
    const std::string good_gzi = storage_test::file_bytes(gzi);
    for (const Lie& lie : lies(cs)) {
        write(fai, lie.fai);
        newer(fai, fa);
        newer(gzi, fa);
        auto g = ReferenceGenome::open(fa.string(), cache.string());
        CHECK_MSG(!g->index_note().empty(), lie.what);
        every_window_true(*g, cs);
    }
    // A .gzi of another file beside a true .fai.
    write(fai, fai_text(true_fai(cs)));
    write(gzi, std::string("\x02\0\0\0\0\0\0\0\x10\0\0\0\0\0\0\0\x40\0\0\0\0\0\0\0", 24) + std::string(16, '\x7f'));
    newer(fai, fa);
    newer(gzi, fa);
    auto g = ReferenceGenome::open(fa.string(), cache.string());
    every_window_true(*g, cs);
    CHECK(good_gzi.size() > 0);
}

CHECK_MAIN()
