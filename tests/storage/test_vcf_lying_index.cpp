// Issue 31, class 2 (the VCF's side): a .tbi/.csi is checked against the file it indexes before
// region queries trust it. A corpus of indexes that do not describe their file (another file's,
// an earlier version's, one from before records were appended, one without a contig, one whose
// content ends inside a bin, one that reads other columns, one whose smallest offset of a bin or
// linear-index window lies past the records it stands for, garbage, cut short, older than the file), each
// beside a bgzipped VCF or a BCF: VcfReader reads the regions through an index htslib builds into
// the cache folder instead, says why (index_note), gives exactly the records a stream of the file
// gives, and leaves the user's index byte-identical. The file's own true index is used without a
// note; a plain VCF with an index beside it is streamed; an index of a file htslib cannot index
// (unsorted) ends in a refusal that says so; indexed_contigs (the distributed run's list) is
// checked the same way. Every file is written here through htslib.
#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <htslib/tbx.h>
#include <htslib/vcf.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "carbon/storage/vcf.h"
#include "carbon/support/common.h"
#include "check.h"
#include "hts_files.h"
#include "storage_test_util.h"

using namespace carbon::storage;
namespace fs = std::filesystem;
using storage_test::file_bytes;
using storage_test::fresh_dir;

namespace {

const fs::path& dir() {
    static const fs::path d = fresh_dir("vcf-lying-index");
    return d;
}

struct Rec {
    std::string chrom;
    int pos;
};

// A VCF's text: ##contig lines for chr1..chr3, then the records as given.
std::string vcf_text(const std::vector<Rec>& recs) {
    std::string t = "##fileformat=VCFv4.2\n##contig=<ID=chr1,length=100000>\n##contig=<ID=chr2,length=100000>\n"
                    "##contig=<ID=chr3,length=100000>\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";
    for (const Rec& r : recs) t += r.chrom + "\t" + std::to_string(r.pos) + "\t.\tA\tC\t.\t.\t.\n";
    return t;
}

// Records on chr1..chr3 at every `step`-th position from `from` (small BGZF blocks: many of them).
// `last_until`: where the last contig's records stop (an earlier version before more were appended).
std::vector<Rec> records(int from, int step, bool with_chr2 = true, int last_until = 60000) {
    std::vector<Rec> out;
    for (const char* c : {"chr1", "chr2", "chr3"}) {
        if (!with_chr2 && std::string(c) == "chr2") continue;
        for (int p = from; p < (std::string(c) == "chr3" ? last_until : 60000); p += step) out.push_back({c, p});
    }
    return out;
}

void write_file(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// `text` bgzipped to `path`, or a BCF when `bcf`.
void write_vcf(const fs::path& path, const std::string& text, bool bcf) { CHECK(storage_test::write_vcf_as(text, path.string(), bcf ? "wb" : "wz")); }

// The file's own true index beside it (text: .tbi; BCF: .csi); its bytes.
std::string true_index_of(const fs::path& path, bool bcf) {
    const std::string idx = path.string() + (bcf ? ".csi" : ".tbi");
    CHECK_EQ(bcf ? bcf_index_build3(path.c_str(), idx.c_str(), 14, 0) : tbx_index_build3(path.c_str(), idx.c_str(), 0, 0, &tbx_conf_vcf), 0);
    return file_bytes(idx);
}

// Makes `index` newer than its file, so that only its content can give it away.
void touch_later(const fs::path& index, const fs::path& data) {
    fs::last_write_time(index, fs::last_write_time(data) + std::chrono::seconds(5));
}

std::vector<VcfRegion> some_regions() {
    return parse_vcf_regions("chr1:100-20000,chr2,chr3:30000-59999,chr1:40000-45000");
}

// Records through a reader, as "chrom:pos".
std::vector<std::string> read_all(VcfReader& r) {
    std::vector<std::string> out;
    VcfRecord rec;
    while (r.next(rec)) out.push_back(rec.chrom + ":" + std::to_string(rec.pos + 1));
    return out;
}

// The records a stream of `path` gives for the regions (no index: a copy without one).
std::vector<std::string> streamed(const fs::path& path, const std::vector<VcfRegion>& regions) {
    const fs::path copy = dir() / ("stream-" + path.filename().string());
    fs::copy_file(path, copy, fs::copy_options::overwrite_existing);
    VcfReader r(copy.string(), regions);
    CHECK(!r.uses_index());
    auto out = read_all(r);
    std::sort(out.begin(), out.end());
    return out;
}

struct Lie {
    const char* name;
    std::string (*make)(bool bcf);  // the bytes of the lying index
    const char* why;                // a part of the note
};

// An index file's content (BGZF-compressed, as htslib writes it), and content compressed again,
// the first `keep` of it.
std::string inflated(const std::string& bytes) {
    const fs::path p = dir() / "inflate.tmp";
    write_file(p, bytes);
    BGZF* z = bgzf_open(p.c_str(), "r");
    std::string out;
    char buf[4096];
    for (ssize_t n; z && (n = bgzf_read(z, buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
    if (z) bgzf_close(z);
    return out;
}
std::string recompressed(const std::string& content, double keep) {
    const fs::path p = dir() / "deflate.tmp";
    BGZF* z = bgzf_open(p.c_str(), "w");
    CHECK(z && bgzf_write(z, content.data(), size_t(double(content.size()) * keep)) >= 0 && bgzf_close(z) == 0);
    return file_bytes(p);
}

// Where, in an index's content, contig 2's middle smallest offset is: a .csi's first real bin's
// own (past the pseudo-bin, which holds counts), a .tbi's linear index entry halfway along.
size_t middle_offset_at(const std::string& t) {
    size_t at = 4;
    auto i32 = [&] { int32_t v; std::memcpy(&v, t.data() + at, 4); at += 4; return v; };
    const bool csi = t.compare(0, 4, std::string("CSI\1", 4)) == 0;
    int32_t depth = 5, n_ref = 0;
    if (csi) {  // min_shift, depth, l_aux, aux, n_ref
        i32();
        depth = i32();
        at += size_t(i32());
        n_ref = i32();
    } else {  // n_ref, format, three columns, meta character, lines to skip, l_nm, names
        n_ref = i32();
        at += 24;
        at += size_t(i32());
    }
    const uint32_t n_bins = uint32_t(((uint64_t(1) << (3 * depth + 3)) - 1) / 7);
    CHECK(n_ref >= 2);
    for (int32_t r = 0; r < 2; ++r) {
        const int32_t n_bin = i32();
        size_t candidate = 0;
        for (int32_t k = 0; k < n_bin; ++k) {
            const uint32_t bin = uint32_t(i32());
            if (csi && bin < n_bins && !candidate) candidate = at;
            if (csi) at += 8;
            at += 16 * size_t(i32());
        }
        if (!csi) {
            const int32_t n_intv = i32();
            candidate = at + 8 * size_t(n_intv / 2);
            at += 8 * size_t(n_intv);
        }
        if (r == 1) return candidate;
    }
    return 0;
}

// Another file's true index (written beside that file).
std::string index_of(const std::string& name, const std::string& text, bool bcf) {
    const fs::path other = dir() / (name + (bcf ? ".bcf" : ".vcf.gz"));
    write_vcf(other, text, bcf);
    return true_index_of(other, bcf);
}

}  // namespace

TEST(a_lying_index_is_replaced_by_one_built_in_the_cache_and_the_records_are_the_files) {
    setenv("XDG_CACHE_HOME", (dir() / "cache").c_str(), 1);
    const std::string text = vcf_text(records(7, 13));
    const Lie lies[] = {
        {"another file's", [](bool bcf) { return index_of("other", vcf_text(records(5, 17)), bcf); }, "does not describe"},
        {"an earlier version's", [](bool bcf) { return index_of("earlier", vcf_text(records(7, 26)), bcf); }, "does not describe"},
        // The same bytes up to the last records: where those end gives it away.
        {"before records were appended", [](bool bcf) { return index_of("appended", vcf_text(records(7, 13, true, 45000)), bcf); },
         "does not describe"},
        {"one without chr2", [](bool bcf) { return index_of("nochr2", vcf_text(records(7, 13, false)), bcf); }, "does not describe"},
        {"garbage", [](bool) { return std::string(4000, 'x'); }, "it starts with neither TBI\\1 nor CSI\\1"},
        {"cut short", [](bool bcf) { const std::string t = index_of("cut", vcf_text(records(7, 13)), bcf); return t.substr(0, t.size() / 2); },
         "it is not BGZF-compressed data that reads to its end"},
        // Whole BGZF, its content ending inside a bin: htslib 1.16's loader frees memory it never
        // allocated there, so it must never see one.
        {"ending inside a bin", [](bool bcf) { return recompressed(inflated(index_of("bin", vcf_text(records(7, 13)), bcf)), 0.6); },
         "it ends inside contig"},
        // chr3's records under another name: asked for chr3, the index knows none; its run of
        // 'chr0' starts with a chr3 record (found by storage.fuzz_vcf_index in CI, seed 55467930205849).
        {"a contig renamed", [](bool bcf) {
             std::string t = inflated(index_of("renamed", vcf_text(records(7, 13)), bcf));
             const size_t at = t.find(std::string("chr3\0", 5));
             if (at != std::string::npos) t[at + 3] = '0';
             return recompressed(t, 1.0);
         }, "does not describe"},
        // One byte of a smallest offset changed (the top byte, as storage.fuzz_vcf_index did in CI,
        // seed 84463271097991): htslib skipped chr2's records from there with no error.
        {"a smallest offset past its records", [](bool bcf) {
             std::string t = inflated(index_of("loff", vcf_text(records(7, 13)), bcf));
             const size_t at = middle_offset_at(t);
             CHECK(at > 0 && at + 8 <= t.size());
             if (at > 0 && at + 8 <= t.size()) t[at + 7] = 0x3d;
             return recompressed(t, 1.0);
         }, "does not describe"},
        {"read by other columns", [](bool bcf) {
             std::string t = inflated(index_of("cols", vcf_text(records(7, 13)), bcf));
             if (!bcf && t.size() > 16) t[12] = 5;  // col_seq (TBI: magic, n_ref, format, col_seq)
             return recompressed(t, 1.0);
         }, "does not describe"},
    };
    for (const bool bcf : {false, true}) {
        const fs::path vcf = dir() / (bcf ? "data.bcf" : "data.vcf.gz");
        write_vcf(vcf, text, bcf);
        const auto want = streamed(vcf, some_regions());
        CHECK(want.size() > 1000);
        const fs::path own = vcf.string() + (bcf ? ".csi" : ".tbi");
        // The true index: used, no note, the same records.
        true_index_of(vcf, bcf);
        {
            VcfReader r(vcf.string(), some_regions());
            CHECK(r.uses_index());
            CHECK(r.index_note().empty());
            auto got = read_all(r);
            std::sort(got.begin(), got.end());
            CHECK(got == want);
        }
        const std::string true_index = file_bytes(own);
        for (const Lie& lie : lies) {
            if (bcf && (std::string(lie.name) == "read by other columns" || std::string(lie.name) == "a contig renamed"))
                continue;  // a BCF's index names no columns and no contigs (the header does)
            fs::remove_all(dir() / "cache");
            write_file(own, lie.make(bcf));
            touch_later(own, vcf);
            const std::string before = file_bytes(own);
            VcfReader r(vcf.string(), some_regions());
            std::printf("  %s, %s: %s\n", bcf ? "BCF" : "bgzip", lie.name, r.index_note().c_str());
            CHECK(r.uses_index());
            CHECK(r.index_note().find(lie.why) != std::string::npos);
            CHECK(r.index_note().find("using an index built from the file instead") != std::string::npos);
            auto got = read_all(r);
            std::sort(got.begin(), got.end());
            CHECK(got == want);
            CHECK(file_bytes(own) == before);
            std::string note;
            const auto contigs = VcfReader::indexed_contigs(vcf.string(), &note);
            CHECK(contigs == (std::vector<std::string>{"chr1", "chr2", "chr3"}));
            CHECK(!note.empty());
        }
        // Older than the file: the same.
        write_file(own, true_index);
        fs::last_write_time(own, fs::last_write_time(vcf) - std::chrono::seconds(60));
        {
            VcfReader r(vcf.string(), some_regions());
            CHECK(r.index_note().find("older than the file") != std::string::npos);
            auto got = read_all(r);
            std::sort(got.begin(), got.end());
            CHECK(got == want);
        }
        fs::remove(own);
    }
}

TEST(what_an_index_cannot_help_with) {
    setenv("XDG_CACHE_HOME", (dir() / "cache").c_str(), 1);
    // A plain VCF with an index beside it: streamed, no word needed.
    const fs::path plain = dir() / "plain.vcf";
    write_file(plain, vcf_text(records(3, 101)));
    write_file(plain.string() + ".tbi", std::string(100, 'x'));
    touch_later(plain.string() + ".tbi", plain);
    {
        VcfReader r(plain.string(), some_regions());
        CHECK(!r.uses_index());
        CHECK(!read_all(r).empty());
    }
    // A header-only file and its true index: no records, no complaint.
    const fs::path empty = dir() / "empty.vcf.gz";
    write_vcf(empty, vcf_text({}), false);
    true_index_of(empty, false);
    {
        VcfReader r(empty.string(), some_regions());
        CHECK(r.index_note().empty());
        CHECK(read_all(r).empty());
    }
    // An unsorted file with another file's index: htslib cannot build one either; refused.
    std::vector<Rec> unsorted = records(3, 101);
    std::swap(unsorted[2], unsorted[40]);
    const fs::path bad = dir() / "unsorted.vcf.gz";
    write_vcf(bad, vcf_text(unsorted), false);
    write_file(bad.string() + ".tbi", index_of("sorted", vcf_text(records(3, 101)), false));
    touch_later(bad.string() + ".tbi", bad);
    bool threw = false;
    try {
        VcfReader r(bad.string(), some_regions());
        read_all(r);
    } catch (const carbon::Error& e) {
        threw = true;
        std::printf("  unsorted: %s\n", e.what());
        CHECK(std::string(e.what()).find("sorted by contig and position") != std::string::npos);
    }
    CHECK(threw);
}

CHECK_MAIN()
