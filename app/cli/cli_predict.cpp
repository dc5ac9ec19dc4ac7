// carbon-cli predict: activity predicted for each record of a FASTA file by a sequence-regression
// checkpoint (Carbon's fine-tuning recipes, carbon/predict/regressor.h) or by a predictor fitted to
// the user's measurements on a model's embeddings (--predictor, carbon/predict/probe.h).
#include <chrono>
#include <cstdio>
#include <optional>
#include <sstream>

#include "carbon/support/output_file.h"
#include "carbon/support/visible_text.h"
#include "cli_activity.h"
#include "cli_args.h"
#include "cli_common.h"
#include "cli_fasta.h"
#include "commands.h"

namespace carbon::cli {

namespace {

const char* kPredictUsage = R"(usage: carbon-cli predict --model DIR [--predictor FILE.json | --project FILE --predictor NAME] --in FILE.fasta [--out FILE.tsv]
             [--batch N] [--backend auto|cpu|cuda] [--threads N] [--weights native|int8|q8_0] [--quiet]
  With --predictor, DIR is the model the predictor was fitted on (carbon-cli predictor fit; any
  other model is refused) and each value is in the table's units, its held-out accuracy in the
  '##output' lines. Without it:
  DIR is a sequence-regression checkpoint of Carbon's fine-tuning recipes (LlamaForSequenceClassification,
  problem_type regression). Its run_config.json, in DIR or the folder above it, is followed: the
  DNA tag mode, reverse-complement averaging and the label transform, so values are in the
  measured units where the recipe scaled them. TSV (stdout without --out): '#' lines saying the
  model, the recipe and each output's units, then name, length and one column per output.
  --weights int8: the model's projections quantised to int8 at load (as carbon-cli generate):
  faster on a CPU with AMX or VNNI, the values moved by int8's rounding (docs/predict.md says by
  how much). A fitted predictor records the weights it was fitted with; its held-out accuracy
  is said to be measured under those when they differ.
)";

}  // namespace

int cmd_predict(const std::vector<std::string>& argv) {
    if (wants_help(argv, kPredictUsage)) return 0;
    Args a(argv, {"model", "predictor", "project", "in", "out", "batch", "backend", "threads", "weights"}, {"quiet"});
    const std::string in = a.required("in");
    const std::vector<FastaRecord> recs = read_fasta(in);
    const size_t batch = size_t(a.integer("batch", 16, 1, 4096));
    std::optional<OutputFile> out_file;
    if (auto p = a.get("out")) out_file.emplace(*p);  // a wrong --out is refused before the model loads
    std::optional<Probe> probe = predictor_from_args(a);

    auto m = load_model_from_args(a);
    ActivityModel activity(*m, std::move(probe));
    std::vector<std::string> sequences, names;
    for (const FastaRecord& r : recs) {
        sequences.push_back(r.sequence);
        names.push_back(in + ": " + visible_text(r.name, 80));
    }
    ProgressPrinter progress(a.flag("quiet"));
    const auto t0 = std::chrono::steady_clock::now();
    const PredictProgress report = [&](size_t done, size_t total) {
        progress.update(double(done), double(total), "sequences",
                        double(done) / std::max(1e-9, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
        return true;
    };
    const Predictions p = activity.predictor().predict(sequences, names, batch, report);
    progress.finish();

    std::ostringstream os;
    os << "##carbon-cli predict " << CARBON_VERSION << "\n##model=" << m->checkpoint().dir().string() << "\n##backend="
       << m->backend().describe() << "\n";
    os << "##predictor=" << activity.describe(a) << "\n";
    for (size_t j = 0; j < p.outputs.size(); ++j) os << "##output=" << visible_text(p.outputs[j]) << ": " << activity.output_note(j, p.held_out[j]) << "\n";
    os << "name\tlength";
    for (const std::string& o : p.outputs) os << '\t' << visible_text(o);
    os << '\n';
    for (size_t i = 0; i < recs.size(); ++i) {
        os << visible_text(recs[i].name) << '\t' << recs[i].sequence.size();
        for (double v : p.values[i]) os << '\t' << tsv_number(v);
        os << '\n';
    }
    if (out_file) {
        out_file->stream() << os.str();
        out_file->commit();
    } else {
        std::fputs(os.str().c_str(), stdout);
    }
    return 0;
}

}  // namespace carbon::cli
