// The CPU backend: the Llama forward pass over memory-mapped weights with fp32 accumulation (fp32
// activations, or bf16 matmul inputs on the amx / avx512-bf16 kernels: cpu_isa.h), a
// block-allocated fp32 KV cache per sequence, and ragged batches. With the fp32 kernels it is the
// oracle the other backends are compared with, so it favours the plain formula (the one
// transformers uses) over clever rearrangements.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "carbon/backend.h"
#include "carbon/loader/rope.h"
#include "carbon/model_catalog.h"
#include "carbon/support/host_memory.h"
#include "carbon/support/thread_pool.h"
#include "cpu_matmul_paths.h"
#include "cpu_ops.h"
#include "cpu_packed_weights.h"
#include "cpu_q8.h"

namespace carbon {

namespace {

constexpr size_t kBlockTokens = 64;  // KV cache allocation unit: no reallocation per token

cpu::WeightMatrix matrix(const TensorView* t) {
    cpu::WeightMatrix m;
    m.data = t->data;
    m.dtype = t->dtype;
    m.rows = size_t(t->shape[0]);
    m.cols = size_t(t->shape[1]);
    return m;
}

// One sequence's cache: blocks of kBlockTokens positions, each [layer][k|v][kv_head][token][dim].
struct SequenceCache {
    std::vector<std::unique_ptr<float[]>> blocks;
    size_t length = 0;
};

// Workers spin between the loops of a forward pass, so more of them than hardware threads only
// take turns: a request for more runs with what the machine has, and says so.
std::string threads_note(int requested) {
    const int cpus = usable_cpus();
    if (requested <= cpus) return {};
    return std::to_string(requested) + " threads requested, but this process can run on " + std::to_string(cpus) +
           " hardware thread(s): using " + std::to_string(cpus);
}

class CpuBackend final : public Backend {
public:
    CpuBackend(const Checkpoint& ckpt, std::vector<int32_t> dna_rows, const BackendOptions& opt)
        : cfg_(ckpt.config()), w_(ckpt.weights()), dna_rows_(std::move(dna_rows)),
          threads_note_(threads_note(opt.threads)), pool_(std::min(opt.threads, usable_cpus())),
          isa_(cpu::choose_isa(opt.cpu_kernels)) {
        if (opt.weights == "int8" || opt.weights == "q8_0") {
            q8_kernel_ = cpu::best_q8_kernel();
            q8_scheme_ = opt.weights == "int8" ? cpu::Q8Scheme::Rows : cpu::Q8Scheme::Groups;
        } else if (!opt.weights.empty() && opt.weights != "native") {
            throw Error("weights '" + opt.weights +
                        "': expected native (as the checkpoint stores them), int8 (one scale per row, the fastest) or q8_0 (groups of 32, the "
                        "closest to the stored weights)");
        }
        if (ckpt.weights().q8_0) {  // a GGUF file's Q8_0 matrices run as they are (Model::load says so too)
            if (q8_scheme_ == cpu::Q8Scheme::Rows && q8_kernel_)
                throw Error(ckpt.dir().string() + ": holds Q8_0 weights, which run as they are (q8_0); per-row int8 would round them twice");
            q8_kernel_ = cpu::best_q8_kernel();
            q8_scheme_ = cpu::Q8Scheme::Groups;
        }
        if (cfg_.partial_rotary_factor != 1.0)
            throw Error(cfg_.path.string() + ": partial_rotary_factor " + std::to_string(cfg_.partial_rotary_factor) +
                        " is not supported by the Llama network (transformers' LlamaAttention rotates the whole head)");
        if (dna_rows_.size() != size_t(4096))
            throw Error("CPU backend: expected 4096 DNA 6-mer ids, got " + std::to_string(dna_rows_.size()));
        for (int32_t id : dna_rows_)
            if (id < 0 || id >= cfg_.vocab_size)
                throw Error("CPU backend: DNA token id " + std::to_string(id) + " is outside the vocabulary (vocab_size " +
                            std::to_string(cfg_.vocab_size) + ")");
        rope_ = compute_rope(cfg_);
        hd_ = size_t(cfg_.head_dim);
        n_heads_ = size_t(cfg_.num_attention_heads);
        n_kv_ = size_t(cfg_.num_key_value_heads);
        block_floats_ = size_t(cfg_.num_hidden_layers) * 2 * n_kv_ * kBlockTokens * hd_;
        weights_bytes_ = ckpt.archive().total_bytes();
        const cpu::Isa path = cpu::isa_for_dtype(isa_, w_.dtype);
        if (q8_kernel_) {
            quantize_weights(ckpt.archive());
            return;
        }
        // (amx_kernel_choice refuses a bad CARBON_AMX_KERNEL here, before anything runs.)
        if (path == cpu::Isa::Avx512Bf16 ||
            (path == cpu::Isa::Amx && cpu::detail::amx_kernel_choice() == cpu::detail::AmxKernel::Packed))
            pack_weights(ckpt.archive());
    }

