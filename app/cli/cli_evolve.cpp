// carbon-cli evolve: directed evolution of a design under an activity predictor (a fine-tuned
// regression checkpoint, or a predictor fitted to measurements), within an edit budget and the
// design constraints generate takes (carbon/predict/evolution.h). Writes the trajectory: each
// round's best design, the edit that made it, the objective and every output.
#include <chrono>
#include <cstdio>
#include <optional>
#include <sstream>

#include "carbon/generation/design_check.h"
#include "carbon/predict/evolution.h"
#include "carbon/support/output_file.h"
#include "carbon/support/visible_text.h"
#include "cli_activity.h"
#include "cli_args.h"
#include "cli_common.h"
#include "cli_constraints.h"
#include "cli_fasta.h"
#include "cli_project.h"
#include "commands.h"

namespace carbon::cli {

namespace {

const char* kEvolveUsage = R"(usage: carbon-cli evolve --model DIR [--predictor FILE.json | --project FILE --predictor NAME]
             (--start SEQ | --start-fasta FILE) --objective SPEC --budget N [--rounds N]
             [--template IUPAC] [--context SEQ] [--right-flank SEQ] [--max-homopolymer N]
             [--forbid MOTIF|ENZYME,...] [--gc MIN-MAX] [--rules SET|FILE.rules] [--forbid-matrices FILE [--forbid-pvalue P]]
             [--require-matrices FILE [--require-pvalue P] [--require-within FROM-TO]]
             [--plausibility W] [--proposals N [--seed S]] [--plausibility-model LM] [--tags T1,T2 [--free-tags]]
             [--batch N] --out TRAJECTORY.tsv [--project FILE [--project-wait SECONDS]]
             [--backend auto|cpu|cuda] [--threads N] [--weights native|int8|q8_0] [--quiet]
  From the start sequence, each round predicts every single-base edit the template, the
  constraints and the budget allow (N positions may differ from the start) and keeps the best,
  if it raises the objective; it stops when no edit does, or after --rounds. The predictor is
  DIR itself (a fine-tuned regression checkpoint of Carbon's recipes) or, with --predictor, one
  fitted to measurements on DIR's embeddings.
  --objective: an output's name (K562), its MinGap specificity against every other output
  (mingap:K562) or some (mingap:K562-HepG2,SKNSH), or a weighted sum (sum:K562=1,HepG2=-0.5).
  --plausibility W: maximise the objective plus W x S, S the language model's base-level mean log p
  of the design under --tags (how well Carbon reads it), so that the design stays in the model's
  distribution. The language model is DIR when the predictor is fitted on it, else --plausibility-model.
  --proposals N: each round predicts N of the allowed edits instead of all, drawn without
  replacement in proportion to the language model's per-base probability of the new base at its
  position (FNS marginals of the current design under --tags; seeded by --seed and the round).
  --template: the design's allowed bases (IUPAC; A, C, G, T fix a position); default N everywhere.
  --context / --right-flank: the sequence around the design, for the constraints across the
  junctions (a forbidden site made where design meets flank counts).
  TSV: '##' lines (model, predictor, objective, budget, why it stopped), then round, edit
  (1-based position FROM>TO), objective, one column per output, candidates predicted, edits
  refused, tokens forwarded, the predictor's objective alone and the plausibility S (NA without
  --plausibility), and the design.
  --project: the run is stored there (kind evolve): the start as a sequence (named by
  --start-fasta's record, else "evolution start"), each round's design with its objective, every
  output and its edits marked; with --predictor NAME the predictor is one stored in that project.
  Each round's candidates are forked from the current design's cache at their edit, so the bases
  before it are not read again (tokens forwarded: the round's cost).
)";

FastaRecord read_one(const std::string& path) {
    auto recs = read_fasta(path);
    if (recs.size() != 1) throw Error(path + ": --start-fasta needs exactly one record (it has " + std::to_string(recs.size()) + ")");
    return recs[0];
}

}  // namespace

int cmd_evolve(const std::vector<std::string>& argv) {
    if (wants_help(argv, kEvolveUsage)) return 0;
    Args a(argv,
           {"model", "predictor", "project", "start", "start-fasta", "objective", "budget", "rounds", "template", "context", "right-flank",
            "max-homopolymer", "forbid", "require-site", "gc", "rules", "forbid-matrices", "forbid-pvalue", "require-matrices", "require-pvalue", "require-within",
            "batch", "out", "backend", "threads", "project-wait", "plausibility", "plausibility-model", "tags", "proposals", "seed", "weights"},
           {"quiet", "free-tags"});
    if ((a.get("plausibility-model") || a.get("tags")) && !a.get("plausibility") && !a.get("proposals"))
        throw Error("--plausibility-model and --tags are the language model of --plausibility W or --proposals N: give one of them");
    if (a.get("seed") && !a.get("proposals")) throw Error("--seed seeds the drawn proposals: give --proposals N");
    const double plausibility_weight = a.get("plausibility") ? a.number("plausibility", 0.0, -1e6, 1e6) : 0.0;
    const std::string plausibility_tags = resolve_tags(a.get_or("tags", ""), a.flag("free-tags"));
    if (a.get("start") && a.get("start-fasta")) throw Error("give --start or --start-fasta, not both");
    if (!a.get("start") && !a.get("start-fasta")) throw Error("give the sequence to start from: --start SEQ or --start-fasta FILE");
    EvolutionRequest er;
    NamedSequence start_record{"evolution start", "the start of a carbon-cli evolve run", ""};
    if (a.get("start")) {
        er.start = *a.get("start");
    } else {
        const FastaRecord rec = read_one(*a.get("start-fasta"));
        er.start = rec.sequence;
        start_record = {rec.name, rec.description, rec.sequence};
    }
    start_record.bases = er.start;
    er.budget = size_t(a.integer("budget", 0, 0, 100000000));
    if (!a.get("budget")) throw Error("give --budget N: how many positions may differ from the start");
    er.max_rounds = size_t(a.integer("rounds", 0, 1, 100000000));
    er.batch = size_t(a.integer("batch", 64, 1, 4096));
    er.proposals = size_t(a.integer("proposals", 0, 1, 100000000));
    er.seed = uint64_t(a.integer("seed", 0, 0, (1ll << 62)));
    const std::string spec = a.required("objective");
    DesignRequest dr;
    dr.left_context = a.get_or("context", "");
    dr.right_flank = a.get_or("right-flank", "");
    dr.template_iupac = a.get_or("template", "");
    dr.length = dr.template_iupac.empty() ? er.start.size() : 0;
    dr.constraints = design_constraints_from_args(a);
    say_synthesis_length(a, dr.template_iupac.empty() ? dr.length : dr.template_iupac.size());
    std::optional<Probe> probe;
    if (a.get("predictor")) probe = predictor_from_args(a);
    const std::optional<ProjectTarget> project = project_target(a);  // a wrong --project is refused before the work
    const std::string out_path = a.required("out");
    OutputFile out(out_path);

    auto m = load_model_from_args(a);
    dr.context_tokens = size_t(std::max(0, m->config().max_position_embeddings));
    const bool fitted_on_model = probe.has_value();
    ActivityModel activity(*m, std::move(probe));
    ActivityPredictor* predictor = &activity.predictor();
    // The plausibility term's language model: --plausibility-model, else DIR when the predictor is
    // fitted on it (a regression checkpoint has no language-model head).
    std::unique_ptr<Model> plausibility_lm;
    std::optional<Plausibility> plausible;
    if (a.get("plausibility") || a.get("proposals")) {
        Model* lm = m.get();
        if (auto dir = a.get("plausibility-model")) lm = (plausibility_lm = load_model_from_args(a, *dir)).get();
        else if (!fitted_on_model)
            throw Error(std::string(a.get("plausibility") ? "--plausibility" : "--proposals") +
                        " needs a language model: DIR is a regression checkpoint, so give --plausibility-model LM");
        plausible.emplace(*lm, plausibility_tags, plausibility_weight);
        er.plausibility = &*plausible;
    }
    const std::vector<std::string> outputs = predictor->outputs();
    const Objective objective = Objective::parse(spec, outputs, "--objective");
    const DesignChecker checker(m->tokenizer(), dr);
    for (const std::string& n : checker.notices()) std::fprintf(stderr, "note: %s\n", n.c_str());

    ProgressPrinter progress(a.flag("quiet"));
    const auto t0 = std::chrono::steady_clock::now();
    size_t predicted = 0;  // in the rounds before
    const EvolutionResult r = evolve(*predictor, objective, checker, er, [&](size_t, size_t done, size_t total) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        progress.update(double(done), double(total), "candidates of the round", double(predicted + done) / std::max(1e-9, s));
        if (done == total) predicted += total;
        return true;
    });
    progress.finish();

