// The parts of `carbon-cli vep` its forms share (see vep_job.h).
#ifdef CARBON_HAVE_STORAGE

#include "vep_job.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "carbon/common.h"
#include "cli_common.h"

namespace carbon::cli {

std::set<std::string> vep_value_options() {
    return {"model", "reference", "vcf", "window", "regions", "tags", "yarn", "backend", "threads", "chunk"};
}
std::set<std::string> vep_flag_options() { return {"rc", "no-prefix-sharing", "free-tags", "quiet"}; }

namespace {

const char* kColumns = "chrom\tpos\tid\tref\talt\tstatus\twindow_start\twindow_end\tsite_log_odds\twindow_delta\twindow_delta_rc\twindow_delta_mean\n";

std::string upper(std::string s) {
    for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// What is wrong with an alternative allele, or "" when it can be scored.
std::string allele_status(const std::string& ref, const std::string& alt) {
    if (alt.find('[') != std::string::npos || alt.find(']') != std::string::npos ||
        (alt.size() > 1 && (alt.front() == '.' || alt.back() == '.')))
        return "breakend";
    if (alt == "*" || (!alt.empty() && alt.front() == '<')) return "symbolic_allele";
    if (alt.empty() || upper(alt).find_first_not_of("ACGTN") != std::string::npos) return "invalid_allele";
    if (upper(alt) == ref) return "alt_equals_ref";
    return "";
}

struct Row {
    std::string status;
    size_t window_start = 0, window_end = 0;  // 1-based, inclusive; 0: none
    AlleleEffect effect{NAN, NAN, NAN, NAN};
};

}  // namespace

VepSettings vep_settings(const Args& a) {
    VepSettings s;
    s.model = a.required("model");
    s.reference = a.required("reference");
    s.vcf = a.required("vcf");
    s.yarn = a.get_or("yarn", "");
    s.options.scoring.tags = resolve_tags(a.get_or("tags", ""), a.flag("free-tags"));
    s.options.scoring.chunk_tokens = size_t(a.integer("chunk", 512, 1, 1 << 20));
    s.options.window_bp = size_t(a.integer("window", 8192, 1, 1ll << 30));
    s.options.reverse_complement = a.flag("rc");
    s.share_prefix = !a.flag("no-prefix-sharing");
    s.regions_text = a.get_or("regions", "");
    if (a.get("regions")) s.regions = storage::parse_vcf_regions(s.regions_text);
    return s;
}

std::string vep_header(const VepSettings& s) {
    std::string h = std::string("##carbon-cli vep ") + CARBON_VERSION + "\n";
    h += "##model=" + s.model + "\n##reference=" + s.reference + "\n##vcf=" + s.vcf + "\n";
    h += "##window_bp=" + std::to_string(s.options.window_bp) + "\n##reverse_complement=" + (s.options.reverse_complement ? "1" : "0") + "\n";
    h += "##tags=" + s.options.scoring.tags + "\n##regions=" + s.regions_text + "\n##yarn=" + s.yarn + "\n";
    h += std::string("##prefix_sharing=") + (s.share_prefix ? "1" : "0") + "\n#" + kColumns;
    return h;
}

std::string vep_row_key(const storage::VcfRecord& r, size_t i) {
    return r.chrom + '\t' + std::to_string(r.pos + 1) + '\t' + (r.id.empty() ? "." : r.id) + '\t' + r.ref + '\t' +
           (r.alts.empty() ? std::string(".") : r.alts[i]);
}

void write_fully(int fd, const char* data, size_t n, const std::string& what) {
    size_t done = 0;
    while (done < n) {
        const ssize_t w = ::write(fd, data + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) throw Error("cannot write " + what + ": " + std::strerror(errno));
        done += size_t(w);
    }
}

FdCloser::~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
}

VepScorer::VepScorer(VepSettings settings, Model& model, const storage::ReferenceGenome& genome)
    : s_(std::move(settings)), model_(model), genome_(genome) {
    s_.options.scoring.context_tokens = size_t(model_.config().max_position_embeddings);
}

std::string VepScorer::rows(const storage::VcfRecord& r) {
    const VariantOptions& vo = s_.options;
    std::vector<Row> rows(row_count(r));
    auto score = [&]() {
        if (r.alts.empty()) return std::string("no_alt");
        const int64_t len = genome_.length(r.chrom);
        if (len < 0) return std::string("missing_contig");
        const int64_t ref_end = r.pos + int64_t(r.ref.size());
        if (ref_end > len) return std::string("outside_contig");
        const ScoringWindow w = centred_window(size_t(len), size_t(r.pos), size_t(ref_end), vo.window_bp);
        const std::string window = genome_.fetch(r.chrom, int64_t(w.start), int64_t(w.end));
        const size_t q = size_t(r.pos) - w.start;
        // REF N matches any reference letter there (VCF's "unknown"); otherwise the letters agree.
        for (size_t i = 0; i < r.ref.size(); ++i)
            if (r.ref[i] != 'N' && r.ref[i] != window[q + i]) return std::string("ref_mismatch");
        const bool clipped = w.end - w.start < vo.window_bp && size_t(ref_end - r.pos) < vo.window_bp;
        std::vector<std::string> scorable;
        std::vector<size_t> which;
        for (size_t i = 0; i < r.alts.size(); ++i) {
            rows[i].status = allele_status(r.ref, r.alts[i]);
            if (!rows[i].status.empty()) continue;
            rows[i].status = clipped ? "window_clipped" : "ok";
            rows[i].window_start = w.start + 1;
            rows[i].window_end = w.end;
            scorable.push_back(upper(r.alts[i]));
            which.push_back(i);
        }
        if (!scorable.empty()) {
            const SiteEffects e =
                score_site(model_.backend(), model_.tokenizer(), window, q, q + r.ref.size(), scorable, vo, {}, s_.share_prefix);
            tokens_ += e.reference_tokens + e.alt_tokens;
            for (size_t j = 0; j < which.size(); ++j) rows[which[j]].effect = e.alleles[j];
        }
        return std::string();
    };
    const std::string all = score();
    if (!all.empty())
        for (Row& w : rows) w.status = all;

    std::string out;
    for (size_t i = 0; i < rows.size(); ++i) {
        const Row& w = rows[i];
        out += vep_row_key(r, i) + '\t' + w.status + '\t' +
               (w.window_end ? std::to_string(w.window_start) : "NA") + '\t' + (w.window_end ? std::to_string(w.window_end) : "NA") + '\t' +
               tsv_number(w.effect.site_log_odds) + '\t' + tsv_number(w.effect.window_delta) + '\t' +
               tsv_number(w.effect.window_delta_rc) + '\t' + tsv_number(w.effect.window_delta_mean) + '\n';
    }
    return out;
}

}  // namespace carbon::cli

#endif
