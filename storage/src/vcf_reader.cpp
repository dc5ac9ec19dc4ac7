// The VCF/BCF reader (see carbon/storage/vcf.h). Text: bytes through FileSource/MemorySource
// (plain, gzip or bgzip, hardened against binary and endless lines), lines through LineReader,
// the column checks that name what is wrong, then htslib's vcf_parse. BCF: htslib's bcf_read.
// Regions: htslib's tabix (.tbi/.csi) or CSI iterators through an index checked against the
// file (vcf_index.h).
#include <htslib/hts.h>
#include <htslib/kstring.h>
#include <htslib/tbx.h>
#include <htslib/vcf.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>

#include "carbon/storage/vcf.h"
#include "carbon/support/common.h"
#include "carbon/support/visible_text.h"
#include "gzip_reader.h"
#include "hts_ptr.h"
#include "vcf_index.h"

namespace carbon::storage {

namespace {

std::vector<std::string> split_tabs(const std::string& line, size_t max_fields) {
    std::vector<std::string> out;
    size_t a = 0;
    for (;;) {
        const size_t b = out.size() + 1 == max_fields ? std::string::npos : line.find('\t', a);
        out.push_back(line.substr(a, b == std::string::npos ? std::string::npos : b - a));
        if (b == std::string::npos) break;
        a = b + 1;
    }
    return out;
}

std::string upper(std::string s) {
    for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

bool regular_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// True when `path` is BGZF-compressed (bgzip or BCF), the only files an index can address.
bool is_bgzf(const std::string& path) {
    HtsPtr<htsFile> fp(hts_open(path.c_str(), "r"));
    return fp && fp->format.compression == bgzf;
}

}  // namespace

std::vector<VcfRegion> parse_vcf_regions(const std::string& text) {
    std::vector<VcfRegion> out;
    size_t a = 0;
    while (a <= text.size()) {
        size_t b = text.find(',', a);
        if (b == std::string::npos) b = text.size();
        const std::string r = text.substr(a, b - a);
        a = b + 1;
        auto bad = [&](const std::string& why) {
            return Error("region '" + r + "' is not CONTIG, CONTIG:FROM- or CONTIG:FROM-TO (1-based, inclusive): " + why);
        };
        if (r.empty()) throw bad("it is empty");
        VcfRegion g;
        const size_t colon = r.rfind(':');
        auto number = [&](const std::string& s) -> int64_t {
            if (s.empty() || s.size() > 15 || s.find_first_not_of("0123456789") != std::string::npos)
                throw bad("'" + s + "' is not a position");
            return std::stoll(s);
        };
        std::string range;
        if (r[0] == '{') {  // {name}:FROM-TO, for names that contain ':' (as htslib writes them)
            const size_t close = r.find('}');
            if (close == std::string::npos) throw bad("'{' without '}'");
            g.contig = r.substr(1, close - 1);
            if (close + 1 < r.size()) {
                if (r[close + 1] != ':') throw bad("expected ':' after '}'");
                range = r.substr(close + 2);
                if (range.empty()) throw bad("nothing after ':'");
            }
        } else if (colon == std::string::npos || r.find_first_not_of("0123456789-", colon + 1) != std::string::npos) {
            g.contig = r;  // a contig name that contains ':' but no range after it
        } else {
            g.contig = r.substr(0, colon);
            range = r.substr(colon + 1);
        }
        if (!range.empty()) {
            const size_t dash = range.find('-');
            const int64_t from = number(dash == std::string::npos ? range : range.substr(0, dash));
            if (from < 1) throw bad("positions start at 1");
            if (from > kVcfMaxPos) throw bad("'" + std::to_string(from) + "' is past 2^31-1, the largest VCF position");
            g.begin = from - 1;
            if (dash == std::string::npos) {
                g.end = from;
            } else if (dash + 1 < range.size()) {
                const int64_t to = number(range.substr(dash + 1));
                if (to < from) throw bad("FROM is after TO");
                if (to > kVcfMaxPos) throw bad("'" + std::to_string(to) + "' is past 2^31-1, the largest VCF position");
                g.end = to;
            }
        }
        if (g.contig.empty()) throw bad("no contig name");
        out.push_back(std::move(g));
        if (b == text.size()) break;
    }
    return out;
}

struct VcfReader::Impl {
    std::string path;
    std::vector<VcfRegion> regions;
    HtsPtr<bcf_hdr_t> hdr;
    HtsPtr<bcf1_t> rec{bcf_init()};
    kstring_t ks{0, 0, nullptr};
    bool bcf = false, indexed = false;
    uint64_t records = 0;  // records read (BCF messages)

