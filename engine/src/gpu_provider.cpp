// The GPU provider registry, the memory plan and the self-check (see gpu_provider.h).
#include "carbon/gpu_provider.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <system_error>

#include "carbon/fns/sampling.h"
#include "carbon/model_catalog.h"
#include "carbon/support/user_dirs.h"

namespace carbon {

namespace fs = std::filesystem;

namespace {

std::mutex g_mutex;
std::shared_ptr<const GpuProvider> g_provider;

constexpr std::size_t kPromptBases = 48 * 6;
constexpr int kDecodeSteps = 8;
constexpr std::size_t kWorkspaceTokens = 512;

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

fs::path cache_file() {
    const fs::path base = user_cache_dir();
    return base.empty() ? fs::path() : base / "carbon-studio" / "gpu-self-check.tsv";
}

// The model's files as they are now: a changed or replaced file is a new key.
std::string cache_key(const Checkpoint& ck, const std::string& device_identity) {
    std::ostringstream os;
    std::error_code ec;
    os << fs::weakly_canonical(ck.dir(), ec).string();
    std::vector<fs::path> files = ck.archive().files();
    files.push_back(ck.config().path);
    for (const fs::path& f : files) {
        const auto size = fs::file_size(f, ec);
        const auto time = fs::last_write_time(f, ec).time_since_epoch().count();
        os << "|" << f.filename().string() << ":" << size << ":" << time;
    }
    os << "|" << device_identity << "|carbon " << CARBON_VERSION << " built " << __DATE__ << " " << __TIME__;
    std::string k = os.str();
    for (char& c : k)
        if (c == '\t' || c == '\n') c = ' ';
    return k;
}

bool cached_verdict(const std::string& key, SelfCheck& out) {
    std::ifstream in(cache_file());
    std::string line;
    while (std::getline(in, line)) {
        const auto t1 = line.find('\t'), t2 = line.find('\t', t1 == std::string::npos ? t1 : t1 + 1);
        if (t1 == std::string::npos || t2 == std::string::npos || line.substr(0, t1) != key) continue;
        out.passed = line.substr(t1 + 1, t2 - t1 - 1) == "pass";
        out.max_kl = std::atof(line.c_str() + t2 + 1);
        out.cached = true;
        return true;
    }
    return false;
}

// Appends the verdict (a failure to write only loses the cache).
void store_verdict(const std::string& key, const SelfCheck& r) {
    const fs::path f = cache_file();
    if (f.empty()) return;
    std::error_code ec;
    fs::create_directories(f.parent_path(), ec);
    std::ofstream out(f, std::ios::app);
    out << key << "\t" << (r.passed ? "pass" : "fail") << "\t" << r.max_kl << "\n";
}

// KL(p || q) of the softmaxes of two rows of logits.
double kl_rows(const float* p_logits, const float* q_logits, std::size_t n, bool perturb) {
    std::vector<float> q_copy(q_logits, q_logits + n);
    if (perturb)
        for (std::size_t i = 0; i < n; i += 7) q_copy[i] += 3.0f;
    std::vector<float> lp(n), lq(n);
    log_softmax(std::span<const float>(p_logits, n), lp);
    log_softmax(std::span<const float>(q_copy), lq);
    double kl = 0;
    for (std::size_t i = 0; i < n; ++i) kl += std::exp(double(lp[i])) * (double(lp[i]) - double(lq[i]));
    return kl;
}

// ||p - q|| / ||p|| of two rows of final hidden states (`perturb`: q moved as for kl_rows).
double relative_l2(const float* p, const float* q, std::size_t n, bool perturb) {
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double qi = double(q[i]) + (perturb && i % 7 == 0 ? 3.0 : 0.0);
        diff += (double(p[i]) - qi) * (double(p[i]) - qi);
        norm += double(p[i]) * double(p[i]);
    }
    return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

}  // namespace

namespace {

// A provider that only says why the plugin at `path` cannot be used.
std::shared_ptr<const GpuProvider> unusable(const fs::path& path, const std::string& why) {
    auto p = std::make_shared<GpuProvider>();
    const std::string reason = "the CUDA backend " + path.string() + " cannot be used: " + why;
    p->unavailable_reason = [reason] { return reason; };
    return p;
}

fs::path executable_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

}  // namespace

std::string load_gpu_plugin() {
    constexpr const char* kFile = "libcarbon-cuda.so";
    fs::path path;
    if (const std::string e = env("CARBON_CUDA_PLUGIN"); !e.empty()) {
        path = e;
    } else {
        const fs::path dir = executable_dir();
        for (const fs::path& candidate : {dir / kFile, dir / ".." / "lib" / "carbon-studio" / kFile}) {
            std::error_code ec;
            if (!dir.empty() && fs::is_regular_file(candidate, ec)) {
                path = candidate;
                break;
            }
        }
    }
    if (path.empty()) return "no CUDA backend in this build";
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = ::dlerror();
        register_gpu_provider(unusable(path, why ? why : "dlopen failed"));
        return gpu_provider()->unavailable_reason();
    }
    // Kept loaded for the life of the process (backends made by it may live until exit).
    using AbiFn = const char* (*)();
    using ProviderFn = GpuProvider* (*)();
    auto abi = reinterpret_cast<AbiFn>(::dlsym(handle, "carbon_gpu_plugin_abi"));
    auto make = reinterpret_cast<ProviderFn>(::dlsym(handle, "carbon_gpu_plugin_provider"));
    if (!abi || !make) {
        register_gpu_provider(unusable(path, "it is not a Carbon Studio GPU plugin (no carbon_gpu_plugin_provider)"));
        return gpu_provider()->unavailable_reason();
    }
    if (std::string(abi()) != kGpuPluginAbi) {
        register_gpu_provider(unusable(path, std::string("it was built for '") + abi() + "', this program is '" + kGpuPluginAbi + "'"));
        return gpu_provider()->unavailable_reason();
    }
    register_gpu_provider(std::shared_ptr<const GpuProvider>(make()));
    return "CUDA backend loaded from " + path.string();
}

