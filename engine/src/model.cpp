// Model loading and backend selection; direct 6-mer generation over the backend interface.
#include "carbon/model.h"

#include "carbon/generate.h"

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
    Tokenizer tok = Tokenizer::load(dir, ckpt.config().vocab_size);
    std::unique_ptr<Model> m(new Model(std::move(ckpt), std::move(tok)));
    BackendOptions bo;
    bo.threads = options.threads;
    switch (options.backend) {
        case BackendKind::Cuda:
            throw Error("the CUDA backend is not part of this build (configure with a CUDA compiler and CARBON_CUDA=ON)");
        case BackendKind::Auto:
            m->notice_ = "no CUDA backend in this build: running on the CPU";
            [[fallthrough]];
        case BackendKind::Cpu:
            m->backend_ = make_cpu_backend(m->checkpoint_, m->tokenizer_.kmer_ids(), bo);
            break;
    }
    return m;
}

std::vector<std::vector<int>> generate_direct(Backend& backend, const Tokenizer& tokenizer,
                                              const DirectGenerationRequest& req, const StepCallback& on_step) {
    if (req.prompt.empty()) throw Error("generate: the prompt is empty (it must at least hold <dna>)");
    std::vector<std::vector<int>> result(req.n_sequences);
    if (req.n_sequences == 0 || req.n_tokens == 0) return result;

    // Prefill once, then fork the cache for every sequence.
    const SeqId root = backend.create_sequence();
    std::vector<SeqId> seqs{root};
    try {
        ForwardOutput out;
        ForwardItem first{root, req.prompt, false};
        backend.forward(std::span(&first, 1), Head::Dna, out);
        for (size_t s = 1; s < req.n_sequences; ++s) seqs.push_back(backend.fork_sequence(root));

        std::vector<int32_t> next(req.n_sequences);
        std::vector<ForwardItem> items(req.n_sequences);
        for (size_t step = 0; step < req.n_tokens; ++step) {
            for (size_t s = 0; s < req.n_sequences; ++s) {
                // Before the first decode step every sequence reads the shared prompt's logits.
                const float* row = out.row(step == 0 ? 0 : s);
                const float u = req.sampling.temperature > 0 ? uniform01(req.sampling.seed, s, step, 0) : 0.f;
                const int index = int(sample_index(std::span<const float>(row, out.width), req.sampling, u));
                result[s].push_back(index);
                next[s] = tokenizer.kmer_id(index);
            }
            if (on_step && !on_step(step + 1)) break;
            if (step + 1 == req.n_tokens) break;
            for (size_t s = 0; s < req.n_sequences; ++s) items[s] = ForwardItem{seqs[s], std::span(&next[s], 1), false};
            backend.forward(items, Head::Dna, out);
        }
    } catch (...) {
        for (SeqId s : seqs) backend.free_sequence(s);
        throw;
    }
    for (SeqId s : seqs) backend.free_sequence(s);
    return result;
}

}  // namespace carbon
