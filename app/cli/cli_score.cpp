// carbon-cli score / variant / ism: base-level (FNS) and token-level scoring of FASTA records,
// single-variant effects and in-silico saturation mutagenesis. Positions are 1-based for users
// (regions inclusive, as samtools writes them) and 0-based in the engine.
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "carbon/model.h"
#include "carbon/runs/scoring_run.h"
#include "carbon/scoring/scoring.h"
#include "carbon/scoring/variants.h"
#include "carbon/predict/variant_activity.h"
#include "carbon/support/visible_text.h"
#include "carbon/support/output_file.h"
#include "cli_activity.h"
#include "cli_args.h"
#include "cli_common.h"
#include "cli_fasta.h"
#include "cli_project.h"
#include "commands.h"

namespace carbon::cli {

namespace {

const char* kScoreUsage = R"(usage: carbon-cli score --model DIR --in FILE.fasta [--json] [--tracks OUT.tsv] [--tags T1,T2 [--free-tags]]
             [--window TOKENS] [--overlap TOKENS] [--yarn F] [--no-token-score] [--chunk TOKENS]
             [--backend auto|cpu|cuda] [--threads N] [--weights native|int8|q8_0] [--quiet] [--project FILE [--project-wait SECONDS]]
  One row per record: name, length, bases_scored, base_mean_logp (FNS marginals, over A/C/G/T
  bases), token_mean_logp (full vocabulary, 6-mers and </dna>). --tracks writes per-base rows:
  name, pos (1-based), base, logp, p_A, p_C, p_G, p_T, entropy_bits. Records longer than the
  context are scored in windows of --window 6-mer tokens (default: the context minus the tags,
  <dna> and </dna>) overlapping by --overlap tokens (default window/4) of left context.
  NA marks a value that is undefined or not computed.
)";

const char* kVariantUsage = R"(usage: carbon-cli variant --model DIR --in FILE.fasta [--record NAME] --pos P [--ref B] --alt B
             [--window BP] [--rc] [--tags T1,T2 [--free-tags]] [--json] [--yarn F] [--backend ...] [--threads N]
             [--project FILE [--project-wait SECONDS]]
             [--predictor FILE.json | --predictor NAME (with --project) | --activity-model DIR]
             [--activity-window BP] [--batch N]
  P is 1-based. Prints site_log_odds = log p(ref) - log p(alt) (FNS marginal at the site) and
  window_delta = S(alt) - S(ref), S the base-level mean log p over --window bases (default 8192)
  centred on the site; with --rc also the reverse-complement delta and the mean of both.
  With an activity predictor, also the predicted activity of the reference and the alternative
  and the change (alternative - reference) per output, its held-out accuracy in the '##output'
  lines: --predictor, fitted on DIR's embeddings (carbon-cli predictor fit; a file, or with
  --project a predictor stored there), or --activity-model, a fine-tuned regression checkpoint of
  Carbon's recipes. The predictor sees the whole record, or --activity-window bases centred on the
  site (for a record longer than what it was trained on).
)";

const char* kIsmUsage = R"(usage: carbon-cli ism --model DIR --in FILE.fasta [--record NAME] --region START-END --out FILE.tsv
             [--exact] [--window BP] [--tags T1,T2 [--free-tags]] [--yarn F] [--backend ...] [--threads N] [--quiet]
             [--project FILE [--project-wait SECONDS]]
  Every position of START-END (1-based, inclusive) times its three alternative bases. TSV: pos,
  ref, alt, score. Fast (default): log p(alt) - log p(ref) from the marginal at the base, one pass.
  --exact: S(mutant) - S(reference) over --window bases (default 8192) centred on the region.
)";

std::string num(double v, int digits = 9) { return tsv_number(v, digits); }

using Json = nlohmann::ordered_json;  // keys in the order written, for people reading the output

Json jnum(double v) { return std::isnan(v) ? Json(nullptr) : Json(v); }

