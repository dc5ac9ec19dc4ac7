// The distributed forms of `carbon-cli vep` (driven by carbon-cluster over Ray):
//
// --list-shards: prints {"protocol": 1, "header": H, "shards": [...]} on standard output: the
// header a single run writes, and regions ("{contig}:FROM-TO", 1-based, the last of a contig
// open-ended) that cover the run's records in the VCF's file order, so that their rows
// concatenated are the single run's rows. Needs a bgzipped VCF or a BCF with a current index.
//
// --worker: loads the model once, then serves shard requests. Standard input and output carry
// frames: a 4-byte little-endian length, then that many bytes. The worker first sends a hello
// {"protocol": 1, "carbon": VERSION, "header": H}; each request {"shard": N, "regions": R} is
// answered by {"shard": N, "records": K, "rows": M, "bytes": B} and one frame of B bytes holding
// the rows (TSV, no header), or by {"shard": N, "error": "..."} for a shard that cannot be read;
// {"quit": true} or the end of input stops it. Logs go to standard error only.
#ifdef CARBON_HAVE_STORAGE

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "carbon/support/common.h"
#include "cli_common.h"
#include "vep_job.h"

namespace carbon::cli {

namespace {

constexpr int kProtocol = 1;
constexpr uint32_t kMaxRequest = 1u << 20;

using Json = nlohmann::ordered_json;

bool read_exact(int fd, char* p, size_t n) {
    size_t got = 0;
    while (got < n) {
        const ssize_t r = ::read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) throw Error(std::string("worker: cannot read its input: ") + std::strerror(errno));
        if (r == 0) {
            if (got == 0) return false;
            throw Error("worker: its input ended inside a frame");
        }
        got += size_t(r);
    }
    return true;
}

void send_frame(const std::string& bytes) {
    if (bytes.size() > UINT32_MAX) throw Error("worker: a shard's rows exceed 4 GiB; use smaller shards (--shard-bp)");
    const uint32_t n = uint32_t(bytes.size());
    const unsigned char len[4] = {uint8_t(n), uint8_t(n >> 8), uint8_t(n >> 16), uint8_t(n >> 24)};
    write_fully(1, reinterpret_cast<const char*>(len), 4, "the worker's output");
    write_fully(1, bytes.data(), bytes.size(), "the worker's output");
}

bool receive_frame(std::string& out) {
    unsigned char len[4];
    if (!read_exact(0, reinterpret_cast<char*>(len), 4)) return false;
    const uint32_t n = uint32_t(len[0]) | uint32_t(len[1]) << 8 | uint32_t(len[2]) << 16 | uint32_t(len[3]) << 24;
    if (n > kMaxRequest) throw Error("worker: a request of " + std::to_string(n) + " bytes (the limit is 1 MiB): not a driver");
    out.resize(n);
    return n == 0 || read_exact(0, out.data(), n);
}

std::string region_text(const std::string& contig, int64_t from1, int64_t to1) {
    return "{" + contig + "}:" + std::to_string(from1) + "-" + (to1 > 0 ? std::to_string(to1) : "");
}

}  // namespace

int vep_list_shards(const Args& a, const VepSettings& s) {
    const int64_t shard_bp = a.integer("shard-bp", 2000000, 100, int64_t(1) << 40);
    std::string index_note;
    const std::vector<std::string> contigs = storage::VcfReader::indexed_contigs(s.vcf, &index_note);
    if (!index_note.empty()) std::fprintf(stderr, "note: %s\n", index_note.c_str());
    const auto genome = open_reference(s.reference);
    runs::check_vep_regions(s.regions, *genome);
    Json shards = Json::array();
    for (const std::string& c : contigs) {
        const int64_t len = genome->length(c);
        // The contig's ranges (1-based, inclusive; 0 = open end): the user's regions on it, or all.
        std::vector<std::pair<int64_t, int64_t>> ranges;
        if (s.regions.empty()) {
            ranges.emplace_back(1, 0);
        } else {
            for (const storage::VcfRegion& g : s.regions)
                if (g.contig == c) ranges.emplace_back(g.begin + 1, g.end == INT64_MAX ? 0 : g.end);
            std::sort(ranges.begin(), ranges.end());
            std::vector<std::pair<int64_t, int64_t>> merged;
            for (const auto& r : ranges) {
                if (!merged.empty() && (merged.back().second == 0 || r.first <= merged.back().second + 1))
                    merged.back().second = (merged.back().second == 0 || r.second == 0) ? 0 : std::max(merged.back().second, r.second);
                else
                    merged.push_back(r);
            }
            ranges = std::move(merged);
        }
        for (const auto& [from, to] : ranges) {
            // Split at shard_bp while the known part of the contig lasts; the last piece is open
            // or ends where the range does.
            const int64_t known_end = to > 0 ? to : len;
            int64_t a0 = from;
            while (known_end > 0 && a0 + shard_bp <= known_end) {
                const int64_t b0 = a0 + shard_bp - 1;
                if (b0 == known_end && to > 0) break;
                shards.push_back(region_text(c, a0, b0));
                a0 = b0 + 1;
            }
            shards.push_back(region_text(c, a0, to));
        }
    }
    const Json out = {{"protocol", kProtocol}, {"header", vep_header(s)}, {"shards", shards}};
    std::fputs((out.dump() + "\n").c_str(), stdout);
    return 0;
}

int vep_worker(const Args& a, const VepSettings& settings) {
    if (::isatty(1)) throw Error("--worker speaks a binary protocol on standard output; it is started by carbon-cluster, not by hand");
    const auto genome = open_reference(settings.reference);
    auto m = load_model_from_args(a);
    VepScorer scorer(settings, *m, *genome);
    send_frame(Json({{"protocol", kProtocol}, {"carbon", CARBON_VERSION}, {"header", vep_header(settings)},
                     {"backend", m->backend().describe()}})
                   .dump());
    std::string frame;
    while (receive_frame(frame)) {
        Json req;
        try {
            req = Json::parse(frame);
        } catch (const std::exception&) {
            throw Error("worker: a request that is not JSON: not a driver");
        }
        if (req.value("quit", false)) break;
        if (!req.contains("shard") || !req.contains("regions") || !req["regions"].is_string())
            throw Error("worker: a request without \"shard\" and \"regions\"");
        const Json id = req["shard"];
        std::string rows;
        size_t records = 0, n_rows = 0;
        try {
            storage::VcfReader vcf(settings.vcf, storage::parse_vcf_regions(req["regions"].get<std::string>()));
            runs::VepSiteReader sites(vcf);
            std::vector<storage::VcfRecord> site;
            while (sites.next(site)) {
                records += site.size();
                n_rows += VepScorer::row_count(site);
                rows += scorer.rows(site);
            }
        } catch (const Error& e) {
            send_frame(Json({{"shard", id}, {"error", e.what()}}).dump());
            continue;
        }
        send_frame(Json({{"shard", id}, {"records", records}, {"rows", n_rows}, {"bytes", rows.size()}}).dump());
        send_frame(rows);
        if (!a.flag("quiet"))
            std::fprintf(stderr, "worker: shard %s: %zu records, %zu rows\n", id.dump().c_str(), records, n_rows);
    }
    return 0;
}

}  // namespace carbon::cli

#endif