    std::string name() const override { return "cpu"; }
    // Every dot product is summed in one fixed order on each path, whatever the batch (cpu_isa.h).
    BackendGuarantees guarantees() const override { return {SIZE_MAX, SIZE_MAX}; }
    std::string notice() const override {
        std::string n = threads_note_;
        if (!pool_.shortfall().empty()) n += (n.empty() ? "" : "; ") + pool_.shortfall();
        return n;
    }

    std::string describe() const override {
        std::ostringstream os;
        const cpu::Isa path = cpu::isa_for_dtype(isa_, w_.dtype);
        if (q8_kernel_) {
            os << "CPU, " << pool_.size() << " threads, int8 weights ("
               << (q8_scheme_ == cpu::Q8Scheme::Rows ? "one scale per output row, activations per row"
                                                     : "groups of 32 with fp16 scales, activations per group")
               << (w_.q8_0 ? std::string("; read as the GGUF file's Q8_0 blocks")
                           : std::string("; quantised at load from ") + dtype_name(w_.dtype))
               << "), " << cpu::q8_kernel_name(*q8_kernel_)
               << " int8 kernels, int8 matmul inputs, "
               << cpu::isa_name(path) << " elsewhere, fp32 KV cache";
            return os.str();
        }
        os << "CPU, " << pool_.size() << " threads, " << cpu::isa_name(path) << " kernels, " << dtype_name(w_.dtype)
           << " weights, " << (cpu::isa_rounds_activations(path) ? "bf16 matmul inputs, fp32 sums, " : "fp32 activations, ")
           << "fp32 KV cache";
        if (!packed_.empty()) os << ", weights packed for the kernel";
        if (path == cpu::Isa::Amx && cpu::detail::amx_kernel_choice() != cpu::detail::AmxKernel::Packed)
            os << ", " << cpu::detail::amx_kernel_name(cpu::detail::amx_kernel_choice()) << " AMX kernel (CARBON_AMX_KERNEL)";
        return os.str();
    }

    SeqId create_sequence() override {
        SeqId id = next_id_++;
        seqs_.emplace(id, SequenceCache{});
        return id;
    }
    void release_cached_memory() override {
        spare_.clear();
        spare_.shrink_to_fit();
        for (std::vector<float>* v : {&x_, &xn_, &q_, &k_, &v_, &att_, &gate_, &up_, &cos_, &sin_}) {
            v->clear();
            v->shrink_to_fit();
        }
        workspace_bytes_ = 0;
        return_free_heap();
    }
    void free_sequence(SeqId seq) override {
        auto it = seqs_.find(seq);
        if (it == seqs_.end()) return;
        for (auto& b : it->second.blocks) recycle(std::move(b));
        seqs_.erase(it);
    }
    SeqId fork_sequence(SeqId src) override {
        const SequenceCache& s = cache(src);
        SeqId id = create_sequence();
        SequenceCache& d = seqs_.at(id);
        for (const auto& b : s.blocks) {
            d.blocks.push_back(take_block());
            std::copy_n(b.get(), block_floats_, d.blocks.back().get());
        }
        d.length = s.length;
        return id;
    }
    size_t sequence_length(SeqId seq) const override { return cache(seq).length; }
    void truncate_sequence(SeqId seq, size_t n) override {
        SequenceCache& s = cache(seq);
        if (n > s.length)
            throw Error("truncate_sequence: sequence " + std::to_string(seq) + " holds " + std::to_string(s.length) +
                        " tokens, cannot keep " + std::to_string(n));
        s.length = n;
        const size_t keep = (n + kBlockTokens - 1) / kBlockTokens;
        for (size_t b = keep; b < s.blocks.size(); ++b) recycle(std::move(s.blocks[b]));
        s.blocks.resize(keep);
    }

