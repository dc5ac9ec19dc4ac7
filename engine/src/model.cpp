// Model loading and backend selection.
#include "carbon/model.h"

#include "carbon/gpu_provider.h"
#include "carbon/loader/gguf.h"
#include "carbon/support/host_memory.h"

#include <cstdlib>
#include <string_view>


namespace carbon {

BackendKind parse_backend_kind(const std::string& t) {
    if (t == "auto") return BackendKind::Auto;
    if (t == "cpu") return BackendKind::Cpu;
    if (t == "cuda") return BackendKind::Cuda;
    throw Error("unknown backend '" + t + "' (expected auto, cpu or cuda)");
}

const char* backend_kind_name(BackendKind k) {
    switch (k) {
        case BackendKind::Auto: return "auto";
        case BackendKind::Cpu: return "cpu";
        case BackendKind::Cuda: return "cuda";
    }
    return "?";
}

Tokenizer open_tokenizer(const Checkpoint& ck) {
    if (const GgufFile* g = ck.gguf()) return Tokenizer::from_gguf(*g, ck.config().vocab_size);
    if (ck.from_gguf())
        throw Error(ck.dir().string() + ": the GGUF file's metadata was let go after its tokenizer was read; open the model again");
    return Tokenizer::load(ck.dir(), ck.config().vocab_size);
}

Model::Model(Checkpoint checkpoint, Tokenizer tokenizer)
    : checkpoint_(std::move(checkpoint)), tokenizer_(std::move(tokenizer)) {}

std::unique_ptr<Backend> Model::start_gpu(const ModelOptions& options, const BackendOptions& bo) {
    const bool asked = options.backend == BackendKind::Cuda;
    // With `auto`, every reason not to use the GPU becomes the notice and the CPU runs the model;
    // with `cuda` it is the error.
    auto decline = [&](const std::string& why) -> std::unique_ptr<Backend> {
        if (asked) throw Error("cannot run on the GPU as asked (backend cuda): " + why);
        notice_ = why + ": running on the CPU";
        return nullptr;
    };
    const std::shared_ptr<const GpuProvider> gpu = gpu_provider();
    if (!gpu) return decline("no CUDA backend in this build");
    if (const std::string why = gpu->unavailable_reason(); !why.empty()) return decline("no usable GPU (" + why + ")");
    const std::size_t need = gpu_memory_needed(checkpoint_), free = gpu->free_memory();
    if (need > free)
        return decline(gpu->device_name() + " has " + std::to_string(free >> 20) + " MiB free, but this model needs " +
                       std::to_string(need >> 20) + " MiB on it (weights " + std::to_string(checkpoint_.archive().total_bytes() >> 20) +
                       " MiB, a bf16 KV cache for its " + std::to_string(config().max_position_embeddings) +
                       "-token context and the workspace)");
    std::unique_ptr<Backend> backend = gpu->make(checkpoint_, tokenizer_.kmer_ids(), bo);
    // CARBON_GPU_SELF_CHECK=off: measured without the check (benchmarks of random-weight
    // checkpoints, tests/gpu/prove.sh); said in the notice.
    const char* check_mode = std::getenv("CARBON_GPU_SELF_CHECK");
    if (options.self_check && check_mode && std::string_view(check_mode) == "off") {
        notice_ = "GPU self-check skipped (CARBON_GPU_SELF_CHECK=off)";
    } else if (options.self_check) {
        BackendOptions reference = bo;  // the CPU oracle: fp32 activations whatever the CPU offers
        reference.cpu_kernels = "fp32";
        auto cpu = make_cpu_backend(checkpoint_, tokenizer_.kmer_ids(), reference);
        const SelfCheck check = run_gpu_self_check(*backend, *cpu, checkpoint_, tokenizer_, gpu->device_identity(), bo.weights);
        if (!check.passed) {
            notice_ = check.detail + ": the GPU's results differ from the CPU reference, so the model runs on the CPU";
            return nullptr;
        }
        if (!check.cached) notice_ = check.detail;
    }
    return backend;
}

std::unique_ptr<Model> Model::load(const std::filesystem::path& dir, const ModelOptions& options) {
    Checkpoint ckpt = Checkpoint::open(dir);
    if (options.yarn_factor > 0) ckpt.extend_context_yarn(options.yarn_factor);
    Tokenizer tok = open_tokenizer(ckpt);
    if (ckpt.from_gguf()) {
        ckpt.drop_gguf_metadata();
        return_free_heap();  // its half a million small values, back to the system before the weights load
    }
    // A GGUF file's Q8_0 weights run as they are: native means them (int8 is left for the CPU
    // backend to refuse, the one place that does).
    std::string weights = options.weights;
    const bool ckpt_is_q8_0 = ckpt.weights().q8_0;
    if (ckpt_is_q8_0 && weights != "int8") weights = "q8_0";
    std::unique_ptr<Model> m(new Model(std::move(ckpt), std::move(tok)));
    BackendOptions bo;
    bo.threads = options.threads;
    bo.cpu_kernels = options.cpu_kernels;
    bo.weights = weights;
    // int8 (per row) runs on either backend, to the same products; q8_0 (groups of 32) on the CPU.
    const bool cpu_only = weights == "q8_0";
    if (cpu_only && options.backend == BackendKind::Cuda)
        throw Error(std::string(ckpt_is_q8_0 ? "this GGUF file's Q8_0 weights" : "q8_0 weights") +
                    " (groups of 32) run on the CPU backend: give --backend cpu (or auto)" +
                    (ckpt_is_q8_0 ? ", or a bf16 GGUF or the checkpoint folder with int8 weights on the GPU" : ", or int8 weights on the GPU"));
    if (options.backend != BackendKind::Cpu && !cpu_only) m->backend_ = m->start_gpu(options, bo);
    if (cpu_only && options.backend == BackendKind::Auto && gpu_provider())
        m->notice_ = "q8_0 weights (groups of 32) run on the CPU; the GPU runs int8 (one scale per row)";
    if (!m->backend_) m->backend_ = make_cpu_backend(m->checkpoint_, m->tokenizer_.kmer_ids(), bo);
    if (weights == "int8" || weights == "q8_0") m->weights_ = weights;
    if (const std::string n = m->backend_->notice(); !n.empty()) m->notice_ += (m->notice_.empty() ? "" : "; ") + n;
    return m;
}

}  // namespace carbon
