// Whole-VCF variant effect scoring: settings, header, the scorer and the writer (see vep_run.h).
#include "carbon/runs/vep_run.h"

#include <cctype>
#include <cmath>

#include "carbon/support/common.h"

namespace carbon::runs {

using storage::format_vep_row;
using storage::kVepColumnLine;

namespace {

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

}  // namespace

std::string vep_header(const VepSettings& s) {
    std::string h = std::string("##carbon-cli vep ") + CARBON_VERSION + "\n";
    h += "##model=" + s.model + "\n##reference=" + s.reference + "\n##vcf=" + s.vcf + "\n";
    h += "##window_bp=" + std::to_string(s.options.window_bp) + "\n##reverse_complement=" + (s.options.reverse_complement ? "1" : "0") + "\n";
    h += "##tags=" + s.options.scoring.tags + "\n##regions=" + s.regions_text + "\n##yarn=" + s.yarn + "\n";
    h += std::string("##prefix_sharing=") + (s.share_prefix ? "1" : "0") + "\n";
    if (!s.weights.empty() && s.weights != "native") h += "##weights=" + s.weights + "\n";  // (as stored: no line, as before)
    h += kVepColumnLine;
    return h;
}

std::string vep_row_key(const VcfRecord& r, size_t i) {
    return r.chrom + '\t' + std::to_string(r.pos + 1) + '\t' + (r.id.empty() ? "." : r.id) + '\t' + r.ref + '\t' +
           (r.alts.empty() ? std::string(".") : r.alts[i]);
}

std::string vep_row_key(std::span<const VcfRecord> site, size_t i) {
    for (const VcfRecord& r : site) {
        const size_t n = VepScorer::row_count(r);
        if (i < n) return vep_row_key(r, i);
        i -= n;
    }
    throw Error("vep_row_key: no row " + std::to_string(i) + " in the site");
}

bool VepSiteReader::next(std::vector<VcfRecord>& site) {
    site.clear();
    if (!has_pending_ && !in_.next(pending_)) return false;
    site.push_back(std::move(pending_));
    has_pending_ = false;
    while (in_.next(pending_)) {
        const VcfRecord& a = site.front();
        if (pending_.chrom != a.chrom || pending_.pos != a.pos || pending_.ref != a.ref) {
            has_pending_ = true;
            break;
        }
        site.push_back(std::move(pending_));
    }
    return true;
}

size_t VepScorer::row_count(std::span<const VcfRecord> site) {
    size_t n = 0;
    for (const VcfRecord& r : site) n += row_count(r);
    return n;
}

void check_vep_regions(const std::vector<VcfRegion>& regions, const GenomeSource& genome) {
    for (const VcfRegion& g : regions) {
        const std::string text = g.contig + (g.begin == 0 && g.end == INT64_MAX ? std::string()
                                                                                : ":" + std::to_string(g.begin + 1) + "-" +
                                                                                      (g.end == INT64_MAX ? std::string() : std::to_string(g.end)));
        const int64_t len = genome.length(g.contig);
        if (len < 0)
            throw Error("--regions: region '" + text + "': " + genome.path() + " has no contig named '" + g.contig +
                        "' (a contig whose name ends in ':digits' is written in braces: {NAME}:FROM-TO)");
        if (g.begin >= len)
            throw Error("--regions: region '" + text + "' starts at " + std::to_string(g.begin + 1) + ", past the end of " + g.contig +
                        " (" + std::to_string(len) + " bp in " + genome.path() + ")");
    }
}

VepScorer::VepScorer(VepSettings settings, Model& model, const GenomeSource& genome)
    : s_(std::move(settings)), model_(model), genome_(genome) {
    check_vep_regions(s_.regions, genome_);
    s_.options.scoring.context_tokens = size_t(model_.config().max_position_embeddings);
}

std::vector<VepRow> VepScorer::score(std::span<const VcfRecord> site, const ScoreProgress& progress) {
    const VariantOptions& vo = s_.options;
    cancelled_ = false;
    std::vector<VepRow> rows;
    std::vector<std::string> alts;  // as written, one per row ("." for a record without any)
    for (const VcfRecord& r : site) {
        if (r.chrom != site.front().chrom || r.pos != site.front().pos || r.ref != site.front().ref)
            throw Error(r.where + ": not the site of " + site.front().where + " (VepScorer::score takes one site's records)");
        for (size_t i = 0; i < row_count(r); ++i) {
            VepRow w;
            w.chrom = r.chrom;
            w.pos = r.pos + 1;
            w.id = r.id.empty() ? "." : r.id;
            w.ref = r.ref;
            w.alt = r.alts.empty() ? "." : r.alts[i];
            w.status = r.alts.empty() ? "no_alt" : "";
            w.site_log_odds = w.window_delta = w.window_delta_rc = w.window_delta_mean = NAN;
            rows.push_back(std::move(w));
            alts.push_back(r.alts.empty() ? std::string() : r.alts[i]);
        }
    }
    if (rows.empty()) return rows;
    const VcfRecord& r = site.front();
    // What stops every row of the site (rows already no_alt keep that).
    auto all = [&](const char* status) {
        for (VepRow& w : rows)
            if (w.status.empty()) w.status = status;
        return rows;
    };
    const int64_t len = genome_.length(r.chrom);
    if (len < 0) return all("missing_contig");
    if (r.pos >= len)
        throw Error(r.where + ": POS " + std::to_string(r.pos + 1) + " is past the end of " + r.chrom + " (" + std::to_string(len) +
                    " bp in " + genome_.path() + "): is the VCF for another assembly than the reference?");
    const int64_t ref_end = r.pos + int64_t(r.ref.size());
    if (ref_end > len) return all("outside_contig");
    const ScoringWindow w = centred_window(size_t(len), size_t(r.pos), size_t(ref_end), vo.window_bp);
    const std::string window = genome_.fetch(r.chrom, int64_t(w.start), int64_t(w.end));
    const size_t q = size_t(r.pos) - w.start;
    // REF N matches any reference letter there (VCF's "unknown"); otherwise the letters agree.
    for (size_t i = 0; i < r.ref.size(); ++i)
        if (r.ref[i] != 'N' && r.ref[i] != window[q + i]) return all("ref_mismatch");
    const bool clipped = w.end - w.start < vo.window_bp && size_t(ref_end - r.pos) < vo.window_bp;
    std::vector<std::string> scorable;
    std::vector<size_t> which;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (!rows[i].status.empty()) continue;  // no_alt
        rows[i].status = allele_status(r.ref, alts[i]);
        if (!rows[i].status.empty()) continue;
        rows[i].status = clipped ? "window_clipped" : "ok";
        rows[i].window_start = int64_t(w.start) + 1;
        rows[i].window_end = int64_t(w.end);
        scorable.push_back(upper(alts[i]));
        which.push_back(i);
    }
    if (scorable.empty()) return rows;
    const SiteEffects e = score_site(model_.backend(), model_.tokenizer(), window, q, q + r.ref.size(), scorable, vo, progress, s_.share_prefix);
    tokens_ += e.reference_tokens + e.alt_tokens;
    cancelled_ = e.cancelled;
    if (cancelled_ || e.alleles.size() != which.size()) return rows;  // stopped: no scores
    for (size_t j = 0; j < which.size(); ++j) {
        VepRow& row = rows[which[j]];
        row.site_log_odds = e.alleles[j].site_log_odds;
        row.window_delta = e.alleles[j].window_delta;
        row.window_delta_rc = e.alleles[j].window_delta_rc;
        row.window_delta_mean = e.alleles[j].window_delta_mean;
    }
    return rows;
}

std::string VepScorer::rows(std::span<const VcfRecord> site) {
    std::string out;
    for (const VepRow& row : score(site)) out += format_vep_row(row);
    return out;
}

storage::VepStored write_vep_run(storage::Project& project, const std::string& tsv, storage::Run identity,
                                 const std::string& status, const RunSettings& extra,
                                 const std::vector<std::pair<std::string, int64_t>>& sequence_ids) {
    identity.settings.insert(identity.settings.end(), extra.begin(), extra.end());
    return storage::store_vep_result(project, tsv, std::move(identity), status, sequence_ids);
}

}  // namespace carbon::runs
