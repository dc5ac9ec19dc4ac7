// carbon-cli select: designs to order out of a FASTA of designs (generate's output, or any),
// near-duplicates removed and a diverse set of good ones chosen (carbon/generation/design_selection.h).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "carbon/generation/design_selection.h"
#ifdef CARBON_HAVE_STORAGE
#include <filesystem>

#include "carbon/runs/design_choice.h"
#include "carbon/storage/project.h"
#include "cli_project.h"
#include "cli_project_open.h"
#endif
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
       carbon-cli select --project FILE --save-as NAME [--replace] --count N [--run ID | --designs ID,...]
             [--score COLUMN|PREDICTOR:OUTPUT] [--min-score X] [--distance hamming|edit] [--min-distance D]
             [--out FILE.fasta]
  Chooses N designs that are good and far apart: the best-scoring first, then again and again the
  design farthest from all chosen (greedy max-min), counting a design and its reverse complement as
  one (a synthesised double strand is both). --score KEY: the header's KEY=value to rank by
  (default design_logp, as generate writes it; higher is better; NA is never chosen);
  --min-score X: only designs scoring at least X; --min-distance D: first drop near-duplicates,
  designs closer than D to a better one; --distance: hamming (default; designs of one length) or
  edit (Levenshtein). The output keeps each chosen record as it was, in the order chosen, with
  selection_rank=K added to its header; stderr says how many were chosen, from how many, and the
  smallest distance between two chosen designs.
  --project: the candidates are the project's designs that are not discarded (of --run ID, or
  --designs ID,...), ranked by a design column (design_logp (default), ranking_logp, min_base_logp,
  objective, specificity) or a predictor's output stored for them (PREDICTOR:OUTPUT); the choice is
  stored in the project as selection NAME, in its order, with how it was made (project export
  --selection NAME orders it; --replace replaces a selection of that name); --out also writes the
  chosen designs as FASTA.
)";

// KEY=value in a header's description: the value, or nothing.
std::optional<std::string> header_value(const std::string& description, const std::string& key) {
    std::istringstream in(description);
    for (std::string word; in >> word;)
        if (word.size() > key.size() && word.compare(0, key.size(), key) == 0 && word[key.size()] == '=') return word.substr(key.size() + 1);
    return std::nullopt;
}

#ifdef CARBON_HAVE_STORAGE
int select_in_project(const Args& a, size_t count, const std::string& key, SequenceDistance kind, std::optional<double> min_score,
                      size_t min_distance) {
    const std::string path = *a.get("project");
    runs::DesignChoiceRequest r;
    r.name = a.required("save-as");
    r.replace = a.flag("replace");
    if (a.get("run") && a.get("designs")) throw Error("give --run ID or --designs ID,..., not both");
    r.run_id = a.integer("run", 0, 1, 1ll << 62);
    r.candidates = parse_ids(a.get_or("designs", ""), "--designs");
    if (a.get("designs") && r.candidates.empty()) throw Error("--designs names no design id (leave it out for every design)");
    r.count = count;
    r.score = key;
    r.min_score = min_score;
    r.distance = kind;
    r.min_distance = min_distance;
    if (!std::filesystem::exists(path)) throw Error(path + ": no such project");
    std::optional<OutputFile> out;
    if (a.get("out")) out.emplace(*a.get("out"));
    auto p = storage::Project::open(path, write_options(path, a.number("wait", kDefaultProjectWait, 0, 86400)));
    const runs::DesignChoice c = runs::choose_designs(*p, r);
    if (out) {
        std::ostringstream os;
        for (size_t k = 0; k < c.design_ids.size(); ++k) {
            const auto d = p->design(c.design_ids[k]);
            std::string name = d->name;  // one word in a header, whatever the project holds
            for (char& ch : name)
                if (static_cast<unsigned char>(ch) <= ' ' || ch == 0x7f) ch = '_';
            os << '>' << (name.empty() ? "design_" + std::to_string(d->id) : name) << " design=" << d->id << " run=" << d->run_id << " selection_rank=" << (k + 1) << '\n';
            for (size_t i = 0; i < d->bases.size(); i += 60) os << d->bases.substr(i, 60) << '\n';
        }
        out->stream() << os.str();
        out->commit();
    }
    std::fprintf(stderr, "%s: selection '%s' of %zu design(s), chosen from %zu (%zu after near-duplicate removal, %zu eligible by score)",
                 path.c_str(), visible_text(r.name, 80).c_str(), c.design_ids.size(), c.candidates, c.after_near_duplicates, c.eligible);
    if (c.design_ids.size() > 1)
        std::fprintf(stderr, "; smallest %s distance between two chosen: %zu (both strands)", kind == SequenceDistance::Edit ? "edit" : "hamming",
                     c.min_distance);
    std::fprintf(stderr, "\n");
    if (!c.note.empty()) std::fprintf(stderr, "note: %s\n", c.note.c_str());
    return 0;
}
#else
int select_in_project(const Args&, size_t, const std::string&, SequenceDistance, std::optional<double>, size_t) {
    throw Error("this carbon-cli was built without SQLite project support (select --project needs storage/)");
}
#endif

}  // namespace

int cmd_select(const std::vector<std::string>& argv) {
    if (wants_help(argv, kSelectUsage)) return 0;
    Args a(argv, {"in", "count", "out", "score", "min-score", "distance", "min-distance", "project", "save-as", "run", "designs", "wait"},
           {"replace"});
    const size_t count = size_t(a.integer("count", 0, 1, 100000000));
    if (!a.get("count")) throw Error("--count N is required (how many designs to choose)");
    const std::string key = a.get_or("score", "design_logp");
    const std::string dist = a.get_or("distance", "hamming");
    if (dist != "hamming" && dist != "edit") throw Error("--distance must be hamming or edit (got '" + visible_text(dist, 40) + "')");
    const SequenceDistance kind = dist == "edit" ? SequenceDistance::Edit : SequenceDistance::Hamming;
    std::optional<double> min_score;
    if (a.get("min-score")) min_score = a.number("min-score", 0, -1e300, 1e300);
    const size_t min_distance = size_t(a.integer("min-distance", 0, 0, 1000000000));
    if (a.get("project")) {
        if (a.get("in")) throw Error("give --in DESIGNS.fasta or --project FILE, not both");
        return select_in_project(a, count, key, kind, min_score, min_distance);
    }
    for (const char* o : {"save-as", "run", "designs", "wait"})
        if (a.get(o)) throw Error(std::string("--") + o + " goes with --project FILE");
    if (a.flag("replace")) throw Error("--replace goes with --project FILE");
    const std::string in = a.required("in");
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