// One stderr line per record with something to say about its letters.
void print_notices(const std::string& name, const std::vector<DnaNotice>& notices) {
    size_t lower = 0, other = 0;
    std::string where;
    int listed = 0;
    for (const DnaNotice& n : notices) {
        if (n.kind == DnaNotice::Lowercase) {
            lower += n.count;
            continue;
        }
        other += n.count;
        if (listed++ < 5) {
            where += (where.empty() ? "" : ", ") + std::string(1, n.character) + (n.count > 1 ? " x" + std::to_string(n.count) : "") +
                     " at " + std::to_string(n.position + 1);
        } else if (listed == 6) {
            where += ", ...";
        }
    }
    if (lower) std::fprintf(stderr, "note: %s: %zu lowercase bases read as upper case\n", name.c_str(), lower);
    if (other)
        std::fprintf(stderr, "note: %s: %zu non-ACGT characters (%s): their 6-mers are <oov> and those bases get no score\n",
                     name.c_str(), other, where.c_str());
}

const FastaRecord& pick_record(const std::vector<FastaRecord>& recs, const std::string& path, const std::optional<std::string>& name) {
    auto nonempty = [&](const FastaRecord& r) -> const FastaRecord& {
        if (r.sequence.empty()) throw Error(path + ":" + std::to_string(r.line) + ": record '" + r.name + "' has no sequence");
        return r;
    };
    if (!name) {
        if (recs.size() == 1) return nonempty(recs[0]);
        std::string list;
        for (size_t i = 0; i < recs.size() && i < 5; ++i) list += (i ? ", " : "") + recs[i].name;
        throw Error(path + " holds " + std::to_string(recs.size()) + " records; choose one with --record NAME (" + list +
                    (recs.size() > 5 ? ", ...)" : ")"));
    }
    const FastaRecord* found = nullptr;
    for (const FastaRecord& r : recs) {
        if (r.name != *name) continue;
        if (found)
            throw Error(path + ": more than one record is named '" + *name + "' (lines " + std::to_string(found->line) + " and " +
                        std::to_string(r.line) + ")");
        found = &r;
    }
    if (!found) throw Error(path + ": no record named '" + *name + "'");
    return nonempty(*found);
}

char parse_base(const std::string& opt, const std::string& v) {
    if (v.size() != 1 || base_code(char(std::toupper(static_cast<unsigned char>(v[0])))) < 0)
        throw Error("--" + opt + " must be one base A, C, G or T, not '" + v + "'");
    return char(std::toupper(static_cast<unsigned char>(v[0])));
}

