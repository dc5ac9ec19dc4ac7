// carbon-cli: the engine's command-line front end (no Qt, no SQLite). Subcommands:
// make-test-model, info, generate, score, variant, ism, vep, bench, project.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <new>
#include <sstream>

#include "carbon/cpu/cpu_features.h"
#include "carbon/gpu_provider.h"
#include "carbon/loader/rope.h"
#include "carbon/model.h"
#include "carbon/test_support/test_model.h"
#include "cli_args.h"
#include "cli_common.h"
#include "cli_project.h"
#include "commands.h"

namespace carbon::cli {

namespace {

const char* kUsage = R"(carbon-cli: the Carbon Studio engine from the command line

usage:
  carbon-cli make-test-model --out DIR [--preset tiny|carbon-500m|carbon-3b|carbon-8b] [--seed N]
             [--layers N] [--hidden N] [--intermediate N] [--heads N] [--kv-heads N] [--head-dim N]
             [--dtype bf16|f16|f32] [--tie|--untie] [--rope none|yarn|llama3] [--rope-theta X]
             [--shard-mb N] [--compact-vocab] [--list-kmers] [--rope-parameters-form]
  carbon-cli info --model DIR
  carbon-cli models [--hub DIR] [DIR...]   (model folders and Hugging Face cache snapshots, not loaded)
  carbon-cli generate --model DIR [--context SEQ | --context-fasta FILE] [--right-flank SEQ] [--tags T1,T2]
             (--length N | --template IUPAC) [--count N] [--mode fns|direct] [--temperature T] [--top-p P]
             [--seed S] [--max-homopolymer N] [--forbid MOTIF|ENZYME,...] [--require-site ENZYME@POS,...] [--gc MIN-MAX] --out FILE.fasta
             [--draft DIR [--draft-tokens K] [--draft-verify distribution|identical] [--no-auto-disable]]
             [--project FILE [--project-wait SECONDS]]
             [--backend auto|cpu|cuda] [--threads N] [--free-tags] [--quiet]
  carbon-cli score --model DIR --in FILE.fasta [--json] [--tracks OUT.tsv] [--tags T1,T2] [--window N] [--yarn F]
  carbon-cli variant --model DIR --in FILE.fasta --pos P [--ref B] --alt B [--window BP] [--rc]
  carbon-cli ism --model DIR --in FILE.fasta --region START-END [--exact] --out FILE.tsv
  carbon-cli predict --model DIR [--predictor FILE.json] --in FILE.fasta [--out FILE.tsv]
             (a fine-tuned activity predictor, or one fitted with predictor fit)
  carbon-cli predictor fit --model DIR --table MEASURED.tsv [--sequences FILE.fasta] --out PREDICTOR.json
             (fits a predictor to your measurements; reports its held-out accuracy)
  carbon-cli evolve --model DIR [--predictor FILE.json] --start SEQ --objective mingap:K562 --budget N --out FILE.tsv
             (directed evolution under a predictor, within the design constraints)
  carbon-cli vep --model DIR --reference GENOME.fa[.gz] --vcf VARIANTS.vcf[.gz]|.bcf --out SCORES.tsv
             [--window BP] [--rc] [--regions CHR:FROM-TO,...] [--resume]   (a whole VCF, in input order)
             (each of these: carbon-cli COMMAND --help)
  carbon-cli select --in DESIGNS.fasta --count N --out FILE.fasta [--min-distance D] [--min-score X]
             (designs to order: near-duplicates removed, good ones far apart on both strands)
  carbon-cli check --rules twist-oligo-pool|twist-gene-fragment|idt-gblock|idt-opool|FILE.rules --in DESIGNS.fasta
             [--upstream SEQ] [--downstream SEQ] [--json] [--list-rules]
             (can a vendor make them: each synthesis rule broken and where)
  carbon-cli motifs scan --motifs FILE --in FILE.fasta --out FILE.tsv [--pvalue P] [--background uniform|sequence]
             (transcription-factor motifs: JASPAR, MEME, TRANSFAC; no model needed)
  carbon-cli bench --model DIR [--threads N] [--prompt-tokens N] [--decode-tokens N] [--batches 1,8]
             [--repeat N] [--json FILE]