    std::ostringstream os;
    os << "##carbon-cli evolve " << CARBON_VERSION << "\n##model=" << m->checkpoint().dir().string() << "\n##backend="
       << m->backend().describe() << "\n";
    os << "##predictor=" << activity.describe(a) << "\n";
    if (er.proposals)
        os << "##proposals=" << er.proposals << " per round, drawn by the per-base probabilities of " << plausible->model().checkpoint().dir().string()
           << " (seed " << er.seed << ")\n";
    if (plausible && plausibility_weight != 0)
        os << "##plausibility=" << plausibility_weight << " x S, S the base-level mean log p of the design under "
           << (plausibility_tags.empty() ? std::string("no tags") : "the tags " + plausibility_tags) << " by " << plausible->model().checkpoint().dir().string()
           << "\n";
    os << "##objective=" << spec << " (" << objective.describe(outputs) << ")\n##budget=" << er.budget << "\n##stopped=" << r.stopped
       << "\n";
    os << "round\tedit\tobjective";
    for (const std::string& o : outputs) os << '\t' << visible_text(o);
    os << "\tcandidates\trefused\ttokens\tpredicted\tplausibility\tsequence\n";
    for (const EvolutionRound& k : r.rounds) {
        os << k.round << '\t';
        if (k.round == 0)
            os << "start";
        else
            os << (k.edit.position + 1) << k.edit.from << '>' << k.edit.to;
        os << '\t' << tsv_number(k.objective);
        for (double v : k.values) os << '\t' << tsv_number(v);
        os << '\t' << k.candidates << '\t' << k.refused << '\t' << k.tokens_forwarded << '\t' << tsv_number(k.predicted) << '\t'
           << tsv_number(k.plausibility) << '\t' << k.bases << '\n';
    }
    out.stream() << os.str();
    out.commit();
    const EvolutionRound& last = r.rounds.back();
    if (project) {
        runs::EvolutionRecord what;
        what.predictor = activity.describe(a);
        what.outputs = outputs;
        what.objective = spec;
        what.objective_described = objective.describe(outputs);
        what.budget = er.budget;
        what.held_out = r.held_out;
        if (plausible && plausibility_weight != 0) what.plausibility_model = plausible->model().checkpoint().dir().string();
        store_evolution(*project, *m, start_record, r, what,
                        {{"start", a.get("start-fasta") ? *a.get("start-fasta") : std::string("--start")},
                         {"max_rounds", std::to_string(er.max_rounds)}, {"batch", std::to_string(er.batch)},
                         {"template", dr.template_iupac}, {"context", dr.left_context}, {"right_flank", dr.right_flank},
                         {"threads", a.get_or("threads", "")}, {"plausibility_weight", a.get_or("plausibility", "")},
                         {"plausibility_tags", plausibility_tags},
                         {"plausibility_model", plausible ? plausible->model().checkpoint().dir().string() : std::string()},
                         {"proposals", std::to_string(er.proposals)}, {"seed", std::to_string(er.seed)}},
                        "the trajectory is in " + out_path);
    }
    std::fprintf(stderr, "%zu round(s): objective %s -> %s (%s); stopped: %s\n", r.rounds.size() - 1, tsv_number(r.rounds[0].objective).c_str(),
                 tsv_number(last.objective).c_str(), objective.describe(outputs).c_str(), r.stopped.c_str());
    return 0;
}

}  // namespace carbon::cli