    // Text streaming.
    std::unique_ptr<ByteSource> src;
    std::unique_ptr<LineReader> lines;
    // htslib file (BCF, or index queries on bgzipped text).
    HtsPtr<htsFile> fp;
    std::optional<VcfIndex> index;  // checked against the file (vcf_index.h)
    HtsPtr<hts_itr_t> itr;
    size_t region = 0;  // next region to query
    const VcfRegion* current = nullptr;

    ~Impl() { free(ks.s); }

    // Region queries through the file's index where it has one that describes it (its own, or one
    // built into the cache with a note saying why); otherwise the file is streamed.
    void use_index() {
        std::vector<std::string> used;
        for (const VcfRegion& g : regions) used.push_back(g.contig);
        index = open_vcf_index(path, bcf, hdr.get(), used, default_vcf_index_dir());
        if (!index) return;
        if (!bcf) fp.reset(hts_open(path.c_str(), "r"));
        indexed = bool(fp);
        if (indexed) order_regions();
    }

    std::string at_line() const { return path + ":" + std::to_string(lines->line_number()) + ": "; }

    // With the index loaded: the regions in file order (contigs in the order their records
    // come), overlaps merged, so that every record comes once and in the file's order.
    void order_regions() {
        const std::vector<std::string>& contigs = index->contigs;
        auto order = [&](const VcfRegion& g) { return size_t(std::find(contigs.begin(), contigs.end(), g.contig) - contigs.begin()); };
        std::stable_sort(regions.begin(), regions.end(), [&](const VcfRegion& a, const VcfRegion& b) {
            return std::make_pair(order(a), a.begin) < std::make_pair(order(b), b.begin);
        });
        std::vector<VcfRegion> merged;
        for (const VcfRegion& g : regions) {
            if (!merged.empty() && merged.back().contig == g.contig && g.begin <= merged.back().end)
                merged.back().end = std::max(merged.back().end, g.end);
            else
                merged.push_back(g);
        }
        regions = std::move(merged);
    }

    bool wanted(const std::string& chrom, int64_t pos) const {
        if (regions.empty()) return true;
        if (current) return chrom == current->contig && pos >= current->begin && pos < current->end;
        for (const VcfRegion& g : regions)
            if (chrom == g.contig && pos >= g.begin && pos < g.end) return true;
        return false;
    }

    // The header of a text VCF: checks, then the meta lines htslib needs (contigs) and a
    // canonical column line (the samples are never parsed).
    void read_text_header() {
        std::string line, htxt;
        bool saw_columns = false;
        while (!saw_columns && lines->next(line)) {
            if (lines->line_number() == 1) {
                if (line.rfind("##fileformat=VCF", 0) != 0)
                    throw Error(at_line() + "not a VCF file: the first line must be ##fileformat=VCFv4.x");
                htxt += line + "\n";
                continue;
            }
            if (line.rfind("##contig=", 0) == 0) htxt += line + "\n";
            if (line.rfind("##", 0) == 0) continue;
            if (line.rfind("#CHROM", 0) == 0) {
                const auto cols = split_tabs(line, 6);
                static const char* const kCols[] = {"#CHROM", "POS", "ID", "REF", "ALT"};
                for (size_t i = 0; i < 5; ++i)
                    if (i >= cols.size() || cols[i].substr(0, i == 4 ? cols[i].find('\t') : std::string::npos) != kCols[i])
                        throw Error(at_line() + "the column header must start #CHROM POS ID REF ALT, separated by tabs");
                saw_columns = true;
                continue;
            }
            if (line.empty()) continue;
            throw Error(at_line() + "a data line before the #CHROM column header line");
        }
        if (lines->line_number() == 0) throw Error(path + ": the file is empty");
        if (!saw_columns) throw Error(path + ": no #CHROM column header line (is this a VCF file?)");
        htxt += "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";
        hdr.reset(bcf_hdr_init("r"));
        if (!hdr || bcf_hdr_parse(hdr.get(), htxt.data()) != 0)
            throw Error(path + ": htslib could not read the ##fileformat/##contig header lines");
    }