// Scoring options shared by the three commands (before the model is known).
ScoreOptions scoring_options(const Args& a) {
    ScoreOptions o;
    o.tags = resolve_tags(a.get_or("tags", ""), a.flag("free-tags"));
    o.chunk_tokens = size_t(a.integer("chunk", 512, 1, 1 << 20));
    return o;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int cmd_score(const std::vector<std::string>& argv) {
    if (wants_help(argv, kScoreUsage)) return 0;
    Args a(argv, {"model", "in", "tracks", "tags", "window", "overlap", "yarn", "backend", "threads", "chunk", "project", "project-wait", "weights"},
           {"json", "no-token-score", "free-tags", "quiet"});
    const std::string in = a.required("in");
    const std::vector<FastaRecord> recs = read_fasta(in);
    ScoreOptions o = scoring_options(a);
    o.token_score = !a.flag("no-token-score");
    o.window_tokens = size_t(a.integer("window", 0, 1, 1ll << 32));
    if (auto ov = a.optional_integer("overlap", 0, 1ll << 32)) o.overlap_tokens = size_t(*ov);
    const std::optional<std::string> tracks_path = a.get("tracks");
    const std::optional<ProjectTarget> project = project_target(a);  // a wrong --project is refused before the work
    o.per_base_track = tracks_path.has_value() || project.has_value();
    std::vector<NamedSequence> stored_records;  // with --project: what the run stores
    std::vector<SequenceScore> stored_scores;

    auto m = load_model_from_args(a);
    o.context_tokens = size_t(m->config().max_position_embeddings);
    const WindowLayout L = window_layout(m->tokenizer(), o);
    size_t total = 0;
    for (const FastaRecord& r : recs) {
        total += r.sequence.size();
        const size_t tokens = (r.sequence.size() + 5) / 6;
        if (tokens > L.window_tokens)
            std::fprintf(stderr, "note: %s (%zu bp) is longer than one window: scored in windows of %zu tokens (%zu bp) whose "
                         "first %zu tokens (%zu bp) are left context only\n",
                         r.name.c_str(), r.sequence.size(), L.window_tokens, 6 * L.window_tokens, L.overlap_tokens,
                         6 * L.overlap_tokens);
    }

    std::optional<OutputFile> tracks;
    if (tracks_path) {
        tracks.emplace(*tracks_path);
        tracks->stream() << "name\tpos\tbase\tlogp\tp_A\tp_C\tp_G\tp_T\tentropy_bits\n";
    }

    const bool json = a.flag("json");
    Json rows = Json::array();
    if (!json) std::printf("name\tlength\tbases_scored\tbase_mean_logp\ttoken_mean_logp\n");
    ProgressPrinter progress(a.flag("quiet"));
    const auto t0 = std::chrono::steady_clock::now();
    // The scoring run: records in bounded groups, written group by group.
    runs::ScoringRunCallbacks run;
    run.sequence = [&](size_t i) -> const std::string& { return recs[i].sequence; };
    run.progress = [&](size_t done, size_t all) {
        progress.update(double(done), double(all), "bp", double(done) / std::max(1e-9, seconds_since(t0)));
        return true;
    };
    run.on_group = [&](size_t first, std::vector<SequenceScore>& res) {
        progress.finish();
        const size_t last = first + res.size();
        for (size_t i = first; i < last; ++i) {
            const FastaRecord& r = recs[i];
            const SequenceScore& s = res[i - first];
            print_notices(r.name, s.notices);
            if (json) {
                rows.push_back({{"name", r.name}, {"length", s.length}, {"bases_scored", s.bases_scored},
                                {"base_mean_logp", jnum(s.base_mean_logp)}, {"token_mean_logp", jnum(s.token_mean_logp)},
                                {"tokens_scored", s.tokens_scored}, {"windows", s.windows}});
            } else {
                std::printf("%s\t%zu\t%zu\t%s\t%s\n", r.name.c_str(), s.length, s.bases_scored, num(s.base_mean_logp).c_str(),
                            num(s.token_mean_logp).c_str());
            }
            if (tracks) {
                for (size_t p = 0; p < s.track.size(); ++p) {
                    const BaseScore& b = s.track[p];
                    // Engine order is A, T, C, G (the 6-mer index); users read A, C, G, T.
                    char line[160];
                    const int n = std::snprintf(line, sizeof line, "\t%zu\t%c\t%s\t%.7g\t%.7g\t%.7g\t%.7g\t%.7g\n", p + 1,
                                                r.sequence[p], num(b.logp, 7).c_str(), b.p[0], b.p[2], b.p[3], b.p[1], b.entropy_bits);
                    tracks->stream() << r.name;
                    tracks->stream().write(line, std::min<std::streamsize>(n, sizeof line - 1));
                }
            }
        }
        if (project)
            for (size_t i = first; i < last; ++i) {
                stored_records.push_back({recs[i].name, recs[i].description, recs[i].sequence});
                stored_scores.push_back(std::move(res[i - first]));
            }
    };
    runs::score_in_groups(*m, recs.size(), o, run);
    std::fflush(stdout);
    if (json) std::cout << rows.dump(2) << "\n";
    if (tracks) tracks->commit();
    const double secs = seconds_since(t0);
    if (project)
        store_scores(*project, *m, stored_records, stored_scores,
                     {{"in", in}, {"tags", o.tags}, {"window_tokens", std::to_string(L.window_tokens)},
                      {"overlap_tokens", std::to_string(L.overlap_tokens)}, {"token_score", o.token_score ? "1" : "0"},
                      {"chunk_tokens", std::to_string(o.chunk_tokens)}, {"yarn", a.get_or("yarn", "")}},
                     double(total) / std::max(secs, 1e-9));
    if (!a.flag("quiet"))
        std::fprintf(stderr, "%zu record(s), %zu bp in %.2f s (%.0f bp/s) on %s\n", recs.size(), total, secs,
                     double(total) / std::max(secs, 1e-9), m->backend().describe().c_str());
    return 0;
}

int cmd_variant(const std::vector<std::string>& argv) {
    if (wants_help(argv, kVariantUsage)) return 0;
    Args a(argv,
           {"model", "in", "record", "pos", "ref", "alt", "window", "tags", "yarn", "backend", "threads", "chunk", "project", "project-wait",
            "predictor", "activity-model", "activity-window", "batch"},
           {"rc", "json", "free-tags", "quiet"});
    if (a.get("predictor") && a.get("activity-model"))
        throw Error("give --predictor (fitted on --model's embeddings) or --activity-model (a fine-tuned checkpoint), not both");
    const std::optional<ProjectTarget> project = project_target(a);  // a wrong --project is refused before the work
    const std::string in = a.required("in");
    const std::vector<FastaRecord> recs = read_fasta(in);
    const FastaRecord& rec = pick_record(recs, in, a.get("record"));
    a.required("pos");
    const long long pos = *a.optional_integer("pos", std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max());
    if (pos < 1 || size_t(pos) > rec.sequence.size())
        throw Error("--pos " + std::to_string(pos) + " is outside record '" + rec.name + "' (positions 1-" +
                    std::to_string(rec.sequence.size()) + ")");
    const char alt = parse_base("alt", a.required("alt"));
    const char ref = a.get("ref") ? parse_base("ref", *a.get("ref")) : 0;
    const char actual = char(std::toupper(static_cast<unsigned char>(rec.sequence[size_t(pos - 1)])));
    if (ref && ref != actual)
        throw Error("--ref " + std::string(1, ref) + " does not match record '" + rec.name + "' at position " + std::to_string(pos) +
                    ", which is " + std::string(1, rec.sequence[size_t(pos - 1)]));
    VariantOptions vo;
    vo.scoring = scoring_options(a);
    vo.window_bp = size_t(a.integer("window", 8192, 1, 1ll << 40));
    vo.reverse_complement = a.flag("rc");
    const size_t activity_window = size_t(a.integer("activity-window", 0, 1, 1ll << 40));
    const size_t batch = size_t(a.integer("batch", 16, 1, 4096));
    std::optional<Probe> probe;
    if (a.get("predictor")) probe = predictor_from_args(a);  // a wrong predictor is refused before any model loads

    auto m = load_model_from_args(a);
    vo.scoring.context_tokens = size_t(m->config().max_position_embeddings);
    ProgressPrinter progress(a.flag("quiet"));
    const auto t0 = std::chrono::steady_clock::now();
    const VariantScore v = score_variant(m->backend(), m->tokenizer(), rec.sequence, size_t(pos - 1), ref, alt, vo,
                                         [&](size_t done, size_t total) {
                                             progress.update(double(done), double(total), "tokens", double(done) / std::max(1e-9, seconds_since(t0)));
                                             return true;
                                         });
    progress.finish();
    // The predicted activity change: a fitted predictor over this model, or a second model.
    std::unique_ptr<Model> activity_checkpoint;
    std::optional<ActivityModel> activity;
    if (probe)
        activity.emplace(*m, std::move(probe));
    else if (auto dir = a.get("activity-model"))
        activity.emplace(*(activity_checkpoint = load_model_from_args(a, *dir)), std::nullopt);
    VariantActivities va;
    if (activity) {
        const BaseVariant bv{size_t(pos - 1), 0, alt};
        try {  // the variant itself was checked by the scoring above: what fails here is the predictor's input
            va = predict_variant_activity(activity->predictor(), rec.sequence, std::span<const BaseVariant>(&bv, 1),
                                          "record '" + visible_text(rec.name, 80) + "'", activity_window, batch);
        } catch (const Error& e) {
            if (activity_window) throw;
            throw Error(std::string(e.what()) + " (the predictor was given the whole record; --activity-window BP gives it that many bases centred on the site)");
        }
    }
    if (a.flag("json")) {
        Json j = {{"record", rec.name}, {"pos", pos}, {"ref", std::string(1, v.ref)}, {"alt", std::string(1, v.alt)},
                            {"site_log_odds", jnum(v.site_log_odds)}, {"window_start", v.window.start + 1},
                            {"window_end", v.window.end}, {"window_delta", jnum(v.window_delta)}};
        if (vo.reverse_complement) {
            j["window_delta_rc"] = jnum(v.window_delta_rc);
            j["window_delta_mean"] = jnum(v.window_delta_mean);
        }
        if (activity) {
            const VariantActivity& r = va.variants[0];
            Json outs = Json::array();
            for (size_t k = 0; k < va.outputs.size(); ++k)
                outs.push_back({{"name", va.outputs[k]}, {"reference", jnum(r.reference[k])}, {"alternative", jnum(r.alternative[k])},
                                {"change", jnum(r.change[k])}, {"note", activity->output_note(k, va.held_out[k])}});
            j["activity"] = {{"predictor", activity->describe(a)}, {"window_start", r.window.start + 1}, {"window_end", r.window.end},
                             {"outputs", outs}};
        }
        std::cout << j.dump(2) << "\n";
    } else {
        std::string head = "record\tpos\tref\talt\tsite_log_odds\twindow_start\twindow_end\twindow_delta";
        if (vo.reverse_complement) head += "\twindow_delta_rc\twindow_delta_mean";
        std::string row = visible_text(rec.name) + "\t" + std::to_string(pos) + "\t" + v.ref + "\t" + v.alt + "\t" + num(v.site_log_odds) + "\t" +
                          std::to_string(v.window.start + 1) + "\t" + std::to_string(v.window.end) + "\t" + num(v.window_delta);
        if (vo.reverse_complement) row += "\t" + num(v.window_delta_rc) + "\t" + num(v.window_delta_mean);
        if (activity) {
            const VariantActivity& r = va.variants[0];
            std::printf("##predictor=%s\n", activity->describe(a).c_str());
            head += "\tactivity_window_start\tactivity_window_end";
            row += "\t" + std::to_string(r.window.start + 1) + "\t" + std::to_string(r.window.end);
            for (size_t k = 0; k < va.outputs.size(); ++k) {
                const std::string o = visible_text(va.outputs[k]);
                std::printf("##output=%s: %s\n", o.c_str(), activity->output_note(k, va.held_out[k]).c_str());
                head += "\t" + o + "_reference\t" + o + "_alternative\t" + o + "_change";
                row += "\t" + num(r.reference[k]) + "\t" + num(r.alternative[k]) + "\t" + num(r.change[k]);
            }
        }
        std::printf("%s\n%s\n", head.c_str(), row.c_str());
    }
    if (project) {
        RunSettings settings{{"in", in}, {"pos", std::to_string(pos)}, {"alt", std::string(1, alt)}, {"window_bp", std::to_string(vo.window_bp)},
                             {"rc", vo.reverse_complement ? "1" : "0"}, {"tags", vo.scoring.tags}, {"yarn", a.get_or("yarn", "")}};
        if (activity) {  // the predicted change is kept with the run, beside what predicted it
            const VariantActivity& r = va.variants[0];
            settings.push_back({"activity_predictor", activity->describe(a)});
            settings.push_back({"activity_window", std::to_string(r.window.start + 1) + "-" + std::to_string(r.window.end)});
            for (size_t k = 0; k < va.outputs.size(); ++k) {
                settings.push_back({"activity_" + va.outputs[k] + "_reference", num(r.reference[k])});
                settings.push_back({"activity_" + va.outputs[k] + "_alternative", num(r.alternative[k])});
                settings.push_back({"activity_" + va.outputs[k] + "_change", num(r.change[k])});
                settings.push_back({"activity_" + va.outputs[k] + "_note", activity->output_note(k, va.held_out[k])});
            }
        }
        store_variant(*project, *m, {rec.name, rec.description, rec.sequence}, v, settings);
    }
    return 0;
}

int cmd_ism(const std::vector<std::string>& argv) {
    if (wants_help(argv, kIsmUsage)) return 0;
    Args a(argv, {"model", "in", "record", "region", "out", "window", "tags", "yarn", "backend", "threads", "chunk", "project", "project-wait"},
           {"exact", "free-tags", "quiet"});
    const std::string in = a.required("in");
    const std::string out_path = a.required("out");
    const std::optional<ProjectTarget> project = project_target(a);  // a wrong --project is refused before the work
    const std::vector<FastaRecord> recs = read_fasta(in);
    const FastaRecord& rec = pick_record(recs, in, a.get("record"));
    const std::string region = a.required("region");
    const size_t dash = region.find('-');
    auto parse_pos = [&](const std::string& s) -> long long {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 15)
            throw Error("--region must be START-END with 1-based positions, e.g. 100-250, not '" + region + "'");
        return std::stoll(s);
    };
    if (dash == std::string::npos) throw Error("--region must be START-END with 1-based positions, e.g. 100-250, not '" + region + "'");
    const long long start = parse_pos(region.substr(0, dash)), end = parse_pos(region.substr(dash + 1));
    if (start < 1 || end < start || size_t(end) > rec.sequence.size())
        throw Error("--region " + region + " is outside record '" + rec.name + "' (positions 1-" + std::to_string(rec.sequence.size()) +
                    (end < start ? "; START must not exceed END)" : ")"));
    IsmOptions io;
    io.scoring = scoring_options(a);
    io.window_bp = size_t(a.integer("window", 8192, 1, 1ll << 40));
    io.exact = a.flag("exact");
    OutputFile out(out_path);  // before the work: a folder or an unwritable path is refused now

    auto m = load_model_from_args(a);
    io.scoring.context_tokens = size_t(m->config().max_position_embeddings);
    ProgressPrinter progress(a.flag("quiet"));
    const auto t0 = std::chrono::steady_clock::now();
    const IsmResult r = saturation_mutagenesis(m->backend(), m->tokenizer(), rec.sequence, size_t(start - 1), size_t(end), io,
                                               [&](size_t done, size_t total) {
                                                   progress.update(double(done), double(total), io.exact ? "tokens" : "bp",
                                                                   double(done) / std::max(1e-9, seconds_since(t0)));
                                                   return true;
                                               });
    progress.finish();
    out.stream() << "pos\tref\talt\tscore\n";
    for (const IsmEntry& e : r.entries)
        out.stream() << e.position + 1 << '\t' << e.ref << '\t' << e.alt << '\t' << num(e.score) << '\n';
    out.commit();
    if (project)
        store_ism(*project, *m, {rec.name, rec.description, rec.sequence}, r,
                  {{"in", in}, {"region", region}, {"exact", io.exact ? "1" : "0"}, {"window_bp", std::to_string(io.window_bp)},
                   {"tags", io.scoring.tags}, {"yarn", a.get_or("yarn", "")}},
                  "the mutant scores are in " + out_path);
    if (r.skipped_non_acgt)
        std::fprintf(stderr, "note: %zu position(s) of the region are not A/C/G/T and were skipped\n", r.skipped_non_acgt);
    if (!a.flag("quiet")) {
        const double secs = seconds_since(t0);
        std::fprintf(stderr, "%zu mutant(s), %s mode, window %zu-%zu (%zu bp)%s in %.2f s -> %s\n", r.entries.size(),
                     io.exact ? "exact" : "fast", r.window.start + 1, r.window.end, r.window.end - r.window.start,
                     io.exact ? (", " + std::to_string(r.mutant_tokens) + " mutant tokens").c_str() : "", secs, out_path.c_str());
    }
    return 0;
}

}  // namespace carbon::cli