    MemoryPlan memory_plan() const override {
        MemoryPlan p;
        p.weights = weights_bytes_;
        p.kv_per_token = size_t(cpu_kv_bytes_per_token(cfg_));  // shared with model_catalog's estimate
        p.workspace = workspace_bytes_;
        return p;
    }

    void forward(std::span<const ForwardItem> items, Head head, ForwardOutput& out) override;

private:
    // The avx512-bf16 kernels and the AMX packed kernel stream weights laid out for them
    // (cpu_packed_weights.h; one layout, the AMX tiles' B operand): each matrix
    // is copied once, and the mapping's pages of it released as soon as it is, so the weights are
    // never held twice (the peak grows by one matrix at most). The DNA head is packed as the 4,096
    // rows it reads; a full-vocabulary head reads the mapping.
    void pack_weights(const TensorArchive& archive) {
        auto pack = [&](const TensorView* t) {
            if (packed_of_.count(t)) return;
            const cpu::WeightMatrix m = matrix(t);
            packed_.push_back(cpu::pack_weights(pool_, m, nullptr, m.rows, t->name.c_str()));
            packed_of_[t] = packed_.back().data();
            archive.release_pages(*t);
        };
        for (const LayerWeights& L : w_.layers)
            for (const TensorView* t : {L.wq, L.wk, L.wv, L.wo, L.w_gate, L.w_up, L.w_down}) pack(t);
        if (!w_.lm_head) return;  // a sequence-regression checkpoint
        packed_.push_back(
            cpu::pack_weights(pool_, matrix(w_.lm_head), dna_rows_.data(), dna_rows_.size(), w_.lm_head->name.c_str()));
        dna_head_packed_ = packed_.back().data();
        if (w_.lm_head != w_.embed) archive.release_pages(*w_.lm_head);  // (tied: the embedding reads it)
    }

    // int8 weights: every projection and the DNA head's 4,096 rows quantised once at load (the
    // mapping's pages of each released as it is, as pack_weights does); the embedding, the norms
    // and a full-vocabulary head stay as stored.
    void quantize_weights(const TensorArchive& archive) {
        size_t released = 0;
        auto quantize = [&](const TensorView* t) {
            if (q8_of_.count(t)) return;
            q8_.push_back(std::make_unique<cpu::Q8Matrix>(q8_matrix(t, nullptr, size_t(t->shape[0]))));
            q8_of_[t] = q8_.back().get();
            archive.release_pages(*t);
            released += t->nbytes;
        };
        for (const LayerWeights& L : w_.layers)
            for (const TensorView* t : {L.wq, L.wk, L.wv, L.wo, L.w_gate, L.w_up, L.w_down}) quantize(t);
        if (w_.lm_head) {
            // The DNA head as its own matrix of the 4,096 rows it reads, in dna_rows_ order.
            dna_head_q8_ = std::make_unique<cpu::Q8Matrix>(q8_matrix(w_.lm_head, dna_rows_.data(), dna_rows_.size()));
            if (w_.lm_head != w_.embed) {  // (tied: the embedding reads it; a full-vocabulary head reads it back)
                archive.release_pages(*w_.lm_head);
                released += w_.lm_head->nbytes;
            }
        }
        size_t q8_bytes = dna_head_q8_ ? dna_head_q8_->bytes() : 0;
        for (const auto& q : q8_) q8_bytes += q->bytes();
        weights_bytes_ = weights_bytes_ - released + q8_bytes;
    }

