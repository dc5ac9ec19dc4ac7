// A loaded Carbon model: checkpoint (memory-mapped), tokenizer and the backend that runs it.
// Held by pointer because the backend refers to the checkpoint's mapped weights.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "carbon/backend.h"
#include "carbon/loader/checkpoint.h"
#include "carbon/tokenizer/tokenizer.h"

namespace carbon {

enum class BackendKind { Auto, Cpu, Cuda };
BackendKind parse_backend_kind(const std::string& text);  // "auto" | "cpu" | "cuda", Error otherwise
const char* backend_kind_name(BackendKind kind);

struct ModelOptions {
    BackendKind backend = BackendKind::Auto;
    int threads = 0;  // CPU threads; <= 0: all cores
    std::string cpu_kernels;  // BackendOptions::cpu_kernels
    std::string weights;      // BackendOptions::weights ("" / "native", "int8" on either backend, "q8_0" on the CPU)
    double yarn_factor = 0;  // > 1: extend the context with YaRN (Checkpoint::extend_context_yarn)
    bool self_check = true;  // run (or reuse the cached verdict of) the GPU self-check before using a GPU
};

// The checkpoint's tokenizer: its folder's tokenizer files, or a GGUF file's tokenizer.ggml.* keys.
Tokenizer open_tokenizer(const Checkpoint& checkpoint);

class Model {
public:
    // Opens checkpoint and tokenizer (a checkpoint folder, or a GGUF file: Checkpoint::open),
    // checks they agree (every DNA id inside vocab_size), and starts the backend. A model whose
    // matrices are a GGUF file's Q8_0 blocks runs them as they are: native weights are its q8_0
    // weights, and int8 (per-row) is refused rather than rounding twice. q8_0 weights run on the
    // CPU (Cuda refuses them, Auto runs them there and says so); int8 runs on either. Auto uses the GPU when the build has a GPU provider (gpu_provider.h), a
    // device is usable, the model fits in its free memory and the self-check passes; otherwise it
    // runs on the CPU and says why in notice(). Cuda turns each of those reasons into an Error,
    // except a failed self-check, which falls back to the CPU with the notice.
    static std::unique_ptr<Model> load(const std::filesystem::path& dir, const ModelOptions& options = {});

    const Checkpoint& checkpoint() const { return checkpoint_; }
    const ModelConfig& config() const { return checkpoint_.config(); }
    const Tokenizer& tokenizer() const { return tokenizer_; }
    Backend& backend() { return *backend_; }
    const Backend& backend() const { return *backend_; }
    // A one-time message for the user about the backend choice (empty when nothing to say).
    const std::string& notice() const { return notice_; }
    // The weights it runs with: "native" (as stored), "int8" or "q8_0" (ModelOptions::weights).
    const std::string& weights() const { return weights_; }

private:
    Model(Checkpoint checkpoint, Tokenizer tokenizer);
    // The GPU backend, or null with notice_ set when `auto` (or a failed self-check) falls back.
    std::unique_ptr<Backend> start_gpu(const ModelOptions& options, const BackendOptions& backend_options);
    Checkpoint checkpoint_;
    Tokenizer tokenizer_;
    std::unique_ptr<Backend> backend_;
    std::string notice_;
    std::string weights_ = "native";
};

}  // namespace carbon
