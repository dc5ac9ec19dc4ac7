// carbon-cli select: designs to order out of a FASTA of designs (generate's output, or any),
// near-duplicates removed and a diverse set of good ones chosen (carbon/generation/design_selection.h).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "carbon/generation/design_selection.h"
#include "carbon/support/output_file.h"
#include "carbon/support/visible_text.h"
#include "cli_args.h"
#include "cli_common.h"
#include "cli_fasta.h"
#include "commands.h"

namespace carbon::cli {

namespace {

const char* kSelectUsage = R"(usage: carbon-cli select --in DESIGNS.fasta --count N --out FILE.fasta
             [--score KEY] [--min-score X] [--distance hamming|edit] [--min-distance D]
  Chooses N designs that are good and far apart: the best-scoring first, then again and again the
  design farthest from all chosen (greedy max-min), counting a design and its reverse complement as
  one (a synthesised double strand is both). --score KEY: the header's KEY=value to rank by
  (default design_logp, as generate writes it; higher is better; NA is never chosen);
  --min-score X: only designs scoring at least X; --min-distance D: first drop near-duplicates,
  designs closer than D to a better one; --distance: hamming (default; designs of one length) or
  edit (Levenshtein). The output keeps each chosen record as it was, in the order chosen, with
  selection_rank=K added to its header; stderr says how many were chosen, from how many, and the
  smallest distance between two chosen designs.
)";

// KEY=value in a header's description: the value, or nothing.
std::optional<std::string> header_value(const std::string& description, const std::string& key) {
    std::istringstream in(description);
    for (std::string word; in >> word;)
        if (word.size() > key.size() && word.compare(0, key.size(), key) == 0 && word[key.size()] == '=') return word.substr(key.size() + 1);
    return std::nullopt;
}

}  // namespace

int cmd_select(const std::vector<std::string>& argv) {
    if (wants_help(argv, kSelectUsage)) return 0;
    Args a(argv, {"in", "count", "out", "score", "min-score", "distance", "min-distance"}, {});
    const std::string in = a.required("in");
    const size_t count = size_t(a.integer("count", 0, 1, 100000000));
    if (!a.get("count")) throw Error("--count N is required (how many designs to choose)");
    const std::string key = a.get_or("score", "design_logp");
    const std::string dist = a.get_or("distance", "hamming");
    if (dist != "hamming" && dist != "edit") throw Error("--distance must be hamming or edit (got '" + dist + "')");
    const SequenceDistance kind = dist == "edit" ? SequenceDistance::Edit : SequenceDistance::Hamming;
    std::optional<double> min_score;
    if (a.get("min-score")) min_score = a.number("min-score", 0, -1e300, 1e300);
    const size_t min_distance = size_t(a.integer("min-distance", 0, 0, 1000000000));
    OutputFile out(a.required("out"));  // a wrong --out is refused before the work

    const std::vector<FastaRecord> recs = read_fasta(in);
    std::vector<std::string> designs;
    std::vector<double> scores;
    for (const FastaRecord& r : recs) {
        std::string s = r.sequence;
        for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
        if (kind == SequenceDistance::Hamming && !designs.empty() && s.size() != designs.front().size())
            throw Error(in + ":" + std::to_string(r.line) + ": " + visible_text(r.name, 80) + " is " + std::to_string(s.size()) +
                        " bases where the first design is " + std::to_string(designs.front().size()) +
                        ": the Hamming distance needs one length (--distance edit takes any)");
        designs.push_back(std::move(s));
        const auto v = header_value(r.description, key);
        if (!v)
            throw Error(in + ":" + std::to_string(r.line) + ": " + visible_text(r.name, 80) + " has no " + key +
                        "= in its header (--score KEY names the value to rank by)");
        char* end = nullptr;
        const double x = std::strtod(v->c_str(), &end);
        if (*v == "NA" || *v == "nan") {
            scores.push_back(std::nan(""));
        } else if (v->empty() || *end || !std::isfinite(x)) {
            throw Error(in + ":" + std::to_string(r.line) + ": " + visible_text(r.name, 80) + ": " + key + "=" + visible_text(*v, 40) +
                        " is not a number");
        } else {
            scores.push_back(x);
        }
    }
    // Near-duplicates first (when asked), then the diverse choice among those kept.
    std::vector<size_t> pool(designs.size());
    for (size_t i = 0; i < pool.size(); ++i) pool[i] = i;
    if (min_distance > 0) pool = remove_near_duplicates(designs, scores, min_distance, kind);
    std::vector<std::string> kept_designs;
    std::vector<double> kept_scores;
    for (size_t i : pool) {
        kept_designs.push_back(designs[i]);
        kept_scores.push_back(scores[i]);
    }
    const DesignSelection sel = select_diverse(kept_designs, kept_scores, count, kind, min_score);

    std::ostringstream os;
    for (size_t k = 0; k < sel.chosen.size(); ++k) {
        const FastaRecord& r = recs[pool[sel.chosen[k]]];
        os << '>' << r.name << (r.description.empty() ? "" : " " + r.description) << " selection_rank=" << (k + 1) << '\n';
        for (size_t i = 0; i < r.sequence.size(); i += 60) os << r.sequence.substr(i, 60) << '\n';
    }
    out.stream() << os.str();
    out.commit();
    std::fprintf(stderr, "chose %zu of %zu designs (%zu after near-duplicate removal, %zu eligible by score)", sel.chosen.size(),
                 designs.size(), pool.size(), sel.eligible);
    if (sel.chosen.size() > 1) std::fprintf(stderr, "; smallest %s distance between two chosen: %zu (both strands)", dist.c_str(), sel.min_distance);
    std::fprintf(stderr, "\n");
    if (!sel.note.empty()) std::fprintf(stderr, "note: %s\n", sel.note.c_str());
    return 0;
}

}  // namespace carbon::cli
