// A VCF/BCF index checked against its file (vcf_index.h).
#include "vcf_index.h"

#include <fcntl.h>
#include <htslib/bgzf.h>
#include <htslib/kstring.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <vector>

#include "carbon/support/common.h"
#include "index_cache.h"

namespace carbon::storage {

namespace fs = std::filesystem;

namespace {

// The BGZF end-of-file marker, an empty block that bgzip writes last.
constexpr unsigned char kBgzfEof[28] = {0x1f, 0x8b, 0x08, 0x04, 0, 0, 0, 0, 0, 0xff, 0x06, 0, 0x42, 0x43,
                                        0x02, 0,    0x1b, 0,    0x03, 0, 0, 0, 0, 0,    0,    0, 0,    0};

std::string byte_text(uint64_t voffset) { return "byte " + std::to_string(voffset >> 16) + "+" + std::to_string(voffset & 0xffff); }

// The compressed file's blocks, read by pread where an offset of the index points.
class Blocks {
public:
    explicit Blocks(const std::string& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
        if (fd_ < 0) throw Error(path + ": cannot be opened to check its index");
        size_ = uint64_t(::lseek(fd_, 0, SEEK_END));
        unsigned char tail[28] = {};
        data_end_ = size_;
        if (size_ >= 28 && ::pread(fd_, tail, 28, off_t(size_ - 28)) == 28 && std::equal(tail, tail + 28, kBgzfEof)) data_end_ = size_ - 28;
    }
    ~Blocks() { ::close(fd_); }
    Blocks(const Blocks&) = delete;
    Blocks& operator=(const Blocks&) = delete;

    // Where the data ends, as a virtual offset.
    uint64_t end() const { return data_end_ << 16; }

