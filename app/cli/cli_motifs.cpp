// carbon-cli motifs: scan sequences for transcription-factor motifs (JASPAR, MEME minimal and
// TRANSFAC matrices) on both strands, with log-odds scores and p-values from the exact score
// distribution. No model is needed.
#include <cstdio>
#include <iomanip>
#include <optional>
#include <sstream>

#include "carbon/fns/fns.h"
#include "carbon/motifs/motif.h"
#include "carbon/support/common.h"
#include "carbon/support/output_file.h"
#include "cli_args.h"
#include "cli_common.h"
#include "cli_fasta.h"
#include "commands.h"

namespace carbon::cli {

namespace {

const char* kMotifsUsage = R"(usage: carbon-cli motifs scan --motifs FILE [--motifs FILE ...] --in FILE.fasta --out FILE.tsv
             [--pvalue P] [--min-score BITS] [--background uniform|sequence] [--pseudocount C]
  Scans every record of FILE.fasta for every motif in the motif files (JASPAR .jaspar/.pfm, MEME
  minimal .meme, TRANSFAC), on both strands. A window's score is the sum of the motif's log-odds
  (bits, log2 of the motif's base probability over the background's; each column gets C of
  pseudocount per base, default 0.5); its p-value is the chance that a background window of the
  motif's length scores at least as high, from the score distribution computed exactly on a grid
  of 1/1000 bit. Hits with a p-value above P (default 1e-4) or a score below BITS are left out.
  --background uniform (default) or sequence (each record's own base composition, both strands).
  Windows holding a base other than A/C/G/T are not scored. Output (TSV, '-' for standard output):
  record, motif_id, motif_name, start and end (1-based, inclusive, forward-strand coordinates),
  strand, score, p-value and the matched bases as read on the hit's strand.
  JASPAR matrices: https://jaspar.elixir.no/downloads/ (e.g. the CORE vertebrates collection as
  JASPAR or MEME format); copy the files to this machine, carbon-cli never downloads anything.
)";

// The --motifs values in order (the parser keeps one value per option: repeated --motifs are
// read from argv here).
std::vector<std::string> motif_files(const std::vector<std::string>& argv) {
    std::vector<std::string> files;
    for (size_t i = 0; i + 1 < argv.size(); ++i)
        if (argv[i] == "--motifs") files.push_back(argv[i + 1]);
    return files;
}

}  // namespace

int cmd_motifs(const std::vector<std::string>& argv) {
    if (wants_help(argv, kMotifsUsage)) return 0;
    if (argv.empty() || argv[0] != "scan") throw Error("motifs: expected 'scan' (carbon-cli motifs --help)");
    const std::vector<std::string> rest(argv.begin() + 1, argv.end());
    // Repeated --motifs: keep the first for Args (which refuses unknown options) and read them all here.
    std::vector<std::string> single;
    bool seen_motifs = false;
    for (size_t i = 0; i < rest.size(); ++i) {
        if (rest[i] == "--motifs" && seen_motifs && i + 1 < rest.size()) { ++i; continue; }
        if (rest[i] == "--motifs") seen_motifs = true;
        single.push_back(rest[i]);
    }
    const Args a(single, {"motifs", "in", "out", "pvalue", "min-score", "background", "pseudocount"}, {});
    a.required("motifs");
    const std::string in = a.required("in");
    const double max_p = a.number("pvalue", 1e-4, 0.0, 1.0);
    const double min_score = a.number("min-score", -1e300, -1e300, 1e300);
    const double pseudo = a.number("pseudocount", 0.5, 0.0, 1e9);
    const std::string background = a.get_or("background", "uniform");
    if (background != "uniform" && background != "sequence")
        throw Error("--background must be 'uniform' or 'sequence', not '" + background + "'");

    std::vector<Motif> motifs;
    for (const std::string& f : motif_files(rest)) {
        std::vector<Motif> m = read_motifs(f);
        motifs.insert(motifs.end(), m.begin(), m.end());
    }
    const std::vector<FastaRecord> recs = read_fasta(in);
    OutputFile out(a.required("out"));  // a folder or an unwritable path is refused before the work
    // Uniform background: one matrix and distribution per motif, for every record.
    std::vector<Pssm> pssms;
    std::vector<ScoreDistribution> dists;
    if (background == "uniform") {
        for (const Motif& m : motifs) {
            pssms.push_back(make_pssm(m, uniform_background(), pseudo));
            dists.emplace_back(pssms.back());
        }
    }
    std::ostream& os = out.stream();
    os << "# carbon-cli motifs scan: motifs " << motifs.size() << ", background " << background << ", pseudocount " << pseudo
       << ", p-value <= " << max_p << "\n";
    os << "record\tmotif_id\tmotif_name\tstart\tend\tstrand\tscore\tpvalue\tmatched\n";
    size_t total = 0;
    for (const FastaRecord& rec : recs) {
        for (size_t k = 0; k < motifs.size(); ++k) {
            std::optional<Pssm> own;
            std::optional<ScoreDistribution> own_dist;
            if (background == "sequence") {
                own.emplace(make_pssm(motifs[k], sequence_background(rec.sequence), pseudo));
                own_dist.emplace(*own);
            }
            const Pssm& p = own ? *own : pssms[k];
            const ScoreDistribution& d = own ? *own_dist : dists[k];
            for (const MotifHit& h : scan_motif(p, d, rec.sequence, max_p, min_score)) {
                const std::string_view window = std::string_view(rec.sequence).substr(h.start, p.length());
                std::ostringstream line;
                line << rec.name << '\t' << p.id << '\t' << p.name << '\t' << h.start + 1 << '\t' << h.start + p.length() << '\t'
                     << h.strand << '\t' << std::fixed << std::setprecision(4) << h.score << '\t' << std::scientific
                     << std::setprecision(4) << h.pvalue << '\t'
                     << (h.strand == '+' ? std::string(window) : acgt_reverse_complement(window)) << '\n';
                os << line.str();
                ++total;
            }
        }
    }
    out.commit();
    std::fprintf(stderr, "motifs: %zu hits of %zu motifs in %zu records\n", total, motifs.size(), recs.size());
    return 0;
}

}  // namespace carbon::cli