  carbon-cli project list FILE | import FILE --fasta IN [--vcf IN --sequence NAME] [--recover R] | export FILE --format F --out OUT
             (carbon-cli project --help for the export formats)
  generate, score, variant and ism take --project FILE to store the run and its results there,
  waiting at most --project-wait SECONDS (default 300) for another program writing to it; a run
  that cannot be stored is kept in a recovery project beside it (the message says where).

Errors go to stderr with exit status 1.
)";

std::string human(double bytes) { return human_bytes(bytes); }

DType parse_dtype(const std::string& s) {
    if (s == "bf16" || s == "bfloat16") return DType::BF16;
    if (s == "f16" || s == "float16") return DType::F16;
    if (s == "f32" || s == "float32") return DType::F32;
    throw Error("unknown dtype '" + s + "' (expected bf16, f16 or f32)");
}

const char* kMakeTestModelUsage = R"(usage: carbon-cli make-test-model --out DIR [--preset tiny|carbon-500m|carbon-3b|carbon-8b] [--seed N]
             [--layers N] [--hidden N] [--intermediate N] [--heads N] [--kv-heads N] [--head-dim N]
             [--max-position N] [--dtype bf16|f16|f32] [--tie|--untie] [--rope none|yarn|llama3]
             [--rope-theta X] [--shard-mb N] [--compact-vocab] [--list-kmers] [--rope-parameters-form]
  Writes a checkpoint with random weights in the exact Hugging Face layout of the Carbon models
  (config.json, safetensors, tokenizer files with the real DNA token ids), for tests and benchmarks.
  The disk and memory it needs are checked first.
)";

const char* kInfoUsage = R"(usage: carbon-cli info --model DIR [--threads N] [--cpu-kernels auto|fp32|NAME]
  What the engine reads from a model folder: sizes, dtype, context, RoPE, the DNA token ids, the
  memory it needs, and the CPU kernels it will use (every path, and whether this CPU runs it).
)";

int cmd_make_test_model(const std::vector<std::string>& argv) {
    if (wants_help(argv, kMakeTestModelUsage)) return 0;
    Args a(argv, {"out", "preset", "seed", "layers", "hidden", "intermediate", "heads", "kv-heads", "head-dim", "dtype", "rope",
                  "rope-theta", "shard-mb", "max-position"},
           {"tie", "untie", "compact-vocab", "list-kmers", "rope-parameters-form"});
    TestModelOptions o;
    o.preset = a.get_or("preset", "tiny");
    o.seed = uint64_t(a.integer("seed", 0, 0, (1ll << 62)));
    auto opt = [&](const char* n, std::optional<int>& field) {
        if (auto v = a.optional_integer(n, 1, 1 << 20)) field = int(*v);
    };
    opt("layers", o.layers);
    opt("hidden", o.hidden);
    opt("intermediate", o.intermediate);
    opt("heads", o.heads);
    opt("kv-heads", o.kv_heads);
    opt("head-dim", o.head_dim);
    opt("max-position", o.max_position);
    if (a.flag("tie") && a.flag("untie")) throw Error("--tie and --untie exclude each other");
    if (a.flag("tie")) o.tie = true;
    if (a.flag("untie")) o.tie = false;
    o.dtype = parse_dtype(a.get_or("dtype", "bf16"));
    o.rope = a.get_or("rope", "none");
    o.rope_theta = a.number("rope-theta", 0, 0, 1e12);
    o.shard_bytes = size_t(a.integer("shard-mb", 0, 0, 1 << 20)) << 20;
    o.compact_vocab = a.flag("compact-vocab");
    o.list_kmers = a.flag("list-kmers");
    o.rope_parameters_form = a.flag("rope-parameters-form");
    const std::string out = a.required("out");
    const ModelConfig c = test_model_config(o);
    std::fprintf(stderr, "writing %s checkpoint (%s parameters, %s) to %s\n", o.preset.c_str(),
                 std::to_string(c.parameter_count()).c_str(), dtype_name(o.dtype), out.c_str());
    int last = -1;
    make_test_model(out, o, [&](size_t done, size_t total) {
        int pct = total ? int(100.0 * double(done) / double(total)) : 100;
        if (pct / 10 != last / 10) std::fprintf(stderr, "  %3d%%\n", pct);
        last = pct;
        return true;
    });
    std::printf("%s\n", out.c_str());
    return 0;
}