    // One text data line: the checks that say what is wrong, then vcf_parse on its first five
    // columns. False for a line to skip (blank).
    bool parse_text(const std::string& line, const std::string& where, VcfRecord& out) {
        if (line.empty()) return false;
        const auto f = split_tabs(line, 6);
        if (f.size() < 5)
            throw Error(where + "a data line needs at least 5 tab-separated columns (CHROM POS ID REF ALT), this one has " +
                        std::to_string(f.size()));
        const std::string& pos_text = f[1];
        if (pos_text.empty() || pos_text.size() > 15 || pos_text.find_first_not_of("0123456789") != std::string::npos)
            throw Error(where + "POS '" + pos_text.substr(0, 40) + "' is not a positive whole number");
        if (std::stoll(pos_text) < 1) throw Error(where + "POS must be 1 or more (VCF positions are 1-based), not " + pos_text);
        if (std::stoll(pos_text) > kVcfMaxPos)
            throw Error(where + "POS " + pos_text + " is past 2^31-1 = 2147483647, the largest position VCF and BCF can hold");
        const std::string ref = upper(f[3]);
        if (ref.empty() || ref.find_first_not_of("ACGTN") != std::string::npos)
            throw Error(where + "REF '" + f[3].substr(0, 40) + "' is not a sequence of bases A, C, G, T, N");
        if (f[4].empty()) throw Error(where + "ALT is empty (use '.' for no alternative)");
        if (f[0].empty()) throw Error(where + "CHROM is empty");
        ks.l = 0;
        for (size_t i = 0; i < 5; ++i) {
            kputs(f[i].c_str(), &ks);
            kputc('\t', &ks);
        }
        kputs(".\t.\t.", &ks);  // QUAL FILTER INFO: not needed
        if (vcf_parse(&ks, hdr.get(), rec.get()) != 0)
            throw Error(where + "htslib could not parse this record's CHROM POS ID REF ALT columns");
        take(where, out);
        return true;
    }

    // The htslib record into `out`, checked as a text line is (a BCF's records come from htslib's
    // decoder, which leaves these to its callers).
    void take(const std::string& where, VcfRecord& out) {
        if (bcf_unpack(rec.get(), BCF_UN_STR) != 0) throw Error(where + "htslib could not unpack the record");
        if (rec->rid < 0 || rec->rid >= hdr->n[BCF_DT_CTG])
            throw Error(where + "its contig number " + std::to_string(rec->rid) + " is not one of the header's " +
                        std::to_string(hdr->n[BCF_DT_CTG]) + " contigs");
        if (rec->pos < 0 || rec->pos >= kVcfMaxPos)
            throw Error(where + "POS " + std::to_string(int64_t(rec->pos) + 1) + " is outside 1 to 2^31-1 = 2147483647");
        const char* name = bcf_seqname(hdr.get(), rec.get());
        out.chrom = name ? name : "";
        if (out.chrom.empty()) throw Error(where + "CHROM is empty");
        out.pos = rec->pos;
        out.id = (rec->d.id && std::string_view(rec->d.id) != ".") ? rec->d.id : "";
        out.ref = rec->n_allele > 0 ? upper(rec->d.allele[0]) : "";
        out.alts.clear();
        for (unsigned i = 1; i < rec->n_allele; ++i)
            if (std::string_view(rec->d.allele[i]) != ".") out.alts.emplace_back(rec->d.allele[i]);
        if (out.ref.empty() || out.ref.find_first_not_of("ACGTN") != std::string::npos)
            throw Error(where + "REF '" + visible_text(out.ref, 40) + "' is not a sequence of bases A, C, G, T, N");
        out.where = where.substr(0, where.size() - 2);  // without ": "
    }

