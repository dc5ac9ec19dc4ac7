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
#include "commands.h"

namespace carbon::cli {

namespace {

const char* kEvolveUsage = R"(usage: carbon-cli evolve --model DIR [--predictor FILE.json | --project FILE --predictor NAME]
             (--start SEQ | --start-fasta FILE) --objective SPEC --budget N [--rounds N]
             [--template IUPAC] [--context SEQ] [--right-flank SEQ] [--max-homopolymer N]
             [--forbid MOTIF,MOTIF] [--gc MIN-MAX] [--forbid-matrices FILE [--forbid-pvalue P]]
             [--require-matrices FILE [--require-pvalue P] [--require-within FROM-TO]]
             [--batch N] --out TRAJECTORY.tsv [--backend auto|cpu|cuda] [--threads N] [--quiet]
  From the start sequence, each round predicts every single-base edit the template, the
  constraints and the budget allow (N positions may differ from the start) and keeps the best,
  if it raises the objective; it stops when no edit does, or after --rounds. The predictor is
  DIR itself (a fine-tuned regression checkpoint of Carbon's recipes) or, with --predictor, one
  fitted to measurements on DIR's embeddings.
  --objective: an output's name (K562), its MinGap specificity against every other output
  (mingap:K562) or some (mingap:K562-HepG2,SKNSH), or a weighted sum (sum:K562=1,HepG2=-0.5).
  --template: the design's allowed bases (IUPAC; A, C, G, T fix a position); default N everywhere.
  --context / --right-flank: the sequence around the design, for the constraints across the
  junctions (a forbidden site made where design meets flank counts).
  TSV: '##' lines (model, predictor, objective, budget, why it stopped), then round, edit
  (1-based position FROM>TO), objective, one column per output, candidates predicted, edits
  refused, and the design.
)";

std::string read_one(const std::string& path) {
    auto recs = read_fasta(path);
    if (recs.size() != 1) throw Error(path + ": --start-fasta needs exactly one record (it has " + std::to_string(recs.size()) + ")");
    return recs[0].sequence;
}

}  // namespace

int cmd_evolve(const std::vector<std::string>& argv) {
    if (wants_help(argv, kEvolveUsage)) return 0;
    Args a(argv,
           {"model", "predictor", "project", "start", "start-fasta", "objective", "budget", "rounds", "template", "context", "right-flank",
            "max-homopolymer", "forbid", "gc", "forbid-matrices", "forbid-pvalue", "require-matrices", "require-pvalue", "require-within",
            "batch", "out", "backend", "threads"},
           {"quiet"});
    if (a.get("start") && a.get("start-fasta")) throw Error("give --start or --start-fasta, not both");
    if (!a.get("start") && !a.get("start-fasta")) throw Error("give the sequence to start from: --start SEQ or --start-fasta FILE");
    EvolutionRequest er;
    er.start = a.get("start") ? *a.get("start") : read_one(*a.get("start-fasta"));
    er.budget = size_t(a.integer("budget", 0, 0, 100000000));
    if (!a.get("budget")) throw Error("give --budget N: how many positions may differ from the start");
    er.max_rounds = size_t(a.integer("rounds", 0, 1, 100000000));
    er.batch = size_t(a.integer("batch", 64, 1, 4096));
    const std::string spec = a.required("objective");
    DesignRequest dr;
    dr.left_context = a.get_or("context", "");
    dr.right_flank = a.get_or("right-flank", "");
    dr.template_iupac = a.get_or("template", "");
    dr.length = dr.template_iupac.empty() ? er.start.size() : 0;
    dr.constraints = design_constraints_from_args(a);
    std::optional<Probe> probe = predictor_from_args(a);
    OutputFile out(a.required("out"));

    auto m = load_model_from_args(a);
    dr.context_tokens = size_t(std::max(0, m->config().max_position_embeddings));
    ActivityModel activity(*m, std::move(probe));
    ActivityPredictor* predictor = &activity.predictor();
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
    os << "##objective=" << spec << " (" << objective.describe(outputs) << ")\n##budget=" << er.budget << "\n##stopped=" << r.stopped
       << "\n";
    os << "round\tedit\tobjective";
    for (const std::string& o : outputs) os << '\t' << visible_text(o);
    os << "\tcandidates\trefused\tsequence\n";
    for (const EvolutionRound& k : r.rounds) {
        os << k.round << '\t';
        if (k.round == 0)
            os << "start";
        else
            os << (k.edit.position + 1) << k.edit.from << '>' << k.edit.to;
        os << '\t' << tsv_number(k.objective);
        for (double v : k.values) os << '\t' << tsv_number(v);
        os << '\t' << k.candidates << '\t' << k.refused << '\t' << k.bases << '\n';
    }
    out.stream() << os.str();
    out.commit();
    const EvolutionRound& last = r.rounds.back();
    std::fprintf(stderr, "%zu round(s): objective %s -> %s (%s); stopped: %s\n", r.rounds.size() - 1, tsv_number(r.rounds[0].objective).c_str(),
                 tsv_number(last.objective).c_str(), objective.describe(outputs).c_str(), r.stopped.c_str());
    return 0;
}

}  // namespace carbon::cli