int cmd_info(const std::vector<std::string>& argv) {
    if (wants_help(argv, kInfoUsage)) return 0;
    Args a(argv, {"model", "threads", "cpu-kernels"}, {});
    ModelOptions mo;
    mo.backend = BackendKind::Cpu;
    mo.threads = int(a.integer("threads", 0, 0, 1024));
    mo.cpu_kernels = a.get_or("cpu-kernels", "auto");
    auto m = Model::load(a.required("model"), mo);
    const ModelConfig& c = m->config();
    const Tokenizer& t = m->tokenizer();
    const MemoryPlan plan = m->backend().memory_plan();
    std::ostringstream os;
    os << "model         " << m->checkpoint().dir().string() << "\n";
    os << "architecture  " << c.model_type << " (" << (c.architectures.empty() ? "?" : c.architectures[0]) << ")\n";
    char params[32];
    std::snprintf(params, sizeof params, "%.3g M", double(c.parameter_count()) / 1e6);
    os << "parameters    " << c.parameter_count() << " (" << params << ")\n";
    os << "layers        " << c.num_hidden_layers << ", hidden " << c.hidden_size << ", FFN " << c.intermediate_size << "\n";
    os << "attention     " << c.num_attention_heads << " heads, " << c.num_key_value_heads << " KV heads, head_dim " << c.head_dim << "\n";
    os << "vocabulary    " << c.vocab_size << (c.tie_word_embeddings ? ", tied input/output embeddings" : ", separate lm_head") << "\n";
    os << "dtype         " << dtype_name(m->checkpoint().weights().dtype) << " (config torch_dtype " << dtype_name(c.torch_dtype) << ")\n";
    os << "context       " << c.max_position_embeddings << " tokens (~" << c.max_position_embeddings * 6 / 1000 << " kbp)\n";
    os << "rope          theta " << c.rope_theta << ", scaling " << rope_type_name(c.rope_scaling.type);
    if (c.rope_scaling.type != RopeType::Default) {
        os << " (factor " << c.rope_scaling.factor << ", original context " << c.rope_scaling.original_max_position_embeddings;
        if (c.rope_scaling.type == RopeType::Yarn) os << ", attention factor " << compute_rope(c).attention_scaling;
        os << ")";
    }
    os << "\n";
    os << "weights       " << m->checkpoint().archive().files().size() << " file(s), " << human(double(plan.weights)) << "\n";
    os << "tokenizer     " << t.info().source << " (class " << (t.info().tokenizer_class.empty() ? "?" : t.info().tokenizer_class) << ")\n";
    os << "DNA tags      <dna>=" << t.dna_open_id() << " </dna>=" << t.dna_close_id() << " <oov>=" << t.oov_id() << "\n";
    os << "6-mer ids     " << t.kmer_id(0) << ".." << t.kmer_id(kNumKmers - 1) << " (AAAAAA..GGGGGG), " << t.info().kmer_ids_from << "\n";
    os << "text BPE      " << t.info().bpe_vocab_size << " tokens, " << t.info().num_merges << " merges, pre-tokenizer "
       << t.info().pretokenizer << (t.info().nfc ? ", NFC" : "") << " (" << t.info().bpe_from << ")\n";
    const double kv_ctx = double(plan.kv_per_token) * c.max_position_embeddings;
    os << "memory        weights " << human(double(plan.weights)) << " (memory-mapped); KV cache " << human(double(plan.kv_per_token))
       << "/token fp32, " << human(kv_ctx) << " for one full-context sequence\n";
    os << "backend       " << m->backend().describe() << "\n";
    os << "CPU flags     " << cpu_flags() << "\n";
    os << "CPU kernels   (choose with --cpu-kernels NAME or CARBON_CPU_KERNELS=NAME; fp32 = fp32 activations)\n"
       << cpu_kernel_paths();
    std::cout << os.str();
    return 0;
}

}  // namespace

}  // namespace carbon::cli

int main(int argc, char** argv) {
    using namespace carbon::cli;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::fputs(kUsage, args.empty() ? stderr : stdout);
        return args.empty() ? 1 : 0;
    }
    carbon::load_gpu_plugin();  // the CUDA backend, where it was built and its libraries load
    const std::string cmd = args[0];
    args.erase(args.begin());
    try {
        if (cmd == "make-test-model") return cmd_make_test_model(args);
        if (cmd == "info") return cmd_info(args);
        if (cmd == "generate") return cmd_generate(args);
        if (cmd == "bench") return cmd_bench(args);
        if (cmd == "score") return cmd_score(args);
        if (cmd == "variant") return cmd_variant(args);
        if (cmd == "ism") return cmd_ism(args);
        if (cmd == "predict") return cmd_predict(args);
        if (cmd == "predictor") return cmd_predictor(args);
        if (cmd == "evolve") return cmd_evolve(args);
        if (cmd == "vep") return cmd_vep(args);
        if (cmd == "project") return cmd_project(args);
        if (cmd == "models") return cmd_models(args);
        if (cmd == "motifs") return cmd_motifs(args);
        if (cmd == "select") return cmd_select(args);
        if (cmd == "check") return cmd_check(args);
        std::fprintf(stderr, "carbon-cli: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
        return 1;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "carbon-cli %s: error: out of memory: this request needs more memory than this machine (or the "
                             "process's limit, ulimit -v) allows; ask for less at once\n",
                     cmd.c_str());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "carbon-cli %s: error: %s\n", cmd.c_str(), e.what());
        return 1;
    } catch (...) {
        std::fprintf(stderr, "carbon-cli %s: error: an unexpected failure (not a standard exception); please report it\n", cmd.c_str());
        return 1;
    }
}