    // `voffset` as the same place written with the block that holds its next byte (an offset at
    // the end of one block is the start of the next), or why it is no place in the file (", which
    // ..." follows the offset in the message).
    std::optional<std::string> normalise(uint64_t& voffset) const {
        for (int hops = 0; hops < 1024; ++hops) {
            const uint64_t c = voffset >> 16, u = voffset & 0xffff;
            if (c == data_end_ && u == 0) return std::nullopt;
            if (c >= data_end_) return "which is past the end of the file's data (" + std::to_string(data_end_) + " bytes)";
            unsigned char h[18] = {};
            if (::pread(fd_, h, 18, off_t(c)) != 18 || h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || !(h[3] & 4) || h[12] != 'B' ||
                h[13] != 'C')
                return "which is not where a BGZF block begins";
            const uint64_t bsize = uint64_t(h[16] | h[17] << 8) + 1;
            unsigned char s[4] = {};
            if (c + bsize > size_ || ::pread(fd_, s, 4, off_t(c + bsize - 4)) != 4)
                return "where the BGZF block at byte " + std::to_string(c) + " is cut short";
            const uint64_t isize = uint64_t(s[0]) | uint64_t(s[1]) << 8 | uint64_t(s[2]) << 16 | uint64_t(s[3]) << 24;
            if (u < isize) return std::nullopt;
            if (u > isize) return "which is past the end of its block (" + std::to_string(isize) + " bytes)";
            voffset = (c + bsize) << 16;
        }
        return "which is followed by more than 1,024 empty blocks";
    }

private:
    std::string path_;
    int fd_;
    uint64_t size_ = 0, data_end_ = 0;
};

struct Span {
    std::string contig;
    int tid = -1;
    uint64_t begin = 0, end = 0;  // virtual offsets of the contig's first record and just past its last
};

// Where the records begin: just past the header.
uint64_t records_begin(htsFile* fp, bool bcf) {
    BGZF* z = fp->fp.bgzf;
    if (bcf) {
        HtsPtr<bcf_hdr_t> h(bcf_hdr_read(fp));
        return h ? uint64_t(bgzf_tell(z)) : UINT64_MAX;
    }
    kstring_t line{0, 0, nullptr};
    uint64_t at = uint64_t(bgzf_tell(z));
    while (bgzf_getline(z, '\n', &line) >= 0 && line.l > 0 && line.s[0] == '#') at = uint64_t(bgzf_tell(z));
    free(line.s);
    return at;
}

// The contig of the record that begins at `voffset`, or why none does.
std::optional<std::string> contig_at(htsFile* fp, bool bcf, bcf_hdr_t* hdr, uint64_t voffset, std::string& contig) {
    if (bgzf_seek(fp->fp.bgzf, int64_t(voffset), SEEK_SET) < 0) return "htslib cannot read the file at " + byte_text(voffset);
    if (bcf) {
        HtsPtr<bcf1_t> rec(bcf_init());
        if (bcf_read(fp, hdr, rec.get()) != 0) return "no BCF record can be read at " + byte_text(voffset);
        const char* name = rec->rid >= 0 && rec->rid < hdr->n[BCF_DT_CTG] ? bcf_hdr_id2name(hdr, rec->rid) : nullptr;
        if (!name) return "the record at " + byte_text(voffset) + " names no contig of the header";
        contig = name;
        return std::nullopt;
    }
    kstring_t line{0, 0, nullptr};
    const int r = bgzf_getline(fp->fp.bgzf, '\n', &line);
    if (r < 0) {
        free(line.s);
        return "no line can be read at " + byte_text(voffset);
    }
    const std::string text(line.s, line.l);
    free(line.s);
    contig = text.substr(0, text.find('\t'));
    return std::nullopt;
}

// Why the loaded index does not describe `path` as it is now, or nothing when it does.
std::optional<std::string> index_problem(const std::string& path, bool bcf, bcf_hdr_t* hdr, VcfIndex& ix,
                                         const std::vector<std::string>& check_contigs) {
    int n = 0;
    const char** names = nullptr;
    if (bcf) {
        if (hts_idx_nseq(ix.idx.get()) > hdr->n[BCF_DT_CTG])
            return "it has records on " + std::to_string(hts_idx_nseq(ix.idx.get())) + " contig ids where the header names " +
                   std::to_string(hdr->n[BCF_DT_CTG]);
        names = bcf_index_seqnames(ix.idx.get(), hdr, &n);
    } else {
        names = tbx_seqnames(ix.tbx.get(), &n);
    }
    std::vector<Span> spans;
    for (int i = 0; i < n; ++i) {
        Span s;
        s.contig = names[i] ? names[i] : "";
        s.tid = bcf ? bcf_hdr_name2id(hdr, names[i]) : tbx_name2id(ix.tbx.get(), names[i]);
        HtsPtr<hts_itr_t> itr(bcf ? bcf_itr_queryi(ix.idx.get(), s.tid, 0, HTS_POS_MAX) : tbx_itr_queryi(ix.tbx.get(), s.tid, 0, HTS_POS_MAX));
        if (!itr) {
            free(names);
            return "htslib cannot query it for contig '" + s.contig + "'";
        }
        if (itr->n_off == 0) continue;
        if (itr->n_off > 1) {
            free(names);
            return "it puts the records of '" + s.contig + "' in " + std::to_string(itr->n_off) +
                   " separate places, where a sorted file holds each contig's records in one";
        }
        s.begin = itr->off[0].u;
        s.end = itr->off[0].v;
        spans.push_back(std::move(s));
    }
    free(names);
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });

