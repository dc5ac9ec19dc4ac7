// carbon-cli vep: whole-VCF variant effect scoring against a reference genome. Streams the VCF
// (htslib: VCF/BCF, plain or bgzipped, regions through its index), fetches each variant's window
// from the reference (faidx), scores every alternative allele of a record against one reference
// pass (score_site: alternatives fork the reference's cache before their first change), and
// writes one row per (variant, alt) in input order. Variants that cannot be scored get a status
// instead of a score; nothing is fatal but a file that is not what it claims to be.
//
// The output grows in OUT.partial, one record's rows at a time, and is renamed to OUT when the
// run is complete; --resume continues a killed run from the rows already in OUT.partial (rows are
// a function of the record and the settings, so the result is the same bytes as one run).
#include "commands.h"

#include "carbon/common.h"

#ifndef CARBON_HAVE_STORAGE

namespace carbon::cli {

int cmd_vep(const std::vector<std::string>&) {
    throw Error("this carbon-cli was built without storage/ (vep reads VCF and FASTA through htslib; install libhts-dev and rebuild)");
}

}  // namespace carbon::cli

#else

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "carbon/storage/reference.h"
#include "carbon/storage/vcf.h"
#include "carbon/variants.h"
#include "cli_args.h"
#include "cli_common.h"

namespace carbon::cli {

namespace {

const char* kVepUsage = R"(usage: carbon-cli vep --model DIR --reference GENOME.fa[.gz] --vcf VARIANTS.vcf[.gz]|.bcf --out SCORES.tsv
             [--window BP] [--rc] [--regions CHR:FROM-TO,...] [--tags T1,T2 [--free-tags]] [--resume]
             [--no-prefix-sharing] [--yarn F] [--backend auto|cpu|cuda] [--threads N] [--chunk N] [--quiet]
  Scores every alternative allele of every VCF record (multi-allelic records are split) on a
  window of --window bases (default 8192) of the reference centred on the variant:
  window_delta = S(alt window) - S(ref window), S the base-level mean log p; for single-base
  substitutions also site_log_odds = log p(ref) - log p(alt) from the FNS marginal at the base;
  with --rc also the reverse-complement delta and the mean of both strands.
  One row per (variant, alt), in the VCF's order: chrom, pos, id, ref, alt, status, window_start,
  window_end, site_log_odds, window_delta, window_delta_rc, window_delta_mean; '#' lines first
  hold the settings. status is ok, or what stopped or changed the scoring:
    window_clipped   the window runs off a contig end: scored on the bases there are
    ref_mismatch     REF is not the reference's sequence at POS (not scored)
    missing_contig   the reference has no such contig (not scored)
    outside_contig   REF runs past the contig's end (not scored)
    symbolic_allele  <DEL>, <*>, '*' and the like (not scored)
    breakend         a breakend (t[p[, ]p]t, .t, t.) (not scored)
    invalid_allele   ALT has letters other than A, C, G, T, N (not scored)
    alt_equals_ref   ALT is REF (not scored)
    no_alt           the record has no alternative ('.'); one row, not scored
  --regions keeps records whose POS lies in one of the regions (1-based, inclusive), through the
  VCF's tabix/CSI index when it has a current one. The output is written to SCORES.tsv.partial
  and renamed when complete; --resume continues a run that was stopped or killed, and the
  result is the same bytes as an uninterrupted run. --no-prefix-sharing scores each alternative
  whole (the plain method; for comparison).
)";

const char* kColumns = "chrom\tpos\tid\tref\talt\tstatus\twindow_start\twindow_end\tsite_log_odds\twindow_delta\twindow_delta_rc\twindow_delta_mean\n";

bool all_of_letters(const std::string& s, const char* letters) { return s.find_first_not_of(letters) == std::string::npos; }

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
    if (alt.empty() || !all_of_letters(upper(alt), "ACGTN")) return "invalid_allele";
    if (upper(alt) == ref) return "alt_equals_ref";
    return "";
}

struct Row {
    std::string status;
    size_t window_start = 0, window_end = 0;  // 1-based, inclusive; 0: none
    AlleleEffect effect{NAN, NAN, NAN, NAN};
};

std::string format_rows(const storage::VcfRecord& r, const std::vector<std::string>& alts, const std::vector<Row>& rows) {
    std::string out;
    for (size_t i = 0; i < rows.size(); ++i) {
        const Row& w = rows[i];
        out += r.chrom + '\t' + std::to_string(r.pos + 1) + '\t' + (r.id.empty() ? "." : r.id) + '\t' + r.ref + '\t' + alts[i] + '\t' +
               w.status + '\t' + (w.window_end ? std::to_string(w.window_start) : "NA") + '\t' +
               (w.window_end ? std::to_string(w.window_end) : "NA") + '\t' + tsv_number(w.effect.site_log_odds) + '\t' +
               tsv_number(w.effect.window_delta) + '\t' + tsv_number(w.effect.window_delta_rc) + '\t' +
               tsv_number(w.effect.window_delta_mean) + '\n';
    }
    return out;
}