    bool next_streamed(VcfRecord& out) {
        std::string line;
        while (lines->next(line)) {
            if (!parse_text(line, at_line(), out)) continue;
            if (wanted(out.chrom, out.pos)) return true;
        }
        return false;
    }

    bool next_bcf_streamed(VcfRecord& out) {
        for (;;) {
            const int r = bcf_read(fp.get(), hdr.get(), rec.get());
            if (r == -1) return false;
            const std::string where = path + ": record " + std::to_string(records + 1) + ": ";
            if (r < 0) throw Error(where + "htslib could not decode this BCF record (the file is truncated or damaged)");
            ++records;
            take(where, out);
            if (wanted(out.chrom, out.pos)) return true;
        }
    }

    // Region queries through the index, regions in file order.
    bool next_indexed(VcfRecord& out) {
        for (;;) {
            if (!itr) {
                if (region == regions.size()) return false;
                current = &regions[region++];
                const int tid = bcf ? bcf_hdr_name2id(hdr.get(), current->contig.c_str())
                                    : tbx_name2id(index->tbx.get(), current->contig.c_str());
                if (tid < 0) continue;  // no records on that contig
                const hts_pos_t end = current->end == INT64_MAX ? HTS_POS_MAX : hts_pos_t(current->end);
                itr.reset(bcf ? bcf_itr_queryi(index->idx.get(), tid, current->begin, end)
                              : tbx_itr_queryi(index->tbx.get(), tid, current->begin, end));
                if (!itr) throw Error(path + ": htslib could not query the index for " + current->contig);
            }
            int r;
            if (bcf)
                r = bcf_itr_next(fp.get(), itr.get(), rec.get());
            else
                r = tbx_itr_next(fp.get(), index->tbx.get(), itr.get(), &ks);
            if (r == -1) {
                itr.reset();
                continue;
            }
            if (r < 0) throw Error(path + ": htslib could not read the records of " + current->contig + " through the index");
            if (bcf) {
                take(path + ": " + current->contig + ":" + std::to_string(rec->pos + 1) + ": ", out);
            } else {
                const std::string line(ks.s, ks.l);
                const auto f = split_tabs(line, 3);
                const std::string where = path + ": " + f[0] + ":" + (f.size() > 1 ? f[1] : "?") + ": ";
                if (line.size() > kVcfMaxLine) throw Error(where + "the line is longer than the VCF limit");
                if (!parse_text(line, where, out)) continue;
            }
            if (wanted(out.chrom, out.pos)) return true;
        }
    }
};

VcfReader::VcfReader(const std::string& path, std::vector<VcfRegion> regions) : impl_(std::make_unique<Impl>()) {
    hts_set_log_level(HTS_LOG_OFF);  // every failure is reported by this reader, naming file and record
    Impl& m = *impl_;
    m.path = path;
    m.regions = std::move(regions);
    if (regular_file(path)) {
        HtsPtr<htsFile> probe(hts_open(path.c_str(), "r"));
        if (probe && hts_get_format(probe.get())->format == bcf) {
            m.bcf = true;
            m.fp = std::move(probe);
            m.hdr.reset(bcf_hdr_read(m.fp.get()));
            if (!m.hdr) throw Error(path + ": htslib could not read the BCF header (the file is truncated or damaged)");
            if (!m.regions.empty()) m.use_index();
            return;
        }
    }
    m.src = std::make_unique<FileSource>(path);
    m.lines = std::make_unique<LineReader>(*m.src, path, "VCF", kVcfMaxLine);
    m.read_text_header();
    if (!m.regions.empty() && regular_file(path) && is_bgzf(path)) m.use_index();
}

VcfReader::VcfReader(std::string_view text, const std::string& display_name) : impl_(std::make_unique<Impl>()) {
    hts_set_log_level(HTS_LOG_OFF);
    Impl& m = *impl_;
    m.path = display_name;
    m.src = std::make_unique<MemorySource>(text);
    m.lines = std::make_unique<LineReader>(*m.src, display_name, "VCF", kVcfMaxLine);
    m.read_text_header();
}

VcfReader::~VcfReader() = default;

bool VcfReader::next(VcfRecord& record) {
    Impl& m = *impl_;
    if (m.indexed) return m.next_indexed(record);
    return m.bcf ? m.next_bcf_streamed(record) : m.next_streamed(record);
}

bool VcfReader::is_bcf() const { return impl_->bcf; }

std::vector<std::string> VcfReader::indexed_contigs(const std::string& path, std::string* note) {
    hts_set_log_level(HTS_LOG_OFF);
    if (!regular_file(path)) throw Error(path + ": not a regular file (a distributed run reads it through its index)");
    HtsPtr<htsFile> fp(hts_open(path.c_str(), "r"));
    if (!fp) throw Error(path + ": htslib cannot open it");
    const bool is_bcf = hts_get_format(fp.get())->format == bcf;
    if (fp->format.compression != bgzf)
        throw Error(path + ": not compressed with bgzip, so it has no index (a distributed run reads each contig through one): "
                           "bgzip it and index it (tabix -p vcf FILE.vcf.gz)");
    HtsPtr<bcf_hdr_t> hdr(is_bcf ? bcf_hdr_read(fp.get()) : nullptr);
    if (is_bcf && !hdr) throw Error(path + ": htslib could not read the BCF header (the file is truncated or damaged)");
    auto index = open_vcf_index(path, is_bcf, hdr.get(), {}, default_vcf_index_dir());
    if (!index)
        throw Error(path + ": no tabix or CSI index beside it: index it (tabix -p vcf FILE.vcf.gz, or bcftools index FILE.bcf)");
    if (note) *note = index->note;
    return index->contigs;
}

const std::string& VcfReader::index_note() const {
    static const std::string none;
    return impl_->index ? impl_->index->note : none;
}

bool VcfReader::uses_index() const { return impl_->indexed; }

namespace {

VcfPanel read_panel(VcfReader& reader, const std::string& chrom, std::string_view bases) {
    VcfPanel r;
    VcfRecord rec;
    while (reader.next(rec)) {
        const std::string where = rec.where + ": ";
        const std::string pos_text = std::to_string(rec.pos + 1);
        if (rec.chrom != chrom) {
            r.skipped.push_back(where + "CHROM '" + rec.chrom.substr(0, 80) + "' is not the sequence '" + chrom + "'");
            continue;
        }
        if (rec.pos >= static_cast<int64_t>(bases.size())) {
            r.skipped.push_back(where + "POS " + pos_text + " is past the end of '" + chrom + "' (" + std::to_string(bases.size()) + " bp)");
            continue;
        }
        const char stored = bases[size_t(rec.pos)];
        const char actual = char(std::toupper(static_cast<unsigned char>(stored)));
        if (rec.ref.size() == 1 && rec.ref[0] != actual) {
            r.skipped.push_back(where + "REF " + rec.ref + " does not match '" + chrom + "' at " + pos_text + ", which is " + std::string(1, stored));
            continue;
        }
        for (const std::string& alt : rec.alts) {
            const std::string a = upper(alt);
            if (rec.ref.size() != 1 || a.size() != 1 || std::string_view("ACGT").find(rec.ref[0]) == std::string_view::npos ||
                std::string_view("ACGT").find(a[0]) == std::string_view::npos) {
                r.skipped.push_back(where + rec.ref.substr(0, 40) + ">" + alt.substr(0, 40) +
                                    " is not a single-base substitution (indels and symbolic alleles are skipped)");
                continue;
            }
            if (a == rec.ref) throw Error(where + "ALT " + alt + " equals REF");
            VcfSnv v;
            v.position = rec.pos;
            v.ref = rec.ref[0];
            v.alt = a[0];
            v.label = rec.id;
            r.snvs.push_back(std::move(v));
        }
    }
    return r;
}

}  // namespace

VcfPanel read_vcf_panel(const std::string& path, const std::string& chrom, std::string_view bases) {
    VcfReader reader(path);
    return read_panel(reader, chrom, bases);
}

VcfPanel read_vcf_panel_text(std::string_view text, const std::string& display_name, const std::string& chrom, std::string_view bases) {
    VcfReader reader(text, display_name);
    return read_panel(reader, chrom, bases);
}

}  // namespace carbon::storage
