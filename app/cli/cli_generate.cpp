// carbon-cli generate: designs (FNS or direct 6-mer) with templates, constraints, a left context
// and a right flank, written as FASTA whose headers carry the run's settings and scores.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "carbon/generation/fns_generate.h"
#include "carbon/model.h"
#include "carbon/runs/generation_run.h"
#include "carbon/runs/objective_ranking.h"
#include "carbon/support/visible_text.h"
#include "carbon/support/output_file.h"
#include "cli_activity.h"
#include "cli_args.h"
#include "cli_common.h"
#include "cli_constraints.h"
#include "cli_fasta.h"
#include "cli_project.h"
#include "commands.h"

namespace carbon::cli {

namespace {

std::string read_single_record(const std::string& path, const std::string& what) {
    auto recs = read_fasta(path);
    if (recs.size() != 1)
        throw Error(path + ": --" + what + " needs a FASTA file with exactly one record (it has " + std::to_string(recs.size()) + ")");
    return recs[0].sequence;
}

const char* kGenerateUsage = R"(usage: carbon-cli generate --model DIR (--length N | --template IUPAC) --out FILE.fasta
             [--context SEQ | --context-fasta FILE] [--right-flank SEQ] [--max-backtracks N]
             [--count N] [--mode fns|direct] [--temperature T] [--top-p P] [--seed S]
             [--tags T1,T2 [--free-tags]] [--guidance W [--negative-tags T3,T4]]
             [--max-homopolymer N] [--forbid MOTIF|ENZYME,...] [--require-site ENZYME@POS[:-],...] [--gc MIN-MAX]
             [--rules twist-oligo-pool|twist-gene-fragment|idt-gblock|idt-opool|FILE.rules]
             [--forbid-matrices FILE [--forbid-pvalue P]]
             [--require-matrices FILE [--require-pvalue P] [--require-within FROM-TO]]
             [--draft DIR [--draft-tokens K] [--draft-verify distribution|identical] [--no-auto-disable]]
             [--objective SPEC (--predictor FILE.json | --predictor NAME (with --project) | --activity-model DIR)
              [--keep K] [--plausibility W] [--batch N]]
             [--project FILE [--construct NAME]] [--backend auto|cpu|cuda] [--threads N] [--weights native|int8|q8_0] [--quiet]
  Designs continue the left context base by base (FNS, the default) or 6-mer by 6-mer (direct),
  under the template's IUPAC letters and the constraints, ranked by how well design + right flank
  read. --out - writes to standard output. The design must fit the model's context with the tags;
  when the context and flank do not both fit, the flank keeps at most a quarter of the context and
  the left context its nearest bases, each trim with a note; --project stores what the model read.
  --weights int8: the model's projections and DNA head quantised to int8 at load, one scale per
  output row, activations quantised per row on the fly; on the CPU, half the bytes of bf16 read
  per token, prefill faster than bf16. q8_0: groups of 32 with fp16 scales (GGUF Q8_0's layout),
  activations per group: closer to the stored weights' scores, prefill slower. The run's backend
  description says which weights ran.
  --construct NAME: designs made in a construct stored in the --project (carbon-cli project
  construct): its upstream is the left context, its downstream the right flank, so the model reads
  what will surround each design and every constraint holds across both junctions; the run
  records the construct, and orders of its designs use it.
  --guidance W: tag guidance with strength W (0-100). Alone: conditional, the DNA logits of each
  step are unconditioned + W * (conditioned - unconditioned), the two streams (with --tags and
  without) run in the same batch; W = 0 gives the unconditioned designs, W = 1 the conditioned ones.
  With --negative-tags: contrastive, positive + W * (positive - negative), designs that read as
  --tags and not as the negative tags. Headers then carry specificity=: the mean over the design
  of log p(base | tags) - log p(base | the other stream). Not with --draft.
  --forbid MOTIF|ENZYME,...: no window touching the design may hold any of them on either strand:
  motifs in IUPAC letters (GAATTC, GGWCC) or restriction enzymes by name as REBASE spells them
  (EcoRI, BsaI: their sites; the 623 commercially available enzymes of resources/enzymes.tsv).
  --require-site ENZYME@POS,...: every design holds the enzyme's site (or an IUPAC motif) with its
  first base at 1-based design position POS, ":-" for the bottom strand (BsaI@40:-): written
  into the template, so the rest of the design is generated around it.
  --forbid-matrices FILE: no window touching the design may match any matrix of FILE (JASPAR,
  MEME or TRANSFAC; see carbon-cli motifs --help) on either strand with a p-value of P or less
  (default 1e-4; uniform background, pseudocount 0.5): enforced while generating.
  --require-matrices FILE: every design holds, for each matrix of FILE, at least one window on
  either strand with a p-value of P or less (default 1e-4) lying wholly inside design positions
  FROM-TO (1-based, inclusive; default the whole design): enforced while generating, so the site
  is where the model's own choices make one, and at the latest in the span's last window.
  --gc MIN-MAX: each design's G+C content within the window, as fractions (0.4-0.6) or
  percentages (40%-60%); enforced while generating.
  --rules SET: a vendor's synthesis rules (carbon-cli check --list-rules) enforced while
  generating, on every window that holds a design base, across the junctions with the context and
  the flank: GC (whole design, windows and their spread), homopolymers, repeats, hairpins and
  forbidden sites; a design whose length is outside the vendor's range is said in a note.
  --objective SPEC: generate and rank. An activity predictor predicts every design (its own bases)
  and the designs are ranked by the objective, the best --keep K of them (default all) written and
  stored, each header with objective= and every output's value. SPEC: an output (K562), its MinGap
  specificity (mingap:K562 or mingap:K562-HepG2,SKNSH) or a weighted sum (sum:K562=1,HepG2=-0.5).
  The predictor: --predictor, fitted on DIR's embeddings (carbon-cli predictor fit; a file, or
  with --project a predictor stored there), or --activity-model, a fine-tuned regression
  checkpoint of Carbon's recipes. --plausibility W ranks by the objective plus W x design_logp
  (how well Carbon reads the design under the run's tags), keeping designs in its distribution.
)";

}  // namespace

int cmd_generate(const std::vector<std::string>& argv) {
    if (wants_help(argv, kGenerateUsage)) return 0;
    Args a(argv,
           {"model", "context", "context-fasta", "right-flank", "tags", "length", "template", "count", "mode", "temperature",
            "top-p", "seed", "out", "max-homopolymer", "forbid", "gc", "backend", "threads", "max-backtracks", "project", "project-wait", "draft", "draft-tokens", "draft-verify",
            "forbid-matrices", "forbid-pvalue", "require-site", "require-matrices", "require-pvalue", "require-within", "guidance", "rules",
            "negative-tags", "objective", "predictor", "activity-model", "keep", "batch", "plausibility", "construct", "weights"},
           {"free-tags", "quiet", "no-auto-disable"});
    DesignRequest req;
    if (a.get("context") && a.get("context-fasta")) throw Error("give --context or --context-fasta, not both");
    req.left_context = a.get("context-fasta") ? read_single_record(*a.get("context-fasta"), "context-fasta") : a.get_or("context", "");
    req.right_flank = a.get_or("right-flank", "");
    req.tags = resolve_tags(a.get_or("tags", ""), a.flag("free-tags"));
    if (a.get("negative-tags") && !a.get("guidance")) throw Error("--negative-tags needs --guidance W");
    if (a.get("guidance")) {
        req.guidance.w = a.number("guidance", 1.0, 0.0, 100.0);
        req.guidance.mode = a.get("negative-tags") ? TagGuidance::Mode::Contrastive : TagGuidance::Mode::Conditional;
        req.guidance.negative_tags = resolve_tags(a.get_or("negative-tags", ""), a.flag("free-tags"));
    }
    req.template_iupac = a.get_or("template", "");
    req.length = size_t(a.integer("length", 0, 1, 100000000));
    if (!a.get("length") && !a.get("template")) throw Error("give --length N or --template IUPAC");
    req.count = size_t(a.integer("count", 1, 1, 100000));
    const std::string mode = a.get_or("mode", "fns");
    if (mode == "fns") req.mode = GenerationMode::Fns;
    else if (mode == "direct") req.mode = GenerationMode::Direct;
    else throw Error("--mode must be fns or direct, not '" + mode + "'");
    req.sampling.temperature = float(a.number("temperature", 1.0, 0.0, 100.0));
    req.sampling.top_p = float(a.number("top-p", 1.0, 1e-6, 1.0));
    req.sampling.seed = uint64_t(a.integer("seed", 0, 0, (1ll << 62)));
    req.constraints = design_constraints_from_args(a);
    say_synthesis_length(a, req.template_iupac.empty() ? req.length : req.template_iupac.size());
    req.max_backtracks = size_t(a.integer("max-backtracks", 512, 0, 1 << 30));
    const std::string out_path = a.required("out");
    const std::optional<ProjectTarget> project = project_target(a);  // a wrong --project is refused before the work
    // --construct NAME: the design between the project's construct, its upstream the left context
    // and its downstream the right flank; the run records the construct.
    RunSettings construct;
    if (const auto name = a.get("construct")) {
        if (!project) throw Error("--construct NAME names a construct stored in the --project FILE");
        if (a.get("context") || a.get("context-fasta") || a.get("right-flank"))
            throw Error("--construct gives the left context (its upstream) and the right flank (its downstream): not with --context, "
                        "--context-fasta or --right-flank");
        construct = project_construct(project->path, *name);
        for (const auto& [k, v] : construct) {
            if (k == "construct_upstream") req.left_context = v;
            if (k == "construct_downstream") req.right_flank = v;
        }
    }
    // Generate and rank: the predictor is read (and a wrong one refused) before any model loads.
    if ((a.get("predictor") || a.get("activity-model") || a.get("keep") || a.get("plausibility")) && !a.get("objective"))
        throw Error("--predictor, --activity-model, --keep and --plausibility rank the designs by an objective: give --objective SPEC");
    const double plausibility_weight = a.get("plausibility") ? a.number("plausibility", 0.0, -1e6, 1e6) : 0.0;
    if (a.get("objective") && !a.get("predictor") && !a.get("activity-model"))
        throw Error("--objective needs a predictor: --predictor FILE.json (or NAME with --project) or --activity-model DIR");
    if (a.get("predictor") && a.get("activity-model"))
        throw Error("give --predictor (fitted on --model's embeddings) or --activity-model (a fine-tuned checkpoint), not both");
    std::optional<Probe> probe;
    if (a.get("predictor")) probe = predictor_from_args(a);
    const size_t keep = size_t(a.integer("keep", 0, 1, 100000));
    if (keep > req.count) throw Error("--keep " + std::to_string(keep) + " is more than the " + std::to_string(req.count) + " designs of --count");
    const size_t rank_batch = size_t(a.integer("batch", 16, 1, 4096));

    auto m = load_model_from_args(a);
    std::unique_ptr<Model> activity_checkpoint;
    std::optional<ActivityModel> activity;
    std::optional<Objective> objective;
    if (probe)
        activity.emplace(*m, std::move(probe));
    else if (auto dir = a.get("activity-model"))
        activity.emplace(*(activity_checkpoint = load_model_from_args(a, *dir)), std::nullopt);
    if (activity) objective = Objective::parse(a.required("objective"), activity->predictor().outputs(), "--objective");
    // --draft: a smaller model of the same family proposes tokens the target verifies.
    std::unique_ptr<Model> draft;
    runs::GenerationRunOptions run_options;
    run_options.score_designs = project.has_value();  // the stored tracks; the FASTA needs none
    if (auto draft_dir = a.get("draft")) {
        ModelOptions mo;
        mo.backend = parse_backend_kind(a.get_or("backend", "auto"));
        mo.threads = int(a.integer("threads", 0, 0, 1024));
        draft = Model::load(*draft_dir, mo);
        run_options.draft = draft.get();
        run_options.draft_options.draft_tokens = size_t(a.integer("draft-tokens", 4, 1, 64));
        run_options.draft_options.auto_disable = !a.flag("no-auto-disable");
        const std::string verify = a.get_or("draft-verify", "distribution");
        if (verify == "distribution") run_options.draft_options.verify = SpeculativeVerify::Distribution;
        else if (verify == "identical") run_options.draft_options.verify = SpeculativeVerify::Identical;
        else throw Error("--draft-verify must be distribution or identical, not '" + verify + "'");
    } else if (a.get("draft-tokens") || a.get("draft-verify")) {
        throw Error("--draft-tokens and --draft-verify need --draft DIR");
    }
    const bool quiet = a.flag("quiet");
    ProgressPrinter progress(quiet);
    OutputFile out_file(out_path);  // before the run: a folder or an unwritable path is refused now
    std::ostream& out = out_file.stream();
    GenerationCallbacks cb;
    cb.progress = [&](const GenerationProgress& p) {
        progress.update(double(p.bases_done), double(p.bases_total), "bp", p.bases_per_second);
        return true;
    };
    runs::GenerationRun run = runs::run_generation(*m, std::move(req), run_options, cb);
    progress.finish();
    if (activity && !run.result.designs.empty()) {
        ProgressPrinter ranking(quiet);
        runs::rank_by_objective(run, activity->predictor(), *objective,
                                {activity->describe(a), keep, rank_batch, plausibility_weight}, [&](size_t done, size_t total) {
                                    ranking.update(double(done), double(total), "designs predicted", 0);
                                    return true;
                                });
        ranking.finish();
    }
    const DesignRequest& rq = run.request;
    const GenerationResult& r = run.result;
    for (const std::string& n : r.notices) std::fprintf(stderr, "note: %s\n", n.c_str());
    const SpeculativeStats& ss = r.speculative;
    if (ss.used) {
        std::fprintf(stderr,
                     "speculative (%s verification): %zu drafted, %zu accepted (%.1f%%), %.2f tokens per target pass, "
                     "%zu target passes, %zu draft passes, measured speed-up %.2fx%s%s\n",
                     speculative_verify_name(ss.verify), ss.drafted, ss.accepted, 100 * ss.acceptance_rate(), ss.tokens_per_target_pass(), ss.target_passes,
                     ss.draft_passes, ss.speedup(), ss.disabled ? "; switched off: " : "", ss.disabled_reason.c_str());
    }
    for (size_t di = 0; di < r.designs.size(); ++di) {
        const Design& d = r.designs[di];
        out << ">design_" << d.index + 1 << " rank=" << d.rank;
        if (run.ranking) {
            out << " objective=" << tsv_number(run.ranking->objective_values[di]);
            for (size_t k = 0; k < run.ranking->outputs.size(); ++k)
                out << ' ' << visible_text(run.ranking->outputs[k]) << '=' << tsv_number(run.ranking->values[di][k]);
        }
        out << " design_logp=" << d.design_logp
            << " ranking_logp=" << d.ranking_logp << " length=" << d.bases.size() << " mode=" << generation_mode_name(rq.mode)
            << " temperature=" << rq.sampling.temperature << " top_p=" << rq.sampling.top_p << " seed=" << rq.sampling.seed
            << " stream=" << d.index;
        if (!rq.template_iupac.empty()) out << " template=" << rq.template_iupac;
        if (rq.constraints.max_homopolymer) out << " max_homopolymer=" << rq.constraints.max_homopolymer;
        if (!rq.constraints.forbidden_motifs.empty()) out << " forbid=" << a.get_or("forbid", "");
        if (!rq.constraints.required_sites.empty()) out << " require_sites=" << format_required_sites(rq.constraints.required_sites);
        if (a.get("forbid-matrices"))
            out << " forbid_matrices=" << std::filesystem::path(*a.get("forbid-matrices")).filename().string()
                << " forbid_pvalue=" << a.get_or("forbid-pvalue", "1e-4");
        if (a.get("require-matrices"))
            out << " require_matrices=" << std::filesystem::path(*a.get("require-matrices")).filename().string()
                << " require_pvalue=" << a.get_or("require-pvalue", "1e-4")
                << (a.get("require-within") ? " require_within=" + *a.get("require-within") : std::string());
        if (a.get("gc")) out << " gc=" << *a.get("gc");
        if (!rq.constraints.synthesis_rules.empty()) out << " rules=" << visible_text(rq.constraints.synthesis_rules);
        if (!rq.tags.empty()) out << " tags=" << rq.tags;
        if (rq.guidance.active()) {
            out << " guidance=" << guidance_mode_name(rq.guidance.mode) << " w=" << rq.guidance.w;
            if (!rq.guidance.negative_tags.empty()) out << " negative_tags=" << rq.guidance.negative_tags;
            out << " specificity=" << d.specificity;
        }
        if (d.restarts) out << " restarts=" << d.restarts;
        out << " backtracks=" << d.backtracks << "\n";
        for (size_t i = 0; i < d.bases.size(); i += 60) out << d.bases.substr(i, 60) << "\n";
    }
    out_file.commit();
    std::fprintf(stderr, "%zu design(s), %.0f bp in %.2f s (%.1f bp/s, %s mode) on %s -> %s\n",
                 run.ranking ? run.ranking->proposed : r.designs.size(), run.bases_per_second * run.seconds, run.seconds, run.bases_per_second,
                 generation_mode_name(rq.mode), m->backend().describe().c_str(), out_path.c_str());
    if (const auto& rk = run.ranking) {
        const std::string term = rk->plausibility_weight != 0 ? " + " + tsv_number(rk->plausibility_weight) + " x design_logp" : "";
        std::fprintf(stderr, "ranked by %s (%s%s) with %s: kept the best %zu of %zu, objective %s to %s\n", rk->objective.c_str(),
                     rk->objective_described.c_str(), term.c_str(), rk->predictor.c_str(), rk->kept, rk->proposed, tsv_number(rk->objective_values.front()).c_str(),
                     tsv_number(rk->objective_values.back()).c_str());
        for (size_t k = 0; k < rk->outputs.size(); ++k)
            std::fprintf(stderr, "  %s: %s\n", visible_text(rk->outputs[k]).c_str(), activity->output_note(k, rk->held_out[k]).c_str());
    }

    // --project: the run with every setting, its designs (with regions and per-base tracks, read in
    // their place) into a project file.
    if (project) {
        RunSettings extra = {{"threads", a.get_or("threads", "")}};
        extra.insert(extra.end(), construct.begin(), construct.end());
        store_generation(*project, run, extra, "the designs are in " + out_path);
    }
    return 0;
}

}  // namespace carbon::cli
