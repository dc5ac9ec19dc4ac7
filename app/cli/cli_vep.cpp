// carbon-cli vep: whole-VCF variant effect scoring against a reference genome. Streams the VCF
// (htslib: VCF/BCF, plain or bgzipped, regions through its index), fetches each variant's window
// from the reference (faidx), scores every alternative allele of a site (a record, or consecutive
// records of the same CHROM, POS and REF) against one reference pass (score_site: alternatives
// fork the reference's cache before their first change), and
// writes one row per (variant, alt) in input order. Variants that cannot be scored get a status
// instead of a score; nothing is fatal but a file that is not what it claims to be.
//
// The output grows in OUT.partial, one site's rows at a time, and is renamed to OUT when the
// run is complete; --resume continues a killed run from the rows already in OUT.partial (rows are
// a function of the record and the settings, so the result is the same bytes as one run).
#include "commands.h"

#include "carbon/support/common.h"

#ifndef CARBON_HAVE_STORAGE

namespace carbon::cli {

int cmd_vep(const std::vector<std::string>&) {
    throw Error("this carbon-cli was built without storage/ (vep reads VCF and FASTA through htslib; install libhts-dev and rebuild)");
}

}  // namespace carbon::cli

#else

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>

#include "cli_args.h"
#include "cli_common.h"
#include "cli_project.h"
#include "vep_job.h"

namespace carbon::cli {

namespace {

const char* kVepUsage = R"(usage: carbon-cli vep --model DIR --reference GENOME.fa[.gz] --vcf VARIANTS.vcf[.gz]|.bcf --out SCORES.tsv
             [--window BP] [--rc] [--regions CHR:FROM-TO,...] [--tags T1,T2 [--free-tags]] [--resume]
             [--project FILE [--project-wait SECONDS]]
             [--no-prefix-sharing] [--yarn F] [--backend auto|cpu|cuda] [--threads N] [--weights native|int8|q8_0] [--chunk N] [--quiet]
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
    outside_contig   REF starts on the contig but runs past its end (not scored)
    symbolic_allele  <DEL>, <*>, '*' and the like (not scored)
    breakend         a breakend (t[p[, ]p]t, .t, t.) (not scored)
    invalid_allele   ALT has letters other than A, C, G, T, N (not scored)
    alt_equals_ref   ALT is REF (not scored)
    no_alt           the record has no alternative ('.'); one row, not scored
  --regions keeps records whose POS lies in one of the regions (1-based, inclusive), through the
  VCF's tabix/CSI index when it has a current one. The output is written to SCORES.tsv.partial
  and renamed when complete; --resume continues a run that was stopped or killed, and the
  result is the same bytes as an uninterrupted run. --project also stores the complete result in
  a project as a "vep" run (`project export FILE --format vep --run ID` gives the TSV back).
  --no-prefix-sharing scores each alternative whole (the plain method; for comparison).
  Distributed runs (carbon-cluster vep, over Ray) use two more forms: --list-shards [--shard-bp N]
  prints the run's header and its shards (regions in file order) as JSON; --worker reads shard
  requests on standard input and writes their rows on standard output (docs/vep.md: protocol).
)";

// A partial output: its complete rows after the header (a torn last line is cut off the file)
// and the last of them; restart when it was killed while writing the header. Read in pieces, so
// a partial output of any size costs no memory. Error when its header is not this run's.
struct ResumePoint {
    size_t rows = 0;
    std::string last_row;
    bool restart = false;
};

ResumePoint resume_point(const std::string& partial, const std::string& header) {
    const int fd = ::open(partial.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error("--resume: cannot read " + partial + ": " + std::strerror(errno));
    const FdCloser closer(fd);
    std::vector<char> buf(1 << 20);
    std::string head, line;
    ResumePoint r;
    uint64_t offset = 0, keep = 0;  // bytes read; the end of the last complete line
    for (;;) {
        const ssize_t got = ::read(fd, buf.data(), buf.size());
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw Error("--resume: cannot read " + partial + ": " + std::strerror(errno));
        if (got == 0) break;
        size_t i = 0;
        while (i < size_t(got) && head.size() < header.size()) head += buf[i++];
        if (head.size() == header.size() && keep == 0) {
            if (head != header)
                throw Error("--resume: " + partial + " was made with other settings (its '#' lines differ from this run's); "
                            "run again with the same options, or remove it to start over");
            keep = header.size();
        }
        for (; i < size_t(got); ++i) {
            if (buf[i] != '\n') {
                line += buf[i];  // whole: a row with a 5,000-base REF must match its key below
                if (line.size() > storage::kVcfMaxLine + 4096)
                    throw Error("--resume: " + partial + ": row " + std::to_string(r.rows + 1) + " is longer than any row vep writes; remove it to start over");
                continue;
            }
            r.last_row = std::move(line);
            line.clear();
            ++r.rows;
            keep = offset + i + 1;
        }
        offset += uint64_t(got);
    }
    if (head.size() < header.size()) {
        if (header.compare(0, head.size(), head) != 0)
            throw Error("--resume: " + partial + " is not a partial output of this command (its first lines differ)");
        r.restart = true;
        return r;
    }
    if (keep < offset && ::truncate(partial.c_str(), off_t(keep)) != 0)
        throw Error("--resume: cannot truncate " + partial + ": " + std::strerror(errno));
    // Every row read back as `project import --vep` reads a finished result: a row changed by hand
    // (a field that is not what vep writes there) ends the resume with its line.
    try {
        storage::VepResultReader check(partial);
        for (storage::VepRow row; check.next(row);) {
        }
    } catch (const Error& e) {
        throw Error(std::string("--resume: ") + e.what() + "; this is not what vep wrote: remove " + partial + " to start over");
    }
    return r;
}

// OUT.partial, held for this run: a regular file (a FIFO or a device there would hang the run or
// feed it anything), locked (flock) so that a second run on the same --out is refused up front,
// created when missing and removed again when this run ends before writing to it.
class PartialOutput {
public:
    explicit PartialOutput(const std::string& path) : path_(path) {
        struct stat st {};
        if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
            throw Error(path + " is not a regular file (a pipe, a device, a link or a folder): remove it, or choose another --out");
        fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        created_ = fd_ >= 0;
        if (fd_ < 0 && errno == EEXIST) fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd_ < 0) throw Error("cannot write " + path + ": " + std::strerror(errno));
        if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
            ::close(fd_);
            throw Error(path + " is not a regular file: remove it, or choose another --out");
        }
        if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
            ::close(fd_);
            throw Error("another run is writing " + path + " (it is locked): wait for it to finish, or choose another --out");
        }
    }
    ~PartialOutput() {
        if (created_ && !written_) ::unlink(path_.c_str());  // ours, and still empty: leave nothing behind
        if (fd_ >= 0) ::close(fd_);
    }
    PartialOutput(const PartialOutput&) = delete;
    PartialOutput& operator=(const PartialOutput&) = delete;
    bool created() const { return created_; }
    // The descriptor to write through, emptied (a fresh run) or at its end (a resumed one).
    int start(bool fresh) {
        written_ = true;
        if (fresh && ::ftruncate(fd_, 0) != 0) throw Error("cannot write " + path_ + ": " + std::strerror(errno));
        if (::lseek(fd_, 0, SEEK_END) < 0) throw Error("cannot write " + path_ + ": " + std::strerror(errno));
        return fd_;
    }

