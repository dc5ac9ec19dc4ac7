// Model loading and backend selection.
#include "carbon/model.h"


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

Model::Model(Checkpoint checkpoint, Tokenizer tokenizer)
    : checkpoint_(std::move(checkpoint)), tokenizer_(std::move(tokenizer)) {}

std::unique_ptr<Model> Model::load(const std::filesystem::path& dir, const ModelOptions& options) {
    Checkpoint ckpt = Checkpoint::open(dir);
    if (options.yarn_factor > 0) ckpt.extend_context_yarn(options.yarn_factor);
    Tokenizer tok = Tokenizer::load(dir, ckpt.config().vocab_size);
    std::unique_ptr<Model> m(new Model(std::move(ckpt), std::move(tok)));
    BackendOptions bo;
    bo.threads = options.threads;
    switch (options.backend) {
        case BackendKind::Cuda:
            throw Error("the CUDA backend is not part of this build: this release runs the models on the CPU "
                        "(--backend cpu or auto)");
        case BackendKind::Auto:
            m->notice_ = "no CUDA backend in this build: running on the CPU";
            [[fallthrough]];
        case BackendKind::Cpu:
            m->backend_ = make_cpu_backend(m->checkpoint_, m->tokenizer_.kmer_ids(), bo);
            break;
    }
    if (const std::string n = m->backend_->notice(); !n.empty()) m->notice_ += (m->notice_.empty() ? "" : "; ") + n;
    return m;
}

}  // namespace carbon