    const Blocks blocks(path);
    HtsPtr<htsFile> fp(hts_open(path.c_str(), "r"));
    if (!fp || fp->format.compression != bgzf) return "htslib cannot read the file as BGZF";
    uint64_t expected = records_begin(fp.get(), bcf);
    if (expected == UINT64_MAX) return "htslib cannot read the file's header";
    std::string previous = "the header";
    if (const auto why = blocks.normalise(expected)) return "the header ends at " + byte_text(expected) + ", " + *why;
    // A contig asked for that the index does not name may still be in the file under another
    // name the index gives its records: then every run's first record is checked, not only those
    // of the contigs asked for.
    bool check_all = check_contigs.empty();
    for (const std::string& c : check_contigs)
        check_all = check_all || std::none_of(spans.begin(), spans.end(), [&](const Span& sp) { return sp.contig == c; });
    for (Span& s : spans) {
        uint64_t begin = s.begin, end = s.end;
        if (const auto why = blocks.normalise(begin))
            return "it says the records of '" + s.contig + "' begin at " + byte_text(s.begin) + ", " + *why;
        if (const auto why = blocks.normalise(end)) return "it says the records of '" + s.contig + "' end at " + byte_text(s.end) + ", " + *why;
        if (begin != expected)
            return "it says the records of '" + s.contig + "' begin at " + byte_text(s.begin) + ", where " + previous + " ends at " +
                   byte_text(expected) + " (an index of another file, or of an earlier version of this one)";
        const bool check = check_all || std::find(check_contigs.begin(), check_contigs.end(), s.contig) != check_contigs.end();
        if (check) {
            std::string found;
            if (const auto why = contig_at(fp.get(), bcf, hdr, s.begin, found)) return "at the records of '" + s.contig + "': " + *why;
            if (found != s.contig)
                return "it says the records of '" + s.contig + "' begin at " + byte_text(s.begin) + ", where the file holds a record of '" +
                       found + "'";
        }
        expected = end;
        previous = "the records of '" + s.contig + "'";
        ix.contigs.push_back(s.contig);
    }
    if (expected != blocks.end())
        return (spans.empty() ? "it holds no records"
                              : "it says the last records (of '" + spans.back().contig + "') end at " + byte_text(spans.back().end)) +
               ", where the file's data ends at byte " + std::to_string(blocks.end() >> 16) + " (records the index does not know)";
    return std::nullopt;
}

// A bin of an index as read: the smallest offset of a record overlapping it (a .csi stores it;
// a .tbi's comes from its linear index) and where its own records (its chunks) begin.
struct BinOffsets {
    uint64_t loff, first_own;
};

// Why the smallest offsets of one contig of an index would make htslib skip records, or nothing.
// htslib skips every chunk that ends before the smallest offset it finds for the start of a query,
// so an offset past the records it stands for hides them (found by storage.fuzz_vcf_index in CI,
// seed 84463271097991: one byte of a bin's smallest offset changed, the regions of that contig
// came back empty with no error). What every htslib-written index holds, and is checked here: a
// bin's smallest offset (a .csi's own, a .tbi's linear index at the bin's first window) is at or
// before the bin's own first record; and a .tbi's linear index never decreases.
std::optional<std::string> skipping_offsets(const std::map<uint32_t, BinOffsets>& bins, const std::vector<uint64_t>& linear,
                                            bool csi, int32_t depth) {
    const uint32_t n_bins = uint32_t(((uint64_t(1) << (3 * depth + 3)) - 1) / 7);  // past them: the pseudo-bin
    for (size_t w = 1; w < linear.size(); ++w)
        if (linear[w] < linear[w - 1])
            return "its linear index goes back from " + byte_text(linear[w - 1]) + " to " + byte_text(linear[w]) + " at window " +
                   std::to_string(w) + ", where a sorted file's never does";
    for (const auto& [bin, o] : bins) {
        if (bin >= n_bins || o.first_own == UINT64_MAX) continue;
        uint64_t loff = o.loff;
        if (!csi) {  // the linear index at the bin's first window (htslib's hts_bin_bot)
            int32_t level = 0;
            for (uint32_t b = bin; b; b = (b - 1) >> 3) ++level;
            const uint64_t first = ((uint64_t(1) << (3 * level)) - 1) / 7;
            const uint64_t window = (bin - first) << (3 * (depth - level));
            if (window >= linear.size()) continue;
            loff = linear[window];
        }
        if (loff > o.first_own)
            return "it says the first record overlapping bin " + std::to_string(bin) + " is at " + byte_text(loff) +
                   ", after the bin's own records begin at " + byte_text(o.first_own) + " (htslib would skip records there)";
    }
    return std::nullopt;
}

