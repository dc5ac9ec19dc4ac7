// ReferenceGenome (reference.h) on a multi-contig reference written here (different line widths
// per contig, soft-masked lowercase, N runs, a contig shorter than a line): every window equals
// the text it was written from, and equals what `samtools faidx` prints for the same region, for
// the plain file and its `bgzip` copy, with the index built by us (into our folder, nothing
// written beside the user's file) or by `samtools faidx` beside it. Refusals: gzip that is not
// bgzip, not FASTA, empty, a named pipe, uneven lines, a missing contig, windows outside a
// contig. Without samtools/bgzip the comparisons with them report themselves skipped.
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "carbon/storage/reference.h"
#include "check.h"
#include "storage_test_util.h"

using namespace carbon::storage;
namespace fs = std::filesystem;

namespace {

struct Contig {
    std::string name, bases;
    size_t width;
};

std::vector<Contig> contigs() {
    std::mt19937 rng(5);
    auto seq = [&](size_t n) {
        std::string s(n, 'A');
        for (size_t i = 0; i < n; ++i) {
            s[i] = "ACGTacgtN"[rng() % 9];
            if (i % 997 < 30) s[i] = 'N';  // runs of N
        }
        return s;
    };
    return {{"chr1", seq(10000), 60}, {"chr2 extra words", seq(3001), 80}, {"chrM", seq(17), 70},
            {"scaffold_4", seq(4096), 64}};
}

std::string name_of(const Contig& c) { return c.name.substr(0, c.name.find(' ')); }

std::string upper(std::string s) {
    for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

void write_fasta(const fs::path& path, const std::vector<Contig>& cs) {
    std::ofstream f(path, std::ios::binary);
    for (const auto& c : cs) {
        f << '>' << c.name << '\n';
        for (size_t i = 0; i < c.bases.size(); i += c.width) f << c.bases.substr(i, c.width) << '\n';
    }
}

bool have(const char* tool) {
    const std::string cmd = std::string("command -v ") + tool + " >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
}

std::string run(const std::string& cmd) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return out;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    pclose(p);
    return out;
}

// What samtools faidx prints for REGION, without the header and the line breaks.
std::string samtools_window(const fs::path& fasta, const std::string& region) {
    std::string out = run("samtools faidx '" + fasta.string() + "' '" + region + "' 2>/dev/null");
    const size_t nl = out.find('\n');
    if (nl == std::string::npos) return "";
    std::string bases;
    for (size_t i = nl + 1; i < out.size(); ++i)
        if (out[i] != '\n') bases += out[i];
    return bases;
}

std::vector<std::string> listing(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// Every contig's length and order, whole contigs, both ends, and 300 random windows.
void check_windows(const ReferenceGenome& g, const std::vector<Contig>& cs) {
    CHECK_EQ(g.contigs().size(), cs.size());
    std::mt19937 rng(9);
    for (size_t i = 0; i < cs.size(); ++i) {
        const std::string name = name_of(cs[i]);
        const int64_t len = int64_t(cs[i].bases.size());
        CHECK_EQ(g.contigs()[i].name, name);
        CHECK_EQ(g.contigs()[i].length, len);
        CHECK_EQ(g.length(name), len);
        CHECK_EQ(g.fetch(name, 0, len), upper(cs[i].bases));
        CHECK_EQ(g.fetch(name, len - 1, len), upper(cs[i].bases.substr(size_t(len - 1))));
        CHECK_EQ(g.fetch(name, 5, 5), std::string());
        for (int r = 0; r < 75; ++r) {
            const int64_t b = int64_t(rng() % uint64_t(len)), e = b + int64_t(rng() % uint64_t(len - b + 1));
            CHECK_EQ(g.fetch(name, b, e), upper(cs[i].bases.substr(size_t(b), size_t(e - b))));
        }
    }
}

}  // namespace

TEST(windows_equal_the_text_plain_and_bgzip_with_our_own_index_and_nothing_written_beside_it) {
    const auto cs = contigs();
    const fs::path dir = storage_test::fresh_dir("ref-own"), cache = storage_test::fresh_dir("ref-own-cache");
    write_fasta(dir / "genome.fa", cs);
    const auto before = listing(dir);
    check_windows(*ReferenceGenome::open((dir / "genome.fa").string(), cache.string()), cs);
    CHECK(listing(dir) == before);           // no .fai beside the user's file
    CHECK_EQ(listing(cache).size(), size_t(1));  // one folder for this FASTA
    // Opened again: the index from the cache, the same answers.
    check_windows(*ReferenceGenome::open((dir / "genome.fa").string(), cache.string()), cs);
    CHECK_EQ(listing(cache).size(), size_t(1));

    if (!have("bgzip")) SKIP("bgzip (Debian: tabix) is not installed: the bgzip half of this test did not run");
    CHECK_EQ(std::system(("bgzip -c '" + (dir / "genome.fa").string() + "' > '" + (dir / "genome.fa.gz").string() + "'").c_str()), 0);
    check_windows(*ReferenceGenome::open((dir / "genome.fa.gz").string(), cache.string()), cs);
    CHECK(!fs::exists(dir / "genome.fa.gz.fai") && !fs::exists(dir / "genome.fa.gz.gzi"));
}

TEST(windows_equal_samtools_faidx_with_its_index_beside_the_file) {
    if (!have("samtools") || !have("bgzip")) SKIP("samtools and bgzip (Debian: samtools, tabix) are not installed");
    const auto cs = contigs();
    const fs::path dir = storage_test::fresh_dir("ref-samtools"), cache = storage_test::fresh_dir("ref-samtools-cache");
    write_fasta(dir / "genome.fa", cs);
    CHECK_EQ(std::system(("bgzip -c '" + (dir / "genome.fa").string() + "' > '" + (dir / "genome.fa.gz").string() + "'").c_str()), 0);
    for (const char* file : {"genome.fa", "genome.fa.gz"}) {
        const fs::path fasta = dir / file;
        CHECK_EQ(std::system(("samtools faidx '" + fasta.string() + "'").c_str()), 0);
        auto g = ReferenceGenome::open(fasta.string(), cache.string());
        CHECK(fs::is_empty(cache));  // samtools' index beside the file was used
        std::mt19937 rng(3);
        for (const auto& c : cs) {
            const std::string name = name_of(c);
            const int64_t len = int64_t(c.bases.size());
            for (int r = 0; r < 20; ++r) {
                const int64_t b = int64_t(rng() % uint64_t(len)), e = b + 1 + int64_t(rng() % uint64_t(len - b));
                const std::string region = name + ":" + std::to_string(b + 1) + "-" + std::to_string(e);
                CHECK_EQ(g->fetch(name, b, e), upper(samtools_window(fasta, region)));
            }
        }
    }
}

TEST(a_stale_index_beside_the_file_is_not_trusted) {
    const auto cs = contigs();
    const fs::path dir = storage_test::fresh_dir("ref-stale"), cache = storage_test::fresh_dir("ref-stale-cache");
    write_fasta(dir / "genome.fa", cs);
    std::ofstream(dir / "genome.fa.fai") << "chr1\t5\t6\t60\t61\n";  // wrong, and older than the FASTA
    fs::last_write_time(dir / "genome.fa.fai", fs::last_write_time(dir / "genome.fa") - std::chrono::hours(1));
    check_windows(*ReferenceGenome::open((dir / "genome.fa").string(), cache.string()), cs);
}

TEST(bad_references_and_windows_are_refused_with_file_and_reason) {
    const fs::path dir = storage_test::fresh_dir("ref-bad"), cache = storage_test::fresh_dir("ref-bad-cache");
    const std::string idx = cache.string();
    auto path = [&](const char* n) { return (dir / n).string(); };

    std::ofstream(path("empty.fa")).close();
    CHECK_THROWS_WITH(ReferenceGenome::open(path("empty.fa"), idx), "empty.fa", "is empty");
    std::ofstream(path("notes.txt")) << "hello\n";
    CHECK_THROWS_WITH(ReferenceGenome::open(path("notes.txt"), idx), "notes.txt", "not a FASTA file");
    std::ofstream(path("uneven.fa")) << ">a\nACGT\nACGTACGT\nAC\n";
    CHECK_THROWS_WITH(ReferenceGenome::open(path("uneven.fa"), idx), "uneven.fa", "could not index");
    CHECK(listing(dir) == (std::vector<std::string>{"empty.fa", "notes.txt", "uneven.fa"}));  // nothing left behind
    CHECK_THROWS_WITH(ReferenceGenome::open(path("missing.fa"), idx), "missing.fa");
    CHECK_THROWS_WITH(ReferenceGenome::open(dir.string(), idx), "not a regular file");
    if (::mkfifo(path("pipe.fa").c_str(), 0600) == 0)
        CHECK_THROWS_WITH(ReferenceGenome::open(path("pipe.fa"), idx), "pipe.fa", "named pipe");

    std::ofstream(path("small.fa")) << ">chr1 first\nACGTNacgt\n>chr2\nGG\n";
    auto g = ReferenceGenome::open(path("small.fa"), idx);
    CHECK_EQ(g->fetch("chr1", 0, 9), std::string("ACGTNACGT"));
    CHECK_THROWS_WITH(g->fetch("chrX", 0, 1), "small.fa", "no contig named 'chrX'");
    CHECK_THROWS_WITH(g->fetch("chr2", 1, 3), "chr2:2-3", "outside chr2 (1-2)");
    CHECK_THROWS_WITH(g->fetch("chr2", -1, 1), "outside chr2");
    CHECK_THROWS_WITH(g->fetch("chr2", 2, 1), "outside chr2");
    CHECK_EQ(g->length("chrX"), int64_t(-1));

    // gzip that is not bgzip: no window can be read without decompressing everything before it.
    if (std::system(("gzip -c '" + path("small.fa") + "' > '" + path("small.fa.gz") + "'").c_str()) == 0)
        CHECK_THROWS_WITH(ReferenceGenome::open(path("small.fa.gz"), idx), "small.fa.gz", "not bgzip", "bgzip >");
}

CHECK_MAIN()