// The rows of one record (one per alternative; one "no_alt" row without any).
std::vector<Row> score_record(Model& m, const storage::ReferenceGenome& genome, const storage::VcfRecord& r,
                              const VariantOptions& vo, bool share_prefix, size_t& tokens) {
    const size_t n_rows = std::max<size_t>(1, r.alts.size());
    std::vector<Row> rows(n_rows);
    auto all = [&](const std::string& status) {
        for (Row& w : rows) w.status = status;
        return rows;
    };
    if (r.alts.empty()) return all("no_alt");
    const int64_t len = genome.length(r.chrom);
    if (len < 0) return all("missing_contig");
    const int64_t ref_end = r.pos + int64_t(r.ref.size());
    if (ref_end > len) return all("outside_contig");
    const ScoringWindow w = centred_window(size_t(len), size_t(r.pos), size_t(ref_end), vo.window_bp);
    const std::string window = genome.fetch(r.chrom, int64_t(w.start), int64_t(w.end));
    const size_t q = size_t(r.pos) - w.start;
    const std::string at = window.substr(q, r.ref.size());
    // REF N matches any reference letter there (VCF's "unknown"); otherwise the letters agree.
    bool matches = true;
    for (size_t i = 0; i < at.size(); ++i)
        if (r.ref[i] != 'N' && r.ref[i] != at[i]) matches = false;
    if (!matches) return all("ref_mismatch");
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
    if (scorable.empty()) return rows;
    const SiteEffects e = score_site(m.backend(), m.tokenizer(), window, q, q + r.ref.size(), scorable, vo, {}, share_prefix);
    tokens += e.reference_tokens + e.alt_tokens;
    for (size_t j = 0; j < which.size(); ++j) rows[which[j]].effect = e.alleles[j];
    return rows;
}

// Reads a partial output: the number of complete rows after the header, truncating a torn last
// line. Error when its header is not this run's (different settings).
size_t resume_point(const std::string& partial, const std::string& header) {
    std::ifstream in(partial, std::ios::binary);
    if (!in) throw Error("--resume: cannot read " + partial + ": " + std::strerror(errno));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.size() < header.size()) {
        if (header.compare(0, text.size(), text) != 0)
            throw Error("--resume: " + partial + " is not a partial output of this command (its first lines differ)");
        return SIZE_MAX;  // killed while writing the header: start again
    }
    if (text.compare(0, header.size(), header) != 0)
        throw Error("--resume: " + partial + " was made with other settings (its '#' lines differ from this run's); "
                    "run again with the same options, or remove it to start over");
    const size_t last_nl = text.rfind('\n');
    const size_t keep = last_nl == std::string::npos || last_nl + 1 < header.size() ? header.size() : last_nl + 1;
    if (keep < text.size() && ::truncate(partial.c_str(), off_t(keep)) != 0)
        throw Error("--resume: cannot truncate " + partial + ": " + std::strerror(errno));
    return size_t(std::count(text.begin() + std::ptrdiff_t(header.size()), text.begin() + std::ptrdiff_t(keep), '\n'));
}

void write_all(int fd, const std::string& s, const std::string& path) {
    size_t done = 0;
    while (done < s.size()) {
        const ssize_t w = ::write(fd, s.data() + done, s.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) throw Error("cannot write " + path + ": " + std::strerror(errno));
        done += size_t(w);
    }
}

}  // namespace