private:
    std::string path_;
    int fd_ = -1;
    bool created_ = false, written_ = false;
};

}  // namespace

int cmd_vep(const std::vector<std::string>& argv) {
    if (wants_help(argv, kVepUsage)) return 0;
    std::set<std::string> values = vep_value_options(), flags = vep_flag_options();
    values.insert({"out", "shard-bp", "project", "project-wait"});
    flags.insert({"resume", "worker", "list-shards"});
    Args a(argv, values, flags);
    const VepSettings settings = vep_settings(a);
    if (a.flag("worker")) return vep_worker(a, settings);
    if (a.flag("list-shards")) return vep_list_shards(a, settings);
    const std::string out_path = a.required("out");
    if (out_path == "-" || std::filesystem::is_directory(out_path))
        throw Error("--out must be a file (the run grows in OUT.partial and is renamed when complete), not '" + out_path + "'");
    const std::string partial = out_path + ".partial";
    const std::string header = vep_header(settings);
    const std::optional<ProjectTarget> project = project_target(a);  // checked before any work

    std::error_code ec;
    ResumePoint resume;
    const bool complete = !std::filesystem::exists(partial, ec) && std::filesystem::exists(out_path, ec);
    if (a.flag("resume") && complete) {
        if (!a.flag("quiet")) std::fprintf(stderr, "vep: %s is complete; nothing to resume\n", out_path.c_str());
        if (project)
            std::fprintf(stderr, "vep: if it is not in %s yet (a run killed while storing it), store it with:\n  carbon-cli project import %s --vep %s\n",
                         project->path.c_str(), project->path.c_str(), out_path.c_str());
        return 0;
    }
    PartialOutput held(partial);  // checked, locked; created when missing
    const bool have_partial = !held.created();
    if (a.flag("resume")) {
        if (have_partial) resume = resume_point(partial, header);
    } else if (have_partial) {
        throw Error(partial + " holds a run that did not finish: add --resume to continue it, or remove it to start over");
    }
    const bool fresh = !have_partial || resume.restart;
    const size_t skip_rows = resume.restart ? 0 : resume.rows;
    // The partial output's last row must be the one this VCF gives at that place: a VCF changed
    // since the run started would otherwise be mixed into one file.
    auto check_resumed = [&](std::span<const storage::VcfRecord> site, size_t i) {
        const std::string want = vep_row_key(site, i);
        if (resume.last_row.compare(0, want.size() + 1, want + '\t') != 0)
            throw Error("--resume: " + partial + " does not match " + settings.vcf + ": its row " + std::to_string(skip_rows) +
                        " is '" + resume.last_row.substr(0, 120) + "' but the VCF gives " + want +
                        " there (did the VCF change?); remove it to start over");
    };

    // Inputs first (a wrong path is refused before the model loads).
    storage::VcfReader vcf(settings.vcf, settings.regions);
    if (!vcf.index_note().empty()) std::fprintf(stderr, "note: %s\n", vcf.index_note().c_str());
    const auto genome = open_reference(settings.reference);
    auto m = load_model_from_args(a);
    VepScorer scorer(settings, *m, *genome);

    const int fd = held.start(fresh);
    if (fresh) write_fully(fd, header.data(), header.size(), partial);

    const auto t0 = std::chrono::steady_clock::now();
    auto last_print = t0;
    size_t rows_seen = 0, rows_scored = 0, records = 0;
    // A site at a time: records of one CHROM, POS and REF share their window's reference pass.
    runs::VepSiteReader sites(vcf);
    std::vector<storage::VcfRecord> site;
    while (sites.next(site)) {
        records += site.size();
        const size_t n_rows = VepScorer::row_count(site);
        if (rows_seen + n_rows <= skip_rows) {  // already in the partial output
            if (rows_seen + n_rows == skip_rows) check_resumed(site, n_rows - 1);
            rows_seen += n_rows;
            continue;
        }
        if (rows_seen < skip_rows) check_resumed(site, skip_rows - rows_seen - 1);
        std::string text = scorer.rows(site);
        if (rows_seen < skip_rows) {  // a site whose first rows were written before the kill
            size_t drop = skip_rows - rows_seen, at = 0;
            while (drop-- > 0) at = text.find('\n', at) + 1;
            text.erase(0, at);
        }
        write_fully(fd, text.data(), text.size(), partial);
        rows_seen += n_rows;
        rows_scored += n_rows;
        const auto now = std::chrono::steady_clock::now();
        if (!a.flag("quiet") && now - last_print > std::chrono::seconds(2)) {
            last_print = now;
            const double secs = std::chrono::duration<double>(now - t0).count();
            std::fprintf(stderr, "\rvep: %zu records, %zu rows (%.1f rows/s)   ", records, rows_seen, double(rows_scored) / secs);
        }
    }
    if (rows_seen < skip_rows)
        throw Error("--resume: " + partial + " holds " + std::to_string(skip_rows) + " rows but " + settings.vcf + " gives only " +
                    std::to_string(rows_seen) + " (did the VCF change?); remove it to start over");
    if (::fsync(fd) != 0) throw Error("cannot write " + partial + ": " + std::strerror(errno));
    std::filesystem::rename(partial, out_path, ec);
    if (ec) throw Error("cannot rename " + partial + " to " + out_path + ": " + ec.message());
    if (!a.flag("quiet")) {
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "\rvep: %zu records, %zu rows (%zu scored now, %zu resumed) in %.2f s, %zu tokens, %s%s -> %s\n", records,
                     rows_seen, rows_scored, skip_rows, secs, scorer.tokens(), m->backend().describe().c_str(),
                     vcf.uses_index() ? ", regions through the VCF's index" : "", out_path.c_str());
    }
    if (project) store_vep(*project, *m, out_path);
    return 0;
}

}  // namespace carbon::cli

#endif