// Why the content of `file` is not a whole .tbi or .csi, or nothing: every count must fit in the
// bytes that follow it, no bin twice in a contig, nothing after the last contig but the count of
// unplaced records. Checked before htslib loads it: htslib 1.16's loader frees memory it never
// allocated when an index ends inside a bin (found by storage.fuzz_vcf_index).
std::optional<std::string> malformed_index(const std::string& file) {
    constexpr size_t kMaxBytes = size_t(1) << 30;
    BGZF* z = bgzf_open(file.c_str(), "r");
    if (!z) return std::string("htslib cannot open it");
    std::string b;
    char buf[1 << 16];
    ssize_t n = 0;
    while ((n = bgzf_read(z, buf, sizeof buf)) > 0 && b.size() <= kMaxBytes) b.append(buf, size_t(n));
    bgzf_close(z);
    if (n < 0) return std::string("it is not BGZF-compressed data that reads to its end");
    if (b.size() > kMaxBytes) return std::string("it holds more than 1 GiB, far more than any index");
    size_t at = 0;
    bool cut = false;
    auto take = [&](size_t bytes) {
        if (b.size() - at < bytes) cut = true;
        const size_t from = at;
        at = cut ? b.size() : at + bytes;
        return from;
    };
    auto i32 = [&] {
        int32_t v = 0;
        const size_t from = take(4);
        if (!cut) std::memcpy(&v, b.data() + from, 4);
        return v;
    };
    auto count = [&](int32_t v, size_t each) { return v >= 0 && size_t(v) <= (b.size() - at) / each; };
    const std::string magic = b.substr(0, 4);
    take(4);
    const bool tbi = magic == std::string("TBI\1", 4), csi = magic == std::string("CSI\1", 4);
    if (!tbi && !csi) return std::string("it starts with neither TBI\\1 nor CSI\\1");
    auto u64 = [&] {
        uint64_t v = 0;
        const size_t from = take(8);
        if (!cut) std::memcpy(&v, b.data() + from, 8);
        return v;
    };
    int32_t n_ref = 0, depth = 5;  // a .tbi's levels below the root (min_shift 14)
    if (tbi) {
        n_ref = i32();
        for (int k = 0; k < 6; ++k) i32();  // format, columns, meta character, lines to skip
        const int32_t l_nm = i32();
        if (cut || !count(l_nm, 1)) return std::string("it ends inside its contig names");
        take(size_t(l_nm));
    } else {
        i32();  // min_shift
        depth = i32();
        if (cut || depth < 0 || depth > 9) return std::string("its depth of bins is not 0 to 9");
        const int32_t l_aux = i32();
        if (cut || !count(l_aux, 1)) return std::string("it ends inside its header");
        take(size_t(l_aux));
        n_ref = i32();
    }
    if (cut || !count(n_ref, 8)) return std::string("its count of contigs does not fit its size");
    for (int32_t r = 0; r < n_ref; ++r) {
        const std::string where = "contig " + std::to_string(r + 1) + " of " + std::to_string(n_ref);
        const int32_t n_bin = i32();
        if (cut || !count(n_bin, 8)) return "it ends inside " + where + " (bins)";
        std::map<uint32_t, BinOffsets> bins;
        for (int32_t k = 0; k < n_bin; ++k) {
            const uint32_t bin = uint32_t(i32());
            const uint64_t loff = csi ? u64() : 0;  // the smallest offset of a record overlapping the bin
            const int32_t n_chunk = i32();
            if (cut || !count(n_chunk, 16)) return "it ends inside " + where + " (chunks)";
            auto [it, fresh] = bins.try_emplace(bin, BinOffsets{loff, UINT64_MAX});
            if (!fresh) return where + " has bin " + std::to_string(bin) + " twice";
            for (int32_t c = 0; c < n_chunk; ++c) {
                it->second.first_own = std::min(it->second.first_own, u64());
                u64();  // the chunk's end
            }
        }
        std::vector<uint64_t> linear;
        if (tbi) {
            const int32_t n_intv = i32();
            if (cut || !count(n_intv, 8)) return "it ends inside " + where + " (the linear index)";
            linear.resize(size_t(n_intv));
            for (uint64_t& v : linear) v = u64();
        }
        if (const auto why = skipping_offsets(bins, linear, csi, depth)) return where + ": " + *why;
    }
    if (cut || (b.size() - at != 0 && b.size() - at != 8))
        return "it holds " + std::to_string(b.size() - at) + " bytes after its last contig where an index holds none or 8";
    return std::nullopt;
}