void register_gpu_provider(std::shared_ptr<const GpuProvider> provider) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_provider = std::move(provider);
}

std::string gpu_status() {
    const auto p = gpu_provider();
    if (!p) return "no CUDA backend in this build";
    if (const std::string why = p->unavailable_reason(); !why.empty()) return "no usable GPU (" + why + ")";
    return "GPU: " + p->device_name() + " (" + p->name + ")";
}

std::shared_ptr<const GpuProvider> gpu_provider() {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_provider;
}

std::size_t gpu_memory_needed(const Checkpoint& ck) {
    const ModelConfig& c = ck.config();
    const std::size_t kv_token = std::size_t(c.num_hidden_layers) * 2 * std::size_t(c.num_key_value_heads) *
                                 std::size_t(c.head_dim) * 2;  // bf16 cache
    const std::size_t wide = std::size_t(std::max({c.hidden_size, c.intermediate_size, c.num_attention_heads * c.head_dim}));
    const std::size_t workspace = kWorkspaceTokens * (4 * std::size_t(c.hidden_size) + 10 * wide) * 4 +
                                  kWorkspaceTokens * 4096 * 4;
    return ck.archive().total_bytes() + kv_token * std::size_t(std::max(1, c.max_position_embeddings)) + workspace;
}

SelfCheck run_gpu_self_check(Backend& gpu, Backend& cpu, const Checkpoint& ck, const Tokenizer& tok,
                             const std::string& device_identity, const std::string& weights) {
    SelfCheck r;
    // A language model's rows are compared as distributions (KL of the DNA logits); a
    // sequence-regression checkpoint has no lm_head, and its final hidden states, what its head
    // reads, are compared by relative L2 difference per row.
    const bool hidden = !ck.weights().lm_head;
    const Head head = hidden ? Head::Hidden : Head::Dna;
    const bool int8 = weights == "int8";
    r.tolerance = ck.weights().dtype == DType::F32 && !int8 ? (hidden ? 1e-4 : 1e-5) : (hidden ? 0.05 : 0.02);
    const std::string mode = env("CARBON_GPU_SELF_CHECK");
    const bool perturb = mode == "mismatch";
    const std::string key = cache_key(ck, device_identity) + "|weights " + (weights.empty() ? "native" : weights) +
                            (perturb ? "|mismatch" : "");
    if (mode != "rerun" && !perturb && cached_verdict(key, r)) {
        r.detail = std::string("GPU self-check ") + (r.passed ? "passed" : "failed") + " earlier for this model, GPU and build (cached)";
        return r;
    }
    std::string bases(kPromptBases, 'A');
    unsigned x = 12345;
    for (char& b : bases) {
        x = x * 1103515245u + 12345u;
        b = "ACGT"[(x >> 16) & 3];
    }
    const std::vector<std::int32_t> prompt = tok.encode_prompt("", bases, false).ids;
    auto compare = [&](const ForwardOutput& want, const ForwardOutput& got) {
        const std::size_t rows = want.logits.size() / want.width;
        for (std::size_t row = 0; row < rows; ++row) {
            const float* a = want.row(0, 0) + row * want.width;
            const float* b = got.row(0, 0) + row * want.width;
            r.max_kl = std::max(r.max_kl, hidden ? relative_l2(a, b, want.width, perturb) : kl_rows(a, b, want.width, perturb));
        }
    };
    ForwardOutput a, b;
    const SeqId gs = gpu.create_sequence(), cs = cpu.create_sequence();
    std::vector<ForwardItem> gi = {{gs, prompt, true}}, ci = {{cs, prompt, true}};
    gpu.forward(gi, head, b);
    cpu.forward(ci, head, a);
    compare(a, b);
    const SeqId gf = gpu.fork_sequence(gs), cf = cpu.fork_sequence(cs);
    for (int step = 0; step < kDecodeSteps; ++step) {
        const std::vector<std::int32_t> t1 = {tok.kmer_id((step * 977 + 5) % 4096)}, t2 = {tok.kmer_id((step * 131 + 9) % 4096)};
        gi = {{gs, t1, false}, {gf, t2, false}};
        ci = {{cs, t1, false}, {cf, t2, false}};
        gpu.forward(gi, head, b);
        cpu.forward(ci, head, a);
        compare(a, b);
    }
    for (SeqId s : {gs, gf}) gpu.free_sequence(s);
    for (SeqId s : {cs, cf}) cpu.free_sequence(s);
    r.passed = std::isfinite(r.max_kl) && r.max_kl <= r.tolerance;
    std::ostringstream os;
    os << "GPU self-check " << (r.passed ? "passed" : "FAILED")
       << (hidden ? ": largest relative difference of the final hidden states from the CPU backend's " : ": largest KL divergence from the CPU backend ")
       << r.max_kl << (hidden ? " over " : " nats over ") << (prompt.size() + 2 * kDecodeSteps) << " positions (allowed " << r.tolerance << ")";
    r.detail = os.str();
    if (!perturb) store_verdict(key, r);
    return r;
}

}  // namespace carbon