    // A weight matrix (rows row_of[0..n), or all of it when row_of is null) in the 8-bit scheme: a
    // GGUF file's Q8_0 blocks as they are, any other dtype quantised.
    cpu::Q8Matrix q8_matrix(const TensorView* t, const int32_t* row_of, size_t n) {
        const cpu::WeightMatrix m = matrix(t);
        if (t->dtype == DType::Q8_0) {  // named as the file names it (import_q8_0 checks every block)
            const std::string where = (t->stored_name.empty() ? t->name : t->stored_name) + " of " + t->file.string();
            return cpu::import_q8_0(pool_, static_cast<const uint8_t*>(m.data), n, m.cols, row_of, where.c_str());
        }
        if (!row_of) return cpu::quantize_q8(pool_, m, q8_scheme_, t->name.c_str());
        const size_t elem = dtype_size(m.dtype);
        std::vector<uint8_t> rows(n * m.cols * elem);
        for (size_t j = 0; j < n; ++j)
            std::memcpy(rows.data() + j * m.cols * elem, static_cast<const uint8_t*>(m.data) + size_t(row_of[j]) * m.cols * elem,
                        m.cols * elem);
        cpu::WeightMatrix picked = m;
        picked.data = rows.data();
        picked.rows = n;
        return cpu::quantize_q8(pool_, picked, q8_scheme_, t->name.c_str());
    }

    // A matrix with its packed copy, when it has one.
    cpu::WeightMatrix weights(const TensorView* t) const {
        cpu::WeightMatrix m = matrix(t);
        if (auto it = packed_of_.find(t); it != packed_of_.end()) m.packed = it->second;
        return m;
    }

    SequenceCache& cache(SeqId seq) {
        auto it = seqs_.find(seq);
        if (it == seqs_.end()) throw Error("unknown sequence id " + std::to_string(seq));
        return it->second;
    }
    const SequenceCache& cache(SeqId seq) const { return const_cast<CpuBackend*>(this)->cache(seq); }

    // KV blocks freed by free_sequence / truncate_sequence are kept (up to kSpareBytes) and handed
    // out again, so a stream of short-lived sequences (scoring windows, variants, designs) does not
    // fault fresh pages in on every forward. They were resident already: the peak does not grow.
    static constexpr size_t kSpareBytes = size_t(256) << 20;
    std::unique_ptr<float[]> take_block() {
        if (spare_.empty()) return std::unique_ptr<float[]>(new float[block_floats_]);
        auto b = std::move(spare_.back());
        spare_.pop_back();
        return b;
    }
    void recycle(std::unique_ptr<float[]> b) {
        if (b && (spare_.size() + 1) * block_floats_ * sizeof(float) <= kSpareBytes) spare_.push_back(std::move(b));
    }

    float* kv_slot(SequenceCache& s, size_t layer, int which, size_t kv_head, size_t pos) const {
        float* block = s.blocks[pos / kBlockTokens].get();
        return block + (((layer * 2 + size_t(which)) * n_kv_ + kv_head) * kBlockTokens + pos % kBlockTokens) * hd_;
    }

    void attention(size_t layer, std::span<const ForwardItem> items, const std::vector<size_t>& item_row,
                   const std::vector<SequenceCache*>& caches, const std::vector<size_t>& start, const float* q,
                   float* out);

