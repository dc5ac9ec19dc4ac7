// carbon-cli predictor fit: a predictor fitted to the user's measurements (a CSV/TSV table of
// sequences or names and one column per condition) on frozen Carbon embeddings, with its k-fold
// held-out accuracy per condition (carbon/predict/probe.h). Needs storage/ (the table's reader)
// and LAPACK (the ridge fits).
#include "commands.h"

#include "carbon/support/common.h"

#if !defined(CARBON_HAVE_STORAGE) || !defined(CARBON_HAVE_LAPACK)

namespace carbon::cli {

int cmd_predictor(const std::vector<std::string>&) {
    throw Error("this carbon-cli was built without storage/ or LAPACK, which fitting a predictor needs "
                "(install libhts-dev, libsqlite3-dev and libopenblas-dev, and rebuild)");
}

}  // namespace carbon::cli

#else

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

#include "carbon/predict/probe.h"
#include "carbon/runs/predictor_fit.h"
#include "carbon/storage/measurements.h"
#include "carbon/storage/project.h"
#include "carbon/support/output_file.h"
#include "carbon/support/visible_text.h"
#include "cli_args.h"
#include "cli_common.h"
#include "cli_fasta.h"
#include "cli_project.h"

namespace carbon::cli {

namespace {

const char* kPredictorUsage = R"(usage: carbon-cli predictor fit --model DIR --table FILE.tsv|FILE.csv [--sequences FILE.fasta]
             (--out PREDICTOR.json | --project FILE [--name NAME] [--project-wait S])
             [--embedding both|dna-end|dna-mean] [--strands forward|average]
             [--folds K] [--seed S] [--batch N] [--cv-out FILE.tsv] [--embeddings-out FILE.npy]
             [--backend auto|cpu|cuda] [--threads N] [--weights native|int8|q8_0] [--quiet]
  Fits a predictor of the table's measurements to frozen embeddings of DIR's model: ridge
  regression per condition on standardised features, the penalty chosen by leave-one-out error,
  and the accuracy measured by K-fold cross-validation of the whole fit (default 5 folds).
  The table has a header: 'name' and/or 'sequence', one column per condition, and optional
  '<condition>_se' standard errors; a row without a sequence takes the record of that name in
  --sequences. Empty cells and NA are not measured.
  --embedding: the final hidden state at </dna> (dna-end), its mean over the DNA tokens
  (dna-mean) or both side by side (default); --strands average: with the reverse complement's.
  --out: the predictor (JSON: the fit and its provenance), for carbon-cli predict --predictor.
  --project: stores it in the project under --name (default: the table's file name without its
  extension), for carbon-cli predict --project FILE --predictor NAME and the application.
  --cv-out: each measured sequence's held-out prediction (name, condition, fold, measured,
  predicted). --embeddings-out: the embeddings fitted to, as a NumPy float64 array [rows, width].
  --weights: the weights the embeddings are computed with (as carbon-cli generate; int8 embeds
  faster on a CPU with AMX or VNNI). The predictor records them; applied under other weights of
  the same model, its held-out accuracy is said to be measured under the ones it was fitted with.
)";

void write_npy(OutputFile& out, const Embeddings& e, size_t rows) {
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " + std::to_string(e.width) + "), }";
    const size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    std::ostream& os = out.stream();
    os.write("\x93NUMPY\x01\x00", 8);
    const uint16_t len = uint16_t(header.size());
    const char len_le[2] = {char(len & 0xff), char(len >> 8)};
    os.write(len_le, 2);
    os << header;
    static_assert(sizeof(double) == 8);
    os.write(reinterpret_cast<const char*>(e.values.data()), std::streamsize(e.values.size() * sizeof(double)));
}