int cmd_vep(const std::vector<std::string>& argv) {
    if (wants_help(argv, kVepUsage)) return 0;
    Args a(argv, {"model", "reference", "vcf", "out", "window", "regions", "tags", "yarn", "backend", "threads", "chunk"},
           {"rc", "resume", "no-prefix-sharing", "free-tags", "quiet"});
    const std::string ref_path = a.required("reference"), vcf_path = a.required("vcf"), out_path = a.required("out");
    VariantOptions vo;
    vo.scoring.tags = resolve_tags(a.get_or("tags", ""), a.flag("free-tags"));
    vo.scoring.chunk_tokens = size_t(a.integer("chunk", 512, 1, 1 << 20));
    vo.window_bp = size_t(a.integer("window", 8192, 1, 1ll << 30));
    vo.reverse_complement = a.flag("rc");
    const bool share = !a.flag("no-prefix-sharing");
    const std::vector<storage::VcfRegion> regions =
        a.get("regions") ? storage::parse_vcf_regions(*a.get("regions")) : std::vector<storage::VcfRegion>{};
    if (out_path == "-" || std::filesystem::is_directory(out_path))
        throw Error("--out must be a file (the run grows in OUT.partial and is renamed when complete), not '" + out_path + "'");
    const std::string partial = out_path + ".partial";

    // Everything that decides the rows, so that --resume refuses a run made differently.
    std::string header = std::string("##carbon-cli vep ") + CARBON_VERSION + "\n";
    header += "##model=" + a.required("model") + "\n##reference=" + ref_path + "\n##vcf=" + vcf_path + "\n";
    header += "##window_bp=" + std::to_string(vo.window_bp) + "\n##reverse_complement=" + (vo.reverse_complement ? "1" : "0") + "\n";
    header += "##tags=" + vo.scoring.tags + "\n##regions=" + a.get_or("regions", "") + "\n##yarn=" + a.get_or("yarn", "") + "\n";
    header += std::string("##prefix_sharing=") + (share ? "1" : "0") + "\n#" + kColumns;

    std::error_code ec;
    size_t skip_rows = 0;
    const bool have_partial = std::filesystem::exists(partial, ec);
    if (a.flag("resume")) {
        if (!have_partial && std::filesystem::exists(out_path, ec)) {
            if (!a.flag("quiet")) std::fprintf(stderr, "vep: %s is complete; nothing to resume\n", out_path.c_str());
            return 0;
        }
        if (have_partial) skip_rows = resume_point(partial, header);
    } else if (have_partial) {
        throw Error(partial + " holds a run that did not finish: add --resume to continue it, or remove it to start over");
    }
    const bool fresh = !have_partial || skip_rows == SIZE_MAX;
    if (skip_rows == SIZE_MAX) skip_rows = 0;

    // Inputs first (a wrong path is refused before the model loads).
    storage::VcfReader vcf(vcf_path, regions);
    const auto genome = storage::ReferenceGenome::open(ref_path, storage::ReferenceGenome::default_index_dir());
    auto m = load_model_from_args(a);
    vo.scoring.context_tokens = size_t(m->config().max_position_embeddings);

    const int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (fresh ? O_TRUNC : O_APPEND), 0644);
    if (fd < 0) throw Error("cannot write " + partial + ": " + std::strerror(errno));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    if (fresh) write_all(fd, header, partial);

    const auto t0 = std::chrono::steady_clock::now();
    auto last_print = t0;
    size_t rows_seen = 0, rows_written = 0, records = 0, tokens = 0;
    std::vector<size_t> status_counts;
    storage::VcfRecord rec;
    while (vcf.next(rec)) {
        ++records;
        const size_t n_rows = std::max<size_t>(1, rec.alts.size());
        if (rows_seen + n_rows <= skip_rows) {  // already in the partial output
            rows_seen += n_rows;
            continue;
        }
        const std::vector<Row> rows = score_record(*m, *genome, rec, vo, share, tokens);
        std::vector<std::string> alts = rec.alts;
        if (alts.empty()) alts.push_back(".");
        std::string text = format_rows(rec, alts, rows);
        if (rows_seen < skip_rows) {  // a record whose first rows were written before the kill
            size_t drop = skip_rows - rows_seen, at = 0;
            while (drop-- > 0) at = text.find('\n', at) + 1;
            text.erase(0, at);
        }
        write_all(fd, text, partial);
        rows_seen += n_rows;
        rows_written += rows.size();
        const auto now = std::chrono::steady_clock::now();
        if (!a.flag("quiet") && now - last_print > std::chrono::seconds(2)) {
            last_print = now;
            const double secs = std::chrono::duration<double>(now - t0).count();
            std::fprintf(stderr, "\rvep: %zu records, %zu rows (%.1f rows/s)   ", records, rows_seen, double(rows_written) / secs);
        }
    }
    if (::fsync(fd) != 0) throw Error("cannot write " + partial + ": " + std::strerror(errno));
    std::filesystem::rename(partial, out_path, ec);
    if (ec) throw Error("cannot rename " + partial + " to " + out_path + ": " + ec.message());
    if (!a.flag("quiet")) {
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "\rvep: %zu records, %zu rows (%zu scored now, %zu resumed) in %.2f s, %zu tokens, %s%s -> %s\n", records,
                     rows_seen, rows_written, skip_rows, secs, tokens, m->backend().describe().c_str(),
                     vcf.uses_index() ? ", regions through the VCF's index" : "", out_path.c_str());
    }
    return 0;
}

}  // namespace carbon::cli

#endif