    ModelConfig cfg_;
    ModelWeights w_;
    std::vector<int32_t> dna_rows_;
    std::string threads_note_;
    ThreadPool pool_;
    cpu::Isa isa_;
    RopeTable rope_;
    size_t hd_ = 0, n_heads_ = 0, n_kv_ = 0, block_floats_ = 0;
    size_t weights_bytes_ = 0, workspace_bytes_ = 0;
    std::map<SeqId, SequenceCache> seqs_;
    std::vector<std::unique_ptr<float[]>> spare_;
    std::vector<cpu::PackedWeights> packed_;  // moving one keeps its mapping: the pointers below stay valid
    std::unordered_map<const TensorView*, const uint32_t*> packed_of_;
    const uint32_t* dna_head_packed_ = nullptr;
    std::optional<cpu::Q8Kernel> q8_kernel_;  // int8 weights (BackendOptions::weights)
    cpu::Q8Scheme q8_scheme_ = cpu::Q8Scheme::Rows;
    std::vector<std::unique_ptr<cpu::Q8Matrix>> q8_;
    std::unordered_map<const TensorView*, const cpu::Q8Matrix*> q8_of_;
    std::unique_ptr<cpu::Q8Matrix> dna_head_q8_;
    std::unique_ptr<cpu::Q8Matrix> full_head_q8_;  // a Q8_0 head over the whole vocabulary, once asked for
    cpu::Q8Rows q8_rows_;  // the activations of the matmul at hand, quantised
    SeqId next_id_ = 0;
    // Workspace reused across calls (grown, never shrunk).
    std::vector<float> x_, xn_, q_, k_, v_, att_, gate_, up_, cos_, sin_;
};

void CpuBackend::attention(size_t layer, std::span<const ForwardItem> items, const std::vector<size_t>& item_row,
                           const std::vector<SequenceCache*>& caches, const std::vector<size_t>& start, const float* q,
                           float* out) {
    // Each item's cache as cpu::attention_rows reads it: this layer's keys and values in its blocks.
    std::vector<std::vector<const float*>> blocks(items.size());
    std::vector<cpu::KvBlocks> kv(items.size());
    const size_t head_floats = kBlockTokens * hd_;
    for (size_t i = 0; i < items.size(); ++i) {
        for (const auto& b : caches[i]->blocks) blocks[i].push_back(b.get());
        cpu::KvBlocks& v = kv[i];
        v.blocks = blocks[i].data();
        v.block_tokens = kBlockTokens;
        v.k_offset = (layer * 2 + 0) * n_kv_ * head_floats;  // as kv_slot: [layer][k|v][kv_head][token][dim]
        v.v_offset = (layer * 2 + 1) * n_kv_ * head_floats;
        v.head_stride = head_floats;
        v.token_stride = hd_;
    }
    // Attention takes the tiles only with the matmuls (bf16 weights); fp32 or f16 weights keep fp32
    // attention (AVX-512 where the CPU has it).
    const cpu::Isa path = cpu::isa_for_dtype(isa_, w_.dtype) == cpu::Isa::Amx ? cpu::Isa::Amx
                          : isa_ == cpu::Isa::Amx                              ? cpu::Isa::Avx512
                                                                               : isa_;
    cpu::attention_rows(pool_, cpu::AttentionShape{n_heads_, n_kv_, hd_}, kv, item_row, start, q, out, path);
}

void CpuBackend::forward(std::span<const ForwardItem> items, Head head, ForwardOutput& out) {
    const size_t H = size_t(cfg_.hidden_size), F = size_t(cfg_.intermediate_size);
    const size_t qdim = n_heads_ * hd_, kvdim = n_kv_ * hd_;
    const float eps = float(cfg_.rms_norm_eps);

    if ((head == Head::Dna || head == Head::Full) && !w_.lm_head) throw_no_language_model_head(cfg_);
    // Validate the whole batch before touching any cache.
    std::vector<SequenceCache*> caches;
    std::vector<size_t> item_row{0}, start;
    for (size_t i = 0; i < items.size(); ++i) {
        const ForwardItem& it = items[i];
        SequenceCache* s = &cache(it.seq);
        if (std::find(caches.begin(), caches.end(), s) != caches.end())
            throw Error("forward: sequence " + std::to_string(it.seq) + " appears twice in one batch");
        if (it.tokens.empty()) throw Error("forward: item " + std::to_string(i) + " has no tokens");
        for (size_t p = 0; p < it.tokens.size(); ++p)
            if (it.tokens[p] < 0 || it.tokens[p] >= cfg_.vocab_size)
                throw Error("forward: token id " + std::to_string(it.tokens[p]) + " at position " + std::to_string(p) +
                            " of item " + std::to_string(i) + " is outside the vocabulary (vocab_size " +
                            std::to_string(cfg_.vocab_size) + ")");
        caches.push_back(s);
        start.push_back(s->length);
        item_row.push_back(item_row.back() + it.tokens.size());
    }
    const size_t T = item_row.back();

    x_.resize(T * H);
    xn_.resize(T * H);
    q_.resize(T * qdim);
    k_.resize(T * kvdim);
    v_.resize(T * kvdim);
    att_.resize(T * qdim);
    gate_.resize(T * F);
    up_.resize(T * F);
    cos_.resize(T * hd_);
    sin_.resize(T * hd_);
    workspace_bytes_ = std::max(workspace_bytes_, sizeof(float) * (x_.size() + xn_.size() + q_.size() + k_.size() +
                                                                   v_.size() + att_.size() + gate_.size() + up_.size()));

    // Grow the caches to hold the new positions (whole blocks).
    for (size_t i = 0; i < items.size(); ++i) {
        SequenceCache& s = *caches[i];
        const size_t need = (start[i] + items[i].tokens.size() + kBlockTokens - 1) / kBlockTokens;
        while (s.blocks.size() < need) s.blocks.push_back(take_block());
    }

    const cpu::WeightMatrix embed = matrix(w_.embed);
    for (size_t i = 0; i < items.size(); ++i)
        for (size_t p = 0; p < items[i].tokens.size(); ++p) {
            const size_t row = item_row[i] + p;
            cpu::load_row(embed, size_t(items[i].tokens[p]), x_.data() + row * H);
            rope_cos_sin(rope_, long(start[i] + p), cos_.data() + row * hd_, sin_.data() + row * hd_);
        }

    auto norm_rows = [&](const TensorView* wt, const float* src, float* dst, size_t n_rows) {
        pool_.parallel_for(n_rows, 8, [&](size_t r0, size_t r1, int) {
            for (size_t r = r0; r < r1; ++r) cpu::rmsnorm(src + r * H, wt->data, wt->dtype, H, eps, dst + r * H, isa_);
        });
    };
    // With int8 weights the activations are quantised once per input: q, k and v (and gate and up)
    // read the same rows, so the second and third call pass `same_input`.
    auto linear = [&](const float* x, size_t m, size_t ldx, const TensorView* wt, const TensorView* bias, float* y,
                      size_t ldy, bool same_input = false) {
        const cpu::WeightMatrix wm = weights(wt);
        if (q8_kernel_) {
            if (!same_input) cpu::quantize_rows_q8(pool_, x, m, ldx, wm.cols, q8_scheme_, q8_rows_);
            cpu::matmul_q8(pool_, *q8_kernel_, q8_rows_, *q8_of_.at(wt), y, ldy);
        } else {
            cpu::matmul_wt(pool_, isa_, x, m, ldx, wm, nullptr, wm.rows, y, ldy);
        }
        if (bias) cpu::add_bias(y, m, ldy, bias->data, bias->dtype, wm.rows);
    };

    for (size_t l = 0; l < size_t(cfg_.num_hidden_layers); ++l) {
        const LayerWeights& L = w_.layers[l];
        norm_rows(L.attn_norm, x_.data(), xn_.data(), T);
        linear(xn_.data(), T, H, L.wq, L.bq, q_.data(), qdim);
        linear(xn_.data(), T, H, L.wk, L.bk, k_.data(), kvdim, true);
        linear(xn_.data(), T, H, L.wv, L.bv, v_.data(), kvdim, true);
        // RoPE on q and k, then k and v into the cache.
        pool_.parallel_for(T, 4, [&](size_t r0, size_t r1, int) {
            for (size_t row = r0; row < r1; ++row) {
                const float* c = cos_.data() + row * hd_;
                const float* s = sin_.data() + row * hd_;
                for (size_t h = 0; h < n_heads_; ++h) rope_apply(q_.data() + row * qdim + h * hd_, c, s, rope_.rotary_dim);
                for (size_t h = 0; h < n_kv_; ++h) rope_apply(k_.data() + row * kvdim + h * hd_, c, s, rope_.rotary_dim);
            }
        });
        for (size_t i = 0; i < items.size(); ++i)
            for (size_t p = 0; p < items[i].tokens.size(); ++p) {
                const size_t row = item_row[i] + p, pos = start[i] + p;
                for (size_t g = 0; g < n_kv_; ++g) {
                    std::copy_n(k_.data() + row * kvdim + g * hd_, hd_, kv_slot(*caches[i], l, 0, g, pos));
                    std::copy_n(v_.data() + row * kvdim + g * hd_, hd_, kv_slot(*caches[i], l, 1, g, pos));
                }
            }
        attention(l, items, item_row, caches, start, q_.data(), att_.data());
        linear(att_.data(), T, qdim, L.wo, L.bo, xn_.data(), H);
        for (size_t e = 0; e < T * H; ++e) x_[e] += xn_[e];

        norm_rows(L.ffn_norm, x_.data(), xn_.data(), T);
        linear(xn_.data(), T, H, L.w_gate, L.b_gate, gate_.data(), F);
        linear(xn_.data(), T, H, L.w_up, L.b_up, up_.data(), F, true);
        const auto silu_row = [&](size_t r) { cpu::silu_mul(gate_.data() + r * F, up_.data() + r * F, F, isa_); };
        if (q8_kernel_) {
            // With int8 weights each row's SiLU x up is quantised as soon as it is made (one pass,
            // the row still in L1), so down's call reads the rows already quantised.
            cpu::quantize_rows_q8(pool_, gate_.data(), T, F, F, q8_scheme_, q8_rows_, silu_row);
        } else {
            pool_.parallel_for(T, 1, [&](size_t r0, size_t r1, int) {
                for (size_t r = r0; r < r1; ++r) silu_row(r);
            });
        }
        linear(gate_.data(), T, F, L.w_down, L.b_down, xn_.data(), H, q8_kernel_.has_value());
        for (size_t e = 0; e < T * H; ++e) x_[e] += xn_[e];
    }
    for (size_t i = 0; i < items.size(); ++i) caches[i]->length = start[i] + items[i].tokens.size();

    // Output head over the requested rows only.
    out.row_begin.assign(1, 0);
    std::vector<size_t> rows;
    for (size_t i = 0; i < items.size(); ++i) {
        if (head != Head::None) {
            if (items[i].all_positions)
                for (size_t p = 0; p < items[i].tokens.size(); ++p) rows.push_back(item_row[i] + p);
            else
                rows.push_back(item_row[i + 1] - 1);
        }
        out.row_begin.push_back(rows.size());
    }
    if (head == Head::None) {
        out.width = 0;
        out.logits.clear();
        return;
    }
    // Final norm of the selected rows, packed.
    std::vector<float> sel(rows.size() * H);
    for (size_t r = 0; r < rows.size(); ++r) std::copy_n(x_.data() + rows[r] * H, H, sel.data() + r * H);
    norm_rows(w_.final_norm, sel.data(), sel.data(), rows.size());
    if (head == Head::Hidden) {
        out.width = H;
        out.logits = std::move(sel);
        require_finite_logits(out, items, cfg_.path.parent_path().string());
        return;
    }
    cpu::WeightMatrix lm = matrix(w_.lm_head);
    if (head == Head::Dna) {
        out.width = dna_rows_.size();
        out.logits.resize(rows.size() * out.width);
        if (dna_head_q8_) {
            cpu::quantize_rows_q8(pool_, sel.data(), rows.size(), H, H, q8_scheme_, q8_rows_);
            cpu::matmul_q8(pool_, *q8_kernel_, q8_rows_, *dna_head_q8_, out.logits.data(), out.width);
        } else {
            lm.packed = dna_head_packed_;
            cpu::matmul_wt(pool_, isa_, sel.data(), rows.size(), H, lm, dna_rows_.data(), out.width, out.logits.data(), out.width);
        }
    } else {
        out.width = lm.rows;
        out.logits.resize(rows.size() * out.width);
        if (lm.dtype == DType::Q8_0) {  // a GGUF file's Q8_0 head: its blocks, taken once, on first use
            if (!full_head_q8_) full_head_q8_ = std::make_unique<cpu::Q8Matrix>(q8_matrix(w_.lm_head, nullptr, lm.rows));
            cpu::quantize_rows_q8(pool_, sel.data(), rows.size(), H, H, q8_scheme_, q8_rows_);
            cpu::matmul_q8(pool_, *q8_kernel_, q8_rows_, *full_head_q8_, out.logits.data(), out.width);
        } else {
            cpu::matmul_wt(pool_, isa_, sel.data(), rows.size(), H, lm, nullptr, out.width, out.logits.data(), out.width);
        }
    }
    require_finite_logits(out, items, cfg_.path.parent_path().string());
}

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const Checkpoint& checkpoint, std::vector<int32_t> dna_rows,
                                          const BackendOptions& options) {
    return std::make_unique<CpuBackend>(checkpoint, std::move(dna_rows), options);
}

}  // namespace carbon
