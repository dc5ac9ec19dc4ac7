// ReferenceGenome (reference.h) over htslib's faidx.
#include "carbon/storage/reference.h"

#include <htslib/faidx.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "carbon/support/common.h"
#include "carbon/support/input_file.h"
#include "carbon/support/user_dirs.h"

namespace carbon::storage {

namespace fs = std::filesystem;

struct ReferenceGenome::Index {
    faidx_t* fai = nullptr;
    std::unordered_map<std::string, int64_t> lengths;
    ~Index() {
        if (fai) fai_destroy(fai);
    }
};

namespace {

enum class Compression { Plain, Bgzip, Gzip };

// What the first bytes say: gzip (1f 8b), and bgzip when its first member carries the 'BC' extra
// field; anything else is read as plain text, which must start a FASTA record.
Compression sniff(const std::string& path, size_t size) {
    if (size == 0) throw Error(path + ": is empty, not a FASTA file");
    std::ifstream f(path, std::ios::binary);
    unsigned char b[18] = {};
    f.read(reinterpret_cast<char*>(b), sizeof b);
    const size_t got = size_t(f.gcount());
    if (got >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        const bool bgzf = got >= 18 && (b[3] & 4) && b[12] == 'B' && b[13] == 'C';
        return bgzf ? Compression::Bgzip : Compression::Gzip;
    }
    if (b[0] != '>')
        throw Error(path + ": not a FASTA file: it does not start with a '>' header line");
    return Compression::Plain;
}

bool current(const fs::path& index, const fs::path& fasta) {
    std::error_code ec;
    if (!fs::is_regular_file(index, ec)) return false;
    const auto ti = fs::last_write_time(index, ec);
    if (ec) return false;
    return ti >= fs::last_write_time(fasta, ec) && !ec;
}

uint64_t fnv1a(const std::string& s) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

// Builds the index into a folder of its own under index_dir, named after the FASTA as it is now,
// through temporary names so a concurrent reader never sees half an index.
void build_index(const std::string& path, bool bgzip, const fs::path& dir, const fs::path& fai,
                 const fs::path& gzi) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw Error(dir.string() + ": cannot create the folder for the reference's index: " + ec.message());
    const std::string tag = ".partial." + std::to_string(::getpid());
    const std::string tmp_fai = fai.string() + tag, tmp_gzi = gzi.string() + tag;
    const int rc = fai_build3(path.c_str(), tmp_fai.c_str(), bgzip ? tmp_gzi.c_str() : nullptr);
    if (rc != 0) {
        fs::remove(tmp_fai, ec);
        fs::remove(tmp_gzi, ec);
        throw Error(path + ": htslib could not index this FASTA: every line of a sequence but its last must have "
                           "the same length, and names must be unique; htslib's own message is on standard error");
    }
    if (bgzip) fs::rename(tmp_gzi, gzi, ec);
    if (!ec) fs::rename(tmp_fai, fai, ec);
    if (ec) throw Error(dir.string() + ": cannot store the reference's index: " + ec.message());
}

std::vector<ReferenceContig> read_fai(const fs::path& fai, const std::string& path) {
    std::ifstream f(fai);
    if (!f) throw Error(fai.string() + ": cannot read the index of " + path);
    std::vector<ReferenceContig> out;
    std::string line;
    size_t n = 0;
    while (std::getline(f, line)) {
        ++n;
        std::istringstream is(line);
        ReferenceContig c;
        if (!std::getline(is, c.name, '\t') || !(is >> c.length) || c.length < 0)
            throw Error(fai.string() + ":" + std::to_string(n) + ": not a faidx index line (NAME, LENGTH, ...)");
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace

std::string ReferenceGenome::default_index_dir() {
    fs::path base = user_cache_dir();
    if (base.empty()) base = fs::temp_directory_path();
    return (base / "carbon-studio" / "faidx").string();
}

std::unique_ptr<ReferenceGenome> ReferenceGenome::open(const std::string& path, const std::string& index_dir) {
    size_t size = 0;
    ::close(open_regular_file(path, "reference FASTA", size));
    const Compression kind = sniff(path, size);
    if (kind == Compression::Gzip)
        throw Error(path + ": compressed with gzip, not bgzip, so no window of it can be read without reading "
                           "everything before it; recompress it: zcat " + path + " | bgzip > NEW.fa.gz");
    const bool bgzip = kind == Compression::Bgzip;

    fs::path fai = path + ".fai", gzi = path + ".gzi";
    if (!current(fai, path) || (bgzip && !current(gzi, path))) {
        std::error_code ec;
        const auto canonical = fs::weakly_canonical(path, ec).string();
        const auto time = fs::last_write_time(path, ec).time_since_epoch().count();
        char key[17];
        std::snprintf(key, sizeof key, "%016llx",
                      static_cast<unsigned long long>(fnv1a(canonical + "|" + std::to_string(size) + "|" + std::to_string(time))));
        const fs::path dir = fs::path(index_dir) / key;
        fai = dir / "index.fai";
        gzi = dir / "index.gzi";
        if (!fs::is_regular_file(fai, ec) || (bgzip && !fs::is_regular_file(gzi, ec)))
            build_index(path, bgzip, dir, fai, gzi);
    }

    std::unique_ptr<ReferenceGenome> g(new ReferenceGenome);
    g->path_ = path;
    g->index_ = std::make_unique<Index>();
    g->index_->fai = fai_load3(path.c_str(), fai.c_str(), bgzip ? gzi.c_str() : nullptr, 0);
    if (!g->index_->fai) throw Error(path + ": htslib could not open it with its index " + fai.string());
    g->contigs_ = read_fai(fai, path);
    if (g->contigs_.empty()) throw Error(path + ": holds no sequences");
    for (const auto& c : g->contigs_) g->index_->lengths.emplace(c.name, c.length);
    return g;
}

ReferenceGenome::~ReferenceGenome() = default;

int64_t ReferenceGenome::length(const std::string& contig) const {
    const auto it = index_->lengths.find(contig);
    return it == index_->lengths.end() ? -1 : it->second;
}

std::string ReferenceGenome::fetch(const std::string& contig, int64_t begin, int64_t end) const {
    const int64_t len = length(contig);
    if (len < 0) throw Error(path_ + ": has no contig named '" + contig + "'");
    if (begin < 0 || end < begin || end > len)
        throw Error(path_ + ": " + contig + ":" + std::to_string(begin + 1) + "-" + std::to_string(end) +
                    " is outside " + contig + " (1-" + std::to_string(len) + ")");
    if (begin == end) return {};
    hts_pos_t got = 0;
    char* s = nullptr;
    {
        std::lock_guard lock(mutex_);
        s = faidx_fetch_seq64(index_->fai, contig.c_str(), begin, end - 1, &got);
    }
    if (!s || got != end - begin) {
        std::free(s);
        throw Error(path_ + ": cannot read " + contig + ":" + std::to_string(begin + 1) + "-" + std::to_string(end) +
                    " (the file may have changed since it was indexed)");
    }
    std::string out(s, size_t(got));
    std::free(s);
    for (char& c : out) c = char(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

SequenceSetGenome::SequenceSetGenome(std::string description, std::vector<std::pair<std::string, std::string>> named)
    : description_(std::move(description)) {
    for (auto& [name, bases] : named) {
        for (char& c : bases) c = char(std::toupper(static_cast<unsigned char>(c)));
        if (!bases_.emplace(name, std::move(bases)).second)
            throw Error(description_ + ": two sequences are named '" + name +
                        "'; a VCF's CHROM cannot tell them apart: rename one before scoring variants against them");
    }
}

int64_t SequenceSetGenome::length(const std::string& contig) const {
    const auto it = bases_.find(contig);
    return it == bases_.end() ? -1 : int64_t(it->second.size());
}

std::string SequenceSetGenome::fetch(const std::string& contig, int64_t begin, int64_t end) const {
    const auto it = bases_.find(contig);
    if (it == bases_.end()) throw Error(description_ + ": has no sequence named '" + contig + "'");
    const int64_t len = int64_t(it->second.size());
    if (begin < 0 || end < begin || end > len)
        throw Error(description_ + ": " + contig + ":" + std::to_string(begin + 1) + "-" + std::to_string(end) + " is outside " + contig +
                    " (1-" + std::to_string(len) + ")");
    return it->second.substr(size_t(begin), size_t(end - begin));
}

}  // namespace carbon::storage