int predictor_fit(const std::vector<std::string>& argv) {
    Args a(argv, {"model", "table", "sequences", "out", "embedding", "strands", "folds", "seed", "batch", "cv-out", "embeddings-out",
                  "backend", "threads", "project", "project-wait", "name", "weights"},
           {"quiet"});
    const std::string table_path = a.required("table");
    const std::optional<ProjectTarget> project = project_target(a);
    if (!project && !a.get("out")) throw Error("predictor fit: give --out PREDICTOR.json, --project FILE, or both");
    if (!project && a.get("name")) throw Error("--name names the predictor in --project FILE");
    const std::string stored_name = a.get_or("name", std::filesystem::path(table_path).stem().string());
    if (stored_name.empty() || stored_name.size() > 200) throw Error("--name: a predictor's name is 1 to 200 bytes");
    if (project && std::filesystem::exists(project->path) && project_has_predictor(project->path, stored_name))
        throw Error(project->path + ": already holds a predictor named '" + stored_name + "'; choose another with --name");
    EmbeddingRecipe recipe;
    recipe.pool = EmbeddingRecipe::parse_pool(a.get_or("embedding", "both"), "--embedding");
    recipe.rc_average = EmbeddingRecipe::parse_strands(a.get_or("strands", "forward"), "--strands");
    ProbeFitOptions options;
    options.folds = size_t(a.integer("folds", 5, 2, 100));
    options.seed = uint64_t(a.integer("seed", 1, 0, (1LL << 53)));
    const size_t batch = size_t(a.integer("batch", 16, 1, 4096));

    // The table and the sequences it names, all checked before the model loads.
    storage::MeasurementTable table = storage::read_measurement_table(table_path);
    if (auto fasta = a.get("sequences")) {
        std::map<std::string, std::string> by_name;
        std::map<std::string, size_t> count;
        for (const FastaRecord& r : read_fasta(*fasta)) {
            by_name[r.name] = r.sequence;
            ++count[r.name];
        }
        storage::resolve_measurement_sequences(
            table,
            [&](const std::string& name) -> std::optional<std::string> {
                auto it = by_name.find(name);
                if (it == by_name.end()) return std::nullopt;
                if (count[name] > 1) throw Error(*fasta + ": " + std::to_string(count[name]) + " records are named '" + visible_text(name, 80) + "': which one was measured?");
                return it->second;
            },
            *fasta);
    }
    for (const storage::MeasurementRow& r : table.rows)  // before the model loads
        if (r.sequence.empty())
            throw Error(table_path + ":" + std::to_string(r.line) + ": '" + visible_text(r.name, 80) +
                        "' has no sequence in the table; give the FASTA file that holds it with --sequences");
    std::optional<OutputFile> out, cv_out, npy_out;
    if (auto p = a.get("out")) out.emplace(*p);
    if (auto p = a.get("cv-out")) cv_out.emplace(*p);
    if (auto p = a.get("embeddings-out")) npy_out.emplace(*p);

    auto m = load_model_from_args(a);
    const bool quiet = a.flag("quiet");
    runs::PredictorFit fit;
    {
        ProgressPrinter embedding(quiet), fitting(quiet);
        const auto t0 = std::chrono::steady_clock::now();
        bool embedded = false;
        fit = runs::fit_predictor(*m, table, {recipe, options, batch}, [&](const char* stage, size_t done, size_t total) {
            if (std::string_view(stage) == "embedding") {
                const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                embedding.update(double(done), double(total), "sequences embedded", double(done) / std::max(1e-9, s));
            } else {
                if (!embedded) embedding.finish(), embedded = true;
                fitting.update(double(done), double(total), "ridge fits", 0);
            }
            return true;
        });
        if (!embedded) embedding.finish();
        fitting.finish();
    }
    const Embeddings& emb = fit.embeddings;
    const std::optional<Probe>& probe = fit.probe;
    if (out) {
        out->stream() << probe_to_json(*probe);
        out->commit();
    }
    if (cv_out) {
        std::ostream& os = cv_out->stream();
        os << "name\tcondition\tfold\tmeasured\tpredicted\n";
        for (const ProbeCondition& c : probe->conditions)
            for (size_t i = 0; i < c.n; ++i)
                os << visible_text(probe->row_names[c.rows[i]]) << '\t' << c.name << '\t' << (c.fold[i] + 1) << '\t' << tsv_number(c.measured[i], 17)
                   << '\t' << tsv_number(c.predicted[i], 17) << '\n';
        cv_out->commit();
    }
    if (npy_out) {
        write_npy(*npy_out, emb, table.rows.size());
        npy_out->commit();
    }
    if (project) store_predictor(*project, *probe, stored_name, out ? "the predictor is in " + out->path() : std::string());
    const std::string where = out ? out->path() : "'" + stored_name + "' in " + project->path;
    std::printf("predictor: %s (%zu sequences, %zu condition%s; %s; model %s; embedding %.2f s, fitting %.2f s)\n", where.c_str(),
                table.rows.size(), probe->conditions.size(), probe->conditions.size() == 1 ? "" : "s", recipe.describe().c_str(),
                probe->model_path.c_str(), fit.embedding_seconds, fit.fitting_seconds);
    for (size_t c = 0; c < probe->conditions.size(); ++c) {
        const ProbeCondition& k = probe->conditions[c];
        std::printf("  %s: %s; penalty %.3g", visible_text(k.name, 80).c_str(), probe->held_out(c).c_str(), k.ridge.alpha);
        if (k.noise_ceiling) std::printf("; the standard errors allow at most r %.2f", *k.noise_ceiling);
        std::printf("\n");
        for (const std::string& w : k.warnings) std::printf("    warning: %s\n", w.c_str());
    }
    return 0;
}

}  // namespace

int cmd_predictor(const std::vector<std::string>& argv) {
    if (argv.empty() || wants_help(argv, kPredictorUsage)) {
        if (argv.empty()) throw Error(std::string("predictor needs a subcommand\n") + kPredictorUsage);
        return 0;
    }
    if (argv[0] == "fit") return predictor_fit(std::vector<std::string>(argv.begin() + 1, argv.end()));
    throw Error("predictor: unknown subcommand '" + visible_text(argv[0], 40) + "' (fit)\n" + kPredictorUsage);
}

}  // namespace carbon::cli

#endif
