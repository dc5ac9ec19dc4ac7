// ReferenceGenome (reference.h) over htslib's faidx.
#include "carbon/storage/reference.h"

#include <htslib/faidx.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unordered_map>

#include "carbon/support/common.h"
#include "carbon/support/input_file.h"
#include "fasta_index.h"
#include "index_cache.h"

namespace carbon::storage {

namespace fs = std::filesystem;

struct ReferenceGenome::Index {
    std::vector<FaiEntry> entries;
    std::unordered_map<std::string, size_t> by_name;
    std::unique_ptr<RawFasta> raw;
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

// Builds the index into a folder of its own under index_dir, named after the FASTA as it is now,
// through temporary names so a concurrent reader never sees half an index.
void build_index(const std::string& path, bool bgzip, const fs::path& dir, const fs::path& fai,
                 const fs::path& gzi) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw Error(dir.string() + ": cannot create the folder for the reference's index: " + ec.message());
    const std::string tmp_fai = partial_name(fai), tmp_gzi = partial_name(gzi);
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

// The index at `fai` (and `gzi`), loaded and checked against the FASTA; the reason it does not
// describe the FASTA as it is now, or nothing when it does.
std::optional<std::string> load_checked(const std::string& path, bool bgzip, const fs::path& fai, const fs::path& gzi,
                                        std::vector<FaiEntry>& entries, std::unique_ptr<RawFasta>& raw) {
    try {
        entries = read_fai_file(fai.string(), path);
        raw = std::make_unique<RawFasta>(path, bgzip, gzi.string());
        return check_fai_layout(entries, *raw, path);
    } catch (const Error& e) {
        return std::string(e.what());
    }
}

}  // namespace

std::string ReferenceGenome::default_index_dir() { return default_index_cache("faidx"); }

std::unique_ptr<ReferenceGenome> ReferenceGenome::open(const std::string& path, const std::string& index_dir) {
    size_t size = 0;
    ::close(open_regular_file(path, "reference FASTA", size));
    const Compression kind = sniff(path, size);
    if (kind == Compression::Gzip)
        throw Error(path + ": compressed with gzip, not bgzip, so no window of it can be read without reading "
                           "everything before it; recompress it: zcat " + path + " | bgzip > NEW.fa.gz");
    const bool bgzip = kind == Compression::Bgzip;

    std::unique_ptr<ReferenceGenome> g(new ReferenceGenome);
    g->path_ = path;
    g->index_ = std::make_unique<Index>();
    Index& x = *g->index_;

    // The FASTA's own index when it is current and describes the file as it is; otherwise one built
    // into index_dir (never beside the user's file), checked the same way.
    const fs::path own_fai = path + ".fai", own_gzi = path + ".gzi";
    if (index_is_current(own_fai, path) && (!bgzip || index_is_current(own_gzi, path))) {
        const auto why = load_checked(path, bgzip, own_fai, own_gzi, x.entries, x.raw);
        if (!why) return finish(std::move(g));
        g->index_note_ = own_fai.string() + " does not describe " + path + " as it is now (" + *why +
                         "); using an index built from the FASTA instead";
    }
    std::error_code ec;
    const fs::path dir = index_folder(index_dir, path);
    const fs::path fai = dir / "index.fai", gzi = dir / "index.gzi";
    if (fs::is_regular_file(fai, ec) && (!bgzip || fs::is_regular_file(gzi, ec)) &&
        !load_checked(path, bgzip, fai, gzi, x.entries, x.raw))
        return finish(std::move(g));
    build_index(path, bgzip, dir, fai, gzi);
    if (const auto why = load_checked(path, bgzip, fai, gzi, x.entries, x.raw)) throw Error(path + ": " + *why);
    return finish(std::move(g));
}

std::unique_ptr<ReferenceGenome> ReferenceGenome::finish(std::unique_ptr<ReferenceGenome> g) {
    Index& x = *g->index_;
    if (x.entries.empty()) throw Error(g->path_ + ": holds no sequences");
    for (size_t i = 0; i < x.entries.size(); ++i) {
        x.by_name.emplace(x.entries[i].name, i);
        g->contigs_.push_back({x.entries[i].name, x.entries[i].length});
    }
    return g;
}

ReferenceGenome::~ReferenceGenome() = default;

int64_t ReferenceGenome::length(const std::string& contig) const {
    const auto it = index_->by_name.find(contig);
    return it == index_->by_name.end() ? -1 : index_->entries[it->second].length;
}

std::string ReferenceGenome::fetch(const std::string& contig, int64_t begin, int64_t end) const {
    const int64_t len = length(contig);
    if (len < 0) throw Error(path_ + ": has no contig named '" + contig + "'");
    if (begin < 0 || end < begin || end > len)
        throw Error(path_ + ": " + contig + ":" + std::to_string(begin + 1) + "-" + std::to_string(end) +
                    " is outside " + contig + " (1-" + std::to_string(len) + ")");
    std::string out = fetch_bases(index_->entries[index_->by_name.at(contig)], *index_->raw, begin, end, path_);
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