// The index at `file`, loaded and checked; why it cannot be used, or nothing.
std::optional<std::string> load_checked(const std::string& path, bool bcf, bcf_hdr_t* hdr, const std::string& file, VcfIndex& ix,
                                        const std::vector<std::string>& check_contigs) {
    ix.file = file;
    ix.contigs.clear();
    if (const auto why = malformed_index(file)) return why;
    if (bcf)
        ix.idx.reset(bcf_index_load3(path.c_str(), file.c_str(), HTS_IDX_SILENT_FAIL));
    else
        ix.tbx.reset(tbx_index_load3(path.c_str(), file.c_str(), HTS_IDX_SILENT_FAIL));
    if (bcf ? !ix.idx : !ix.tbx) return std::string("htslib cannot read it as an index");
    if (!bcf) {  // the columns it reads records by must be a VCF's (tabix -p vcf)
        const tbx_conf_t& c = ix.tbx->conf;
        if (c.preset != tbx_conf_vcf.preset || c.sc != tbx_conf_vcf.sc || c.bc != tbx_conf_vcf.bc || c.ec != tbx_conf_vcf.ec ||
            c.meta_char != tbx_conf_vcf.meta_char || c.line_skip != tbx_conf_vcf.line_skip)
            return "it reads records by columns " + std::to_string(c.sc) + ", " + std::to_string(c.bc) + " and " + std::to_string(c.ec) +
                   " (preset " + std::to_string(c.preset) + "), not as a VCF's (tabix -p vcf)";
    }
    return index_problem(path, bcf, hdr, ix, check_contigs);
}

void build(const std::string& path, bool bcf, const fs::path& file) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    if (ec) throw Error(file.parent_path().string() + ": cannot create the folder for the VCF's index: " + ec.message());
    const std::string tmp = partial_name(file);
    // CSI (min_shift 14) for both: unlike tabix's .tbi it holds positions past 2^29.
    const int rc = bcf ? bcf_index_build3(path.c_str(), tmp.c_str(), 14, 0) : tbx_index_build3(path.c_str(), tmp.c_str(), 14, 0, &tbx_conf_vcf);
    if (rc != 0) {
        fs::remove(tmp, ec);
        throw Error(path + ": htslib could not index it" +
                    (rc == -2 ? std::string(" (it is not compressed with bgzip)")
                              : std::string(" (its records must be sorted by contig and position: bcftools sort)")));
    }
    fs::rename(tmp, file, ec);
    if (ec) throw Error(file.string() + ": cannot store the VCF's index: " + ec.message());
}

}  // namespace

std::string default_vcf_index_dir() { return default_index_cache("vcf-index"); }

std::optional<VcfIndex> open_vcf_index(const std::string& path, bool bcf, bcf_hdr_t* hdr,
                                       const std::vector<std::string>& check_contigs, const std::string& index_dir) {
    std::string own;
    std::error_code ec;
    for (const char* ext : {".tbi", ".csi"})
        if (own.empty() && fs::is_regular_file(path + ext, ec)) own = path + ext;
    if (bcf && own.size() > 4 && own.compare(own.size() - 4, 4, ".tbi") == 0) own.clear();  // a BCF's index is CSI
    if (own.empty()) return std::nullopt;

    VcfIndex ix;
    std::string why;
    if (!index_is_current(own, path)) {
        why = "it is older than the file (the file changed after it was indexed)";
    } else if (const auto problem = load_checked(path, bcf, hdr, own, ix, check_contigs)) {
        why = *problem;
    } else {
        return ix;
    }
    const std::string note = own + " does not describe " + path + " as it is now: " + why + "; using an index built from the file instead";
    const fs::path cached = index_folder(index_dir, path) / "index.csi";
    if (!(fs::is_regular_file(cached, ec) && !load_checked(path, bcf, hdr, cached.string(), ix, check_contigs))) {
        build(path, bcf, cached);
        if (const auto problem = load_checked(path, bcf, hdr, cached.string(), ix, check_contigs))
            throw Error(path + ": the index htslib built from it does not describe it either (" + *problem + ")");
    }
    ix.note = note;
    return ix;
}

}  // namespace carbon::storage
