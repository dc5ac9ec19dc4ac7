// The CUDA backend (see cuda_backend.h). One stream; every forward call validates the whole batch on
// the host, allocates the pages its new positions need, uploads the step's small tables (token ids,
// positions, the ragged layout, page tables) in one copy, queues the layers, and synchronizes once
// when the logits are back on the host.
#include "gpu/cuda_backend_impl.h"

#include <sstream>

#include "carbon/kernels/attention_decode.h"
#include "carbon/kernels/attention_prefill.h"
#include "carbon/kernels/bias_add.h"
#include "carbon/kernels/cast_rows.h"
#include "carbon/kernels/embedding.h"
#include "carbon/kernels/gemv.h"
#include "carbon/kernels/gemv_int8.h"
#include "carbon/kernels/kv_append.h"
#include "carbon/kernels/quantize_rows_int8.h"
#include "carbon/kernels/rmsnorm.h"
#include "carbon/kernels/rope.h"
#include "carbon/kernels/scale_int32_products.h"
#include "carbon/kernels/swiglu.h"
#include "gpu/gemm_row_major.h"

namespace carbon::gpu {
namespace detail {

CudaBackend::CudaBackend(std::unique_ptr<Device> device, const Checkpoint& ckpt, std::vector<std::int32_t> dna_rows,
                         const CudaBackendOptions& opt)
    : dev_(std::move(device)), cfg_(ckpt.config()), w_type_(ckpt.weights().dtype), kv_type_(opt.kv_type),
      graphs_(opt.graphs) {
    int8_ = opt.int8_weights;
    if (ckpt.weights().q8_0)
        throw carbon::Error(ckpt.dir().string() +
                            ": a GGUF file's Q8_0 weights (groups of 32) run on the CPU backend (the GPU's int8 is one scale "
                            "per row; requantising would round twice): use --backend cpu, or the bf16 GGUF or the checkpoint "
                            "folder with --weights int8 on the GPU");
    if (cfg_.partial_rotary_factor != 1.0)
        throw carbon::Error(cfg_.path.string() + ": partial_rotary_factor " + std::to_string(cfg_.partial_rotary_factor) +
                            " is not supported by the Llama network");
    if (dna_rows.size() != 4096)
        throw carbon::Error("CUDA backend: expected 4096 DNA 6-mer ids, got " + std::to_string(dna_rows.size()));
    for (std::int32_t id : dna_rows)
        if (id < 0 || id >= cfg_.vocab_size)
            throw carbon::Error("CUDA backend: DNA token id " + std::to_string(id) + " is outside the vocabulary");
    H_ = cfg_.hidden_size;
    F_ = cfg_.intermediate_size;
    nh_ = cfg_.num_attention_heads;
    nkv_ = cfg_.num_key_value_heads;
    hd_ = cfg_.head_dim;
    qdim_ = nh_ * hd_;
    kvdim_ = nkv_ * hd_;
    if (hd_ != 16 && hd_ != 24 && hd_ != 64 && hd_ != 96 && hd_ != 128)
        throw carbon::Error(cfg_.path.string() + ": head_dim " + std::to_string(hd_) +
                            " is not one the CUDA attention kernels are built for (16, 24, 64, 96, 128): use --backend cpu");
    if (kv_type_ != DType::F32 && kv_type_ != DType::BF16)
        throw carbon::Error("CUDA backend: the KV cache is bf16 or fp32, not " + std::string(dtype_name(kv_type_)));
    if (kv_type_ == DType::BF16 && w_type_ != DType::BF16) {
        kv_type_ = DType::F32;
        notice_ = std::string("the weights are ") + dtype_name(w_type_) + ", so the KV cache is fp32 (a bf16 cache needs bf16 weights)";
    }
    if (int8_ && (H_ % 16 != 0 || qdim_ % 16 != 0 || F_ % 16 != 0))
        throw carbon::Error(cfg_.path.string() + ": int8 weights on the GPU need hidden_size (" + std::to_string(H_) +
                            "), heads x head_dim (" + std::to_string(qdim_) + ") and intermediate_size (" + std::to_string(F_) +
                            ") in multiples of 16 (rows of 128-bit loads): use --backend cpu, or native weights");
    stream_ = dev_->create_stream();
    w_ = std::make_unique<DeviceWeights>(*dev_, ckpt.weights(), dna_rows, stream_, int8_);
    kv_ = std::make_unique<KvPages>(*dev_, cfg_.num_hidden_layers, nkv_, hd_, kern::kKvPageTokens, kv_type_);
    rope_ = compute_rope(cfg_);
    inv_freq_.bind(*dev_);
    inv_freq_.reserve(rope_.inv_freq.size() * sizeof(float));
    dev_->copy_to_device(inv_freq_.get(), rope_.inv_freq.data(), rope_.inv_freq.size() * sizeof(float), stream_);
    dev_->stream_synchronize(stream_);
    for (DeviceMemory* m : {&tables_, &h_, &xn_, &xg_, &q_, &k_, &v_, &qc_, &att_, &gate_, &up_, &ao_, &attn_ws_, &bad_ids_,
                            &sel_, &logits_, &fns_in_, &fns_out_, &gemv_ws_, &xq_, &xs_, &acc_})
        m->bind(*dev_);
    // gemv reads k in 16-byte chunks: every in_features a multiple of 8. Its split-K workspace, sized
    // for the largest matrix, is zeroed once (each launch leaves it zeroed).
    gemv_ok_ = H_ % 8 == 0 && qdim_ % 8 == 0 && F_ % 8 == 0;
    if (gemv_ok_) {
        std::size_t ws = 0;
        auto need = [&](const DeviceTensor& t) {  // gemv's workspace (gemv_int8 needs none)
            if (t.dtype != DType::I8) ws = std::max(ws, kern::gemv_workspace_bytes(t.rows, t.cols, kDecodeMaxRows));
        };
        for (std::size_t l = 0; l < std::size_t(cfg_.num_hidden_layers); ++l) {
            const DeviceLayer& L = w_->layer(l);
            for (const DeviceTensor* t : {&L.wq, &L.wk, &L.wv, &L.wo, &L.w_gate, &L.w_up, &L.w_down}) need(*t);
        }
        if (w_->lm_head().rows > 0) {
            need(w_->dna_head());
            need(w_->lm_head());
        }
        gemv_ws_.reserve(std::max<std::size_t>(ws, 16));
        dev_->memset(gemv_ws_.get(), 0, gemv_ws_.bytes(), stream_);
        dev_->stream_synchronize(stream_);
    }
    for (PinnedMemory* m : {&tables_host_, &logits_host_, &bad_ids_host_, &fns_in_host_, &fns_out_host_}) m->bind(*dev_);
    if (int8_ && opt.int8_gemm) probe_int8_gemm();
    if (int8_ && !opt.int8_gemm) int8_gemm_note_ = "the int8 GEMM was switched off (CudaBackendOptions::int8_gemm)";
}

// cuBLASLt's int8 GEMM (IMMA kernels in the regular layout) is asked for once, on a small product
// of the shape class the layers use: when the library or the GPU has no algorithm for it, prefill
// takes gemv_int8 (the same bits, int32 sums being exact; slower) and describe() says so.
void CudaBackend::probe_int8_gemm() {
    DeviceMemory a(*dev_, 64 * 64), b(*dev_, 64 * 64), c(*dev_, 64 * 64 * 4);
    dev_->memset(a.get(), 1, a.bytes(), stream_);
    dev_->memset(b.get(), 1, b.bytes(), stream_);
    RowMajorGemm g;
    g.trans_b = Transpose::Yes;
    g.m = g.n = g.k = 64;
    g.a = a.get();
    g.a_type = DType::I8;
    g.lda = 64;
    g.b = b.get();
    g.b_type = DType::I8;
    g.ldb = 64;
    g.c = c.get();
    g.c_type = DType::I32;
    g.ldc = 64;
    try {
        gemm_row_major(*dev_, g, stream_);
        std::int32_t first = 0;
        dev_->copy_to_host(&first, c.get(), sizeof first, stream_);
        dev_->stream_synchronize(stream_);
        int8_gemm_ = first == 64;
        if (!int8_gemm_) int8_gemm_note_ = "cuBLASLt's int8 GEMM gave a wrong sum";
    } catch (const Error& e) {
        dev_->stream_synchronize(stream_);
        int8_gemm_ = false;
        int8_gemm_note_ = std::string("cuBLASLt took no int8 GEMM: ") + e.what();
    }
}

CudaBackend::~CudaBackend() {
    try {
        dev_->stream_synchronize(stream_);
        drop_graphs();
        dev_->destroy_stream(stream_);
    } catch (...) {  // a broken context: the memory goes with the device
    }
}

std::string CudaBackend::describe() const {
    const DeviceInfo i = dev_->info();
    std::ostringstream os;
    os << "CUDA, " << i.name;
    if (i.compute_major) os << " (sm_" << i.compute_major << i.compute_minor << ")";
    if (int8_)
        os << ", int8 weights (one scale per output row, activations per row, from the checkpoint's " << dtype_name(w_type_)
           << "; prefill through " << (int8_gemm_ ? "cuBLASLt's int8 GEMM" : "gemv_int8 (" + int8_gemm_note_ + ")")
           << "), fp32 activations elsewhere, " << dtype_name(kv_type_) << " KV cache";
    else
        os << ", " << dtype_name(w_type_) << " weights, fp32 activations, " << dtype_name(kv_type_) << " KV cache";
    if (gemv_ok_) os << ", batch-invariant decode up to " << kDecodeMaxRows << " rows";
    if (graphs_) os << ", decode steps as CUDA graphs";
    return os.str();
}

void CudaBackend::free_sequence(SeqId seq) {
    auto it = seqs_.find(seq);
    if (it == seqs_.end()) return;
    for (int p : it->second.pages) kv_->give_back(p);
    seqs_.erase(it);
}

SeqId CudaBackend::fork_sequence(SeqId src) {
    const std::vector<int> src_pages = sequence(src).pages;  // copied: take() below may add entries to seqs_
    const std::size_t length = sequence(src).length;
    const SeqId id = create_sequence();
    Sequence& d = seqs_.at(id);
    for (int p : src_pages) {
        const int page = kv_->take(stream_);
        kv_->copy(page, p, stream_);
        d.pages.push_back(page);
    }
    d.length = length;
    return id;
}

void CudaBackend::truncate_sequence(SeqId seq, std::size_t n) {
    Sequence& s = sequence(seq);
    if (n > s.length)
        throw carbon::Error("truncate_sequence: sequence " + std::to_string(seq) + " holds " + std::to_string(s.length) +
                            " tokens, cannot keep " + std::to_string(n));
    const std::size_t keep = (n + std::size_t(kv_->page_tokens()) - 1) / std::size_t(kv_->page_tokens());
    while (s.pages.size() > keep) {
        kv_->give_back(s.pages.back());
        s.pages.pop_back();
    }
    s.length = n;
}

MemoryPlan CudaBackend::memory_plan() const {
    MemoryPlan p;
    p.weights = w_->bytes();
    p.kv_per_token = kv_->page_bytes() / std::size_t(kv_->page_tokens());
    p.workspace = workspace_bytes_;
    return p;
}

StepTables CudaBackend::tables(std::span<const ForwardItem> items, const std::vector<Sequence*>& seqs) const {
    StepTables t;
    std::size_t rows = 0, stride = 1;
    for (std::size_t i = 0; i < items.size(); ++i) {
        rows += items[i].tokens.size();
        stride = std::max(stride, seqs[i]->pages.size());
    }
    const std::size_t B = items.size();
    // Padded to whole attention chunks (kDecodeChunkTokens positions): the layout, and so a decode
    // step's recorded launches, changes every 256 positions instead of every page.
    const std::size_t chunk_pages = std::size_t(kern::kDecodeChunkTokens) / std::size_t(kv_->page_tokens());
    stride = (stride + chunk_pages - 1) / chunk_pages * chunk_pages;
    t.page_table_stride = int(stride);
    t.ids = 0;
    t.positions = rows;
    t.row_seq = 2 * rows;
    t.q_begin = 3 * rows;
    t.kv_len = t.q_begin + B + 1;
    t.page_table = t.kv_len + B;
    t.data.assign(t.page_table + B * stride, 0);
    std::size_t r = 0;
    t.data[t.q_begin] = 0;
    for (std::size_t i = 0; i < B; ++i) {
        const std::size_t start = seqs[i]->length;
        for (std::size_t p = 0; p < items[i].tokens.size(); ++p, ++r) {
            t.data[t.ids + r] = items[i].tokens[p];
            t.data[t.positions + r] = std::int32_t(start + p);
            t.data[t.row_seq + r] = std::int32_t(i);
        }
        t.data[t.q_begin + i + 1] = std::int32_t(r);
        t.data[t.kv_len + i] = std::int32_t(start + items[i].tokens.size());
        std::copy(seqs[i]->pages.begin(), seqs[i]->pages.end(), t.data.begin() + std::ptrdiff_t(t.page_table + i * stride));
    }
    return t;
}

void CudaBackend::reserve_buffers(std::size_t rows) {
    if (rows <= rows_capacity_) return;
    rows_capacity_ = std::max(rows, rows_capacity_ * 2);
    const std::size_t R = rows_capacity_, wide = std::size_t(std::max({H_, qdim_, F_}));
    h_.reserve(R * std::size_t(H_) * 4);
    xn_.reserve(R * std::size_t(H_) * 4);
    xg_.reserve(R * wide * dtype_size(w_type_));
    q_.reserve(R * std::size_t(qdim_) * 4);
    k_.reserve(R * std::size_t(kvdim_) * 4);
    v_.reserve(R * std::size_t(kvdim_) * 4);
    qc_.reserve(R * std::size_t(qdim_) * dtype_size(kv_type_));
    att_.reserve(R * std::size_t(qdim_) * dtype_size(kv_type_));
    gate_.reserve(R * std::size_t(F_) * 4);
    up_.reserve(R * std::size_t(F_) * 4);
    ao_.reserve(std::min<std::size_t>(R, kDecodeMaxRows) * std::size_t(H_) * 4);
    if (int8_) {
        xq_.reserve(R * wide);
        xs_.reserve(R * 4);
        if (int8_gemm_) acc_.reserve(R * std::max<std::size_t>(wide, std::size_t(w_->dna_head().rows)) * 4);
    }
    workspace_bytes_ = h_.bytes() + xn_.bytes() + xg_.bytes() + q_.bytes() + k_.bytes() + v_.bytes() + qc_.bytes() +
                       att_.bytes() + gate_.bytes() + up_.bytes() + ao_.bytes() + gemv_ws_.bytes() + xq_.bytes() +
                       xs_.bytes() + acc_.bytes();
}

template <class X>
CudaBackend::Operand CudaBackend::operand(const X* x, int rows, int cols, bool decode, const DeviceTensor& w) {
    constexpr DType x_type = std::is_same_v<X, float> ? DType::F32 : DType::BF16;
    if (w.dtype == DType::I8) {
        launched(kern::quantize_rows_int8<X>(x, cols, rows, cols, xq_.as<std::int8_t>(), cols, xs_.as<float>(), stream_),
                 "quantize_rows_int8");
        return {xq_.get(), DType::I8};
    }
    if (decode) return {x, x_type};
    if constexpr (x_type == DType::F32) {
        return {gemm_input(x, rows, cols), w_type_};
    } else {
        if (w_type_ != DType::BF16) throw carbon::Error("CUDA backend: bf16 activations for " + std::string(dtype_name(w_type_)) + " weights (a bug)");
        return {x, DType::BF16};
    }
}

void CudaBackend::project(const Operand& x, int rows, const DeviceTensor& w, float* y, bool decode, bool accumulate) {
    if ((w.dtype == DType::I8) != (x.type == DType::I8) || (decode && accumulate && w.dtype != DType::I8))
        throw carbon::Error("CUDA backend: a projection's input does not suit its weights (a bug)");
    if (w.dtype == DType::I8) return int8_linear(rows, w, y, decode, accumulate);
    if (decode) {
        if (x.type == DType::F32) gemv_linear(static_cast<const float*>(x.data), rows, w, y);
        else gemv_linear(static_cast<const __nv_bfloat16*>(x.data), rows, w, y);
        return;
    }
    linear(x.data, rows, w, y, accumulate ? 1.0f : 0.0f);
}

void CudaBackend::int8_linear(int rows, const DeviceTensor& w, float* y, bool decode, bool accumulate) {
    if (decode || !int8_gemm_) {
        const kern::GemvInt8Sizes s{rows, w.cols, w.rows, w.rows, w.cols, w.rows};
        launched(kern::gemv_int8(xq_.as<std::int8_t>(), xs_.as<float>(), static_cast<const std::int8_t*>(w.data), w.scales,
                                 nullptr, y, s, accumulate, stream_),
                 "gemv_int8", kern::gemv_int8_last_refusal());
        return;
    }
    RowMajorGemm g;  // acc_[rows, w.rows] = xq_ w^T in exact int32
    g.trans_b = Transpose::Yes;
    g.m = rows;
    g.n = w.rows;
    g.k = w.cols;
    g.a = xq_.get();
    g.a_type = DType::I8;
    g.lda = w.cols;
    g.b = w.data;
    g.b_type = DType::I8;
    g.ldb = w.cols;
    g.c = acc_.get();
    g.c_type = DType::I32;
    g.ldc = w.rows;
    gemm_row_major(*dev_, g, stream_);
    launched(kern::scale_int32_products(acc_.as<std::int32_t>(), w.rows, xs_.as<float>(), w.scales, rows, w.rows, y, w.rows,
                                        accumulate, stream_),
             "scale_int32_products");
}

void CudaBackend::linear(const void* x, int rows, const DeviceTensor& w, float* y, float beta) {
    RowMajorGemm g;
    g.trans_b = Transpose::Yes;
    g.m = rows;
    g.n = w.rows;
    g.k = w.cols;
    g.a = x;
    g.a_type = w.dtype;
    g.lda = w.cols;
    g.b = w.data;
    g.b_type = w.dtype;
    g.ldb = w.cols;
    g.c = y;
    g.c_type = DType::F32;
    g.ldc = w.rows;
    g.beta = beta;
    gemm_row_major(*dev_, g, stream_);
}

template <class X>
void CudaBackend::gemv_linear(const X* x, int rows, const DeviceTensor& w, float* y) {
    kern::GemvSizes s;
    s.batch = rows;
    s.k = w.cols;
    s.n = w.rows;
    s.w_rows = w.rows;
    s.ldx = w.cols;
    s.ldy = w.rows;
    with_type(w.dtype, [&](auto tag) {
        using W = decltype(tag);
        launched(kern::gemv(x, static_cast<const W*>(w.data), nullptr, y, s, gemv_ws_.get(), gemv_ws_.bytes(), stream_), "gemv",
                 kern::gemv_last_refusal());
    });
}

void CudaBackend::add_bias(float* y, int rows, const DeviceTensor& b) {
    if (!b.data) return;
    with_type(b.dtype, [&](auto tag) {
        using W = decltype(tag);
        launched(kern::bias_add<W>(y, b.cols, rows, b.cols, static_cast<const W*>(b.data), stream_), "bias_add");
    });
}

const void* CudaBackend::gemm_input(const float* x, int rows, int cols) {
    if (w_type_ == DType::F32) return x;
    with_type(w_type_, [&](auto tag) {
        using W = decltype(tag);
        if constexpr (!std::is_same_v<W, float>)
            launched(kern::cast_rows<W>(x, cols, xg_.as<W>(), cols, rows, cols, stream_), "cast_rows");
    });
    return xg_.get();
}

void CudaBackend::attention(int layer, const StepTables& t, int batch, int max_new, int max_kv, int rows) {
    const int* dev_tables = tables_.as<int>();
    kern::AttentionBatch ab;
    ab.batch = batch;
    ab.n_heads = nh_;
    ab.n_kv_heads = nkv_;
    ab.head_dim = hd_;
    ab.q_begin = dev_tables + t.q_begin;
    ab.kv_len = dev_tables + t.kv_len;
    ab.max_new_tokens = max_new;
    auto run = [&](auto tag, const auto* q, auto* out) {
        using T = decltype(tag);
        auto* pool = static_cast<T*>(kv_->pool());
        kern::PagedKv<T> kv;
        kv.k = pool + kv_->k_offset(layer);
        kv.v = pool + kv_->v_offset(layer);
        kv.page_stride = kv_->page_elements();
        kv.page_tokens = kv_->page_tokens();
        kv.page_table = dev_tables + t.page_table;
        kv.page_table_stride = t.page_table_stride;
        if (max_new <= kDecodeMaxNewTokens) {  // attn_ws_ was sized for this step by forward_on_device
            launched(kern::attention_decode(q, out, kv, ab, max_kv, kern::kDecodeChunkTokens, attn_ws_.get(), attn_ws_.bytes(),
                                            stream_),
                     "attention_decode", kern::attention_refusal());
        } else {
            launched(kern::attention_prefill(q, out, kv, ab, stream_), "attention_prefill", kern::attention_refusal());
        }
    };
    if (kv_type_ == DType::F32) {
        run(float{}, q_.as<float>(), att_.as<float>());
    } else {
        launched(kern::cast_rows<__nv_bfloat16>(q_.as<float>(), qdim_, qc_.as<__nv_bfloat16>(), qdim_, rows, qdim_, stream_),
                 "cast_rows");
        run(__nv_bfloat16{}, static_cast<const __nv_bfloat16*>(qc_.get()), att_.as<__nv_bfloat16>());
    }
}

std::size_t CudaBackend::forward_on_device(std::span<const ForwardItem> items, Head head, std::vector<std::size_t>& row_begin) {
    // Validate the whole batch before touching any cache.
    std::vector<Sequence*> seqs;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const ForwardItem& it = items[i];
        Sequence* s = &sequence(it.seq);
        if (std::find(seqs.begin(), seqs.end(), s) != seqs.end())
            throw carbon::Error("forward: sequence " + std::to_string(it.seq) + " appears twice in one batch");
        if (it.tokens.empty()) throw carbon::Error("forward: item " + std::to_string(i) + " has no tokens");
        for (std::size_t p = 0; p < it.tokens.size(); ++p)
            if (it.tokens[p] < 0 || it.tokens[p] >= cfg_.vocab_size)
                throw carbon::Error("forward: token id " + std::to_string(it.tokens[p]) + " at position " + std::to_string(p) +
                                    " of item " + std::to_string(i) + " is outside the vocabulary (vocab_size " +
                                    std::to_string(cfg_.vocab_size) + ")");
        seqs.push_back(s);
    }
    Step s;
    s.B = int(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        s.T += int(items[i].tokens.size());
        s.max_new = std::max(s.max_new, int(items[i].tokens.size()));
        s.max_kv = std::max(s.max_kv, int(seqs[i]->length + items[i].tokens.size()));
    }
    s.decode = gemv_ok_ && s.max_new <= kDecodeMaxNewTokens && s.T <= kDecodeMaxRows;
    // The decode attention's chunks cover max_kv rounded up to whole chunks (the extra chunks are
    // empty for every sequence), so a step's launches change only every kDecodeChunkTokens positions.
    if (s.max_new <= kDecodeMaxNewTokens)
        s.max_kv = (s.max_kv + kern::kDecodeChunkTokens - 1) / kern::kDecodeChunkTokens * kern::kDecodeChunkTokens;
    // Everything the step's work needs is made ready here, outside any graph capture: pages for the
    // new positions (the pool may grow), buffers, the step's tables, the attention workspace.
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::size_t need = (seqs[i]->length + items[i].tokens.size() + std::size_t(kv_->page_tokens()) - 1) /
                                 std::size_t(kv_->page_tokens());
        while (seqs[i]->pages.size() < need) seqs[i]->pages.push_back(kv_->take(stream_));
    }
    reserve_buffers(std::size_t(s.T));
    s.t = tables(items, seqs);
    const std::size_t table_bytes = s.t.data.size() * sizeof(std::int32_t);
    tables_host_.reserve(table_bytes);
    tables_.reserve(table_bytes);
    bad_ids_.reserve(sizeof(int));
    bad_ids_host_.reserve(sizeof(int));
    // The rows whose logits were asked for, as the CPU backend picks them.
    s.head = head;
    row_begin.assign(1, 0);
    std::size_t row0 = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::size_t n = items[i].tokens.size();
        if (head != Head::None) {
            if (items[i].all_positions)
                for (std::size_t p = 0; p < n; ++p) s.rows.push_back(row0 + p);
            else
                s.rows.push_back(row0 + n - 1);
        }
        row0 += n;
        row_begin.push_back(s.rows.size());
    }
    if ((head == Head::Dna || head == Head::Full) && w_->lm_head().rows == 0) throw_no_language_model_head(cfg_);
    if (head != Head::None) {
        s.width = head == Head::Hidden ? std::size_t(H_) : std::size_t((head == Head::Dna ? w_->dna_head() : w_->lm_head()).rows);
        sel_.reserve(s.rows.size() * std::size_t(H_) * 4);
        logits_.reserve(s.rows.size() * s.width * 4);
    }
    if (s.max_new <= kDecodeMaxNewTokens) {
        kern::AttentionBatch ab;
        ab.batch = s.B;
        ab.n_heads = nh_;
        ab.n_kv_heads = nkv_;
        ab.head_dim = hd_;
        ab.max_new_tokens = s.max_new;
        const std::size_t need = kern::attention_decode_workspace_bytes(ab, s.max_kv, kern::kDecodeChunkTokens);
        if (attn_ws_.bytes() < need) {
            dev_->stream_synchronize(stream_);  // the old workspace may still be read by queued work
            attn_ws_.reserve(need);
        }
    }
    std::memcpy(tables_host_.as<std::int32_t>(), s.t.data.data(), table_bytes);
    dev_->copy_to_device(tables_.get(), tables_host_.as<std::int32_t>(), table_bytes, stream_);
    dev_->memset(bad_ids_.get(), 0, sizeof(int), stream_);
    if (graphs_ && s.max_new <= kDecodeMaxNewTokens) replay_step(s);
    else queue_step(s);
    for (std::size_t i = 0; i < items.size(); ++i) seqs[i]->length += items[i].tokens.size();
    return s.width;
}

// The pointers and sizes a step's queued work was recorded with: a graph is replayed only for a step
// whose every one of these is the same (a buffer that grew, or a KV pool that moved, makes a new key).
std::vector<std::uintptr_t> CudaBackend::step_key(const Step& s) const {
    std::vector<std::uintptr_t> k{std::uintptr_t(s.T), std::uintptr_t(s.B), std::uintptr_t(s.max_new),
                                  std::uintptr_t(s.max_kv), std::uintptr_t(s.t.page_table_stride),
                                  std::uintptr_t(s.head), s.width};
    k.insert(k.end(), s.rows.begin(), s.rows.end());
    for (const DeviceMemory* m : {&tables_, &h_, &xn_, &xg_, &q_, &k_, &v_, &qc_, &att_, &gate_, &up_, &ao_, &attn_ws_,
                                  &bad_ids_, &sel_, &logits_, &gemv_ws_, &xq_, &xs_, &acc_}) {
        k.push_back(reinterpret_cast<std::uintptr_t>(m->get()));
        k.push_back(m->bytes());
    }
    k.push_back(reinterpret_cast<std::uintptr_t>(bad_ids_host_.get()));
    k.push_back(reinterpret_cast<std::uintptr_t>(kv_->pool()));
    return k;
}

void CudaBackend::replay_step(const Step& s) {
    std::vector<std::uintptr_t> key = step_key(s);
    auto it = graphs_by_key_.find(key);
    if (it == graphs_by_key_.end()) {
        if (graphs_by_key_.size() >= kMaxGraphs) drop_graphs();
        dev_->begin_capture(stream_);
        try {
            queue_step(s);
        } catch (...) {
            try {
                dev_->destroy_graph(dev_->end_capture(stream_));
            } catch (...) {  // the capture was already invalid: nothing to keep
            }
            throw;
        }
        it = graphs_by_key_.emplace(std::move(key), dev_->end_capture(stream_)).first;
        ++graph_captures_;
    }
    dev_->launch_graph(it->second, stream_);
    ++graph_replays_;
}

void CudaBackend::release_cached_memory() {
    dev_->stream_synchronize(stream_);  // nothing queued still reads the buffers
    drop_graphs();                      // recorded with the buffers' addresses
    for (DeviceMemory* m : {&tables_, &h_, &xn_, &xg_, &q_, &k_, &v_, &qc_, &att_, &gate_, &up_, &ao_, &attn_ws_, &bad_ids_,
                            &sel_, &logits_, &fns_in_, &fns_out_, &xq_, &xs_, &acc_})
        m->release();
    for (PinnedMemory* m : {&tables_host_, &logits_host_, &bad_ids_host_, &fns_in_host_, &fns_out_host_}) m->release();
    rows_capacity_ = 0;
    workspace_bytes_ = gemv_ws_.bytes();  // kept: sized once for the model's matrices
    kv_->release_if_unused();
}

void CudaBackend::drop_graphs() {
    for (auto& g : graphs_by_key_) dev_->destroy_graph(g.second);
    graphs_by_key_.clear();
}

void CudaBackend::queue_step(const Step& s) {
    const int T = s.T, B = s.B, max_new = s.max_new, max_kv = s.max_kv;
    const bool decode = s.decode;
    const StepTables& t = s.t;
    const std::int32_t* ids = tables_.as<std::int32_t>() + t.ids;
    const std::int32_t* positions = tables_.as<std::int32_t>() + t.positions;
    const std::int32_t* row_seq = tables_.as<std::int32_t>() + t.row_seq;
    const float eps = float(cfg_.rms_norm_eps);
    float* h = h_.as<float>();
    float* xn = xn_.as<float>();
    float* ao = ao_.as<float>();
    with_type(w_type_, [&](auto tag) {
        using W = decltype(tag);
        const DeviceTensor& e = w_->embed();
        launched(kern::embedding_gather(ids, T, static_cast<const W*>(e.data), e.rows, e.cols, h, bad_ids_.as<int>(), stream_),
                 "embedding_gather");
        for (int l = 0; l < cfg_.num_hidden_layers; ++l) {
            const DeviceLayer& L = w_->layer(std::size_t(l));
            const W* attn_norm = static_cast<const W*>(L.attn_norm.data);
            if (decode && l > 0)  // the previous layer's down_proj output joins the residual here
                launched(kern::rmsnorm_residual<float, W>(h, ao, attn_norm, xn, T, H_, eps, stream_), "rmsnorm_residual");
            else
                launched(kern::rmsnorm<float, W>(h, attn_norm, xn, T, H_, eps, stream_), "rmsnorm");
            const Operand x = operand(xn, T, H_, decode, L.wq);  // one input for q, k and v
            project(x, T, L.wq, q_.as<float>(), decode);
            project(x, T, L.wk, k_.as<float>(), decode);
            project(x, T, L.wv, v_.as<float>(), decode);
            add_bias(q_.as<float>(), T, L.bq);
            add_bias(k_.as<float>(), T, L.bk);
            add_bias(v_.as<float>(), T, L.bv);
            launched(kern::rope_rotate_half<float>(q_.as<float>(), qdim_, nh_, k_.as<float>(), kvdim_, nkv_, hd_,
                                                   rope_.rotary_dim, positions, T, inv_freq_.as<float>(),
                                                   rope_.attention_scaling, stream_),
                     "rope_rotate_half");
            auto append = [&](auto kv_tag) {
                using K = decltype(kv_tag);
                auto* pool = static_cast<K*>(kv_->pool());
                kern::KvDestination<K> d{pool + kv_->k_offset(l), pool + kv_->v_offset(l), kv_->page_elements(),
                                         kv_->page_tokens(), tables_.as<int>() + t.page_table, t.page_table_stride};
                launched(kern::kv_append<K>(k_.as<float>(), v_.as<float>(), kvdim_, T, positions, row_seq, d, nkv_, hd_, stream_),
                         "kv_append");
            };
            if (kv_type_ == DType::F32) append(float{});
            else append(__nv_bfloat16{});
            attention(l, t, B, max_new, max_kv, T);
            const W* ffn_norm = static_cast<const W*>(L.ffn_norm.data);
            const Operand a = kv_type_ == DType::BF16 ? operand(att_.as<__nv_bfloat16>(), T, qdim_, decode, L.wo)
                                                      : operand(att_.as<float>(), T, qdim_, decode, L.wo);
            if (decode) {  // o_proj into ao, added to the residual in front of the norm
                project(a, T, L.wo, ao, true);
                add_bias(ao, T, L.bo);
                launched(kern::rmsnorm_residual<float, W>(h, ao, ffn_norm, xn, T, H_, eps, stream_), "rmsnorm_residual");
            } else {
                // o_proj with the residual add folded into the product (beta = 1 on h).
                project(a, T, L.wo, h, false, true);
                add_bias(h, T, L.bo);
                launched(kern::rmsnorm<float, W>(h, ffn_norm, xn, T, H_, eps, stream_), "rmsnorm");
            }
            const Operand x2 = operand(xn, T, H_, decode, L.w_gate);  // one input for gate and up
            project(x2, T, L.w_gate, gate_.as<float>(), decode);
            project(x2, T, L.w_up, up_.as<float>(), decode);
            add_bias(gate_.as<float>(), T, L.b_gate);
            add_bias(up_.as<float>(), T, L.b_up);
            launched(kern::swiglu<float>(gate_.as<float>(), F_, up_.as<float>(), F_, gate_.as<float>(), F_, T, F_, stream_),
                     "swiglu");
            const Operand g = operand(gate_.as<float>(), T, F_, decode, L.w_down);
            project(g, T, L.w_down, decode ? ao : h, decode, !decode);  // prefill: the residual add folded in
            add_bias(decode ? ao : h, T, L.b_down);
        }
        // Decode: the last down_proj joins the residual, and every row is normalized here (the head
        // then reads the selected rows of xn); prefill normalizes the selected rows below.
        if (decode)
            launched(kern::rmsnorm_residual<float, W>(h, ao, static_cast<const W*>(w_->final_norm().data), xn, T, H_, eps,
                                                      stream_),
                     "rmsnorm_residual");
    });
    dev_->copy_to_host(bad_ids_host_.as<int>(), bad_ids_.get(), sizeof(int), stream_);
    if (s.head == Head::None) return;
    // The head writes the selected rows' logits (Head::Hidden: the rows themselves) to logits_
    // (device). Nothing is synchronized here.
    const std::vector<std::size_t>& rows = s.rows;
    const int R = int(rows.size());
    // Selected rows, copied in runs of consecutive rows (an item's every position is one run): of
    // xn, already normalized, on the decode path; of h, normalized next, otherwise.
    const float* src = decode ? xn : h;
    for (std::size_t r = 0; r < rows.size();) {
        std::size_t run = 1;
        while (r + run < rows.size() && rows[r + run] == rows[r] + run) ++run;
        dev_->copy_on_device(sel_.as<float>() + r * std::size_t(H_), src + rows[r] * std::size_t(H_),
                             run * std::size_t(H_) * 4, stream_);
        r += run;
    }
    if (!decode)
        with_type(w_type_, [&](auto tag) {
            using W = decltype(tag);
            launched(kern::rmsnorm<float, W>(sel_.as<float>(), static_cast<const W*>(w_->final_norm().data), sel_.as<float>(), R,
                                             H_, eps, stream_),
                     "rmsnorm");
        });
    if (s.head == Head::Hidden) {  // the normed rows are the output
        dev_->copy_on_device(logits_.as<float>(), sel_.as<float>(), std::size_t(R) * std::size_t(H_) * 4, stream_);
        return;
    }
    const DeviceTensor& hm = s.head == Head::Dna ? w_->dna_head() : w_->lm_head();
    project(operand(sel_.as<float>(), R, H_, decode, hm), R, hm, logits_.as<float>(), decode);
}

void CudaBackend::check_embedding() const {
    if (*bad_ids_host_.as<int>() != 0)
        throw carbon::Error("CUDA backend: the embedding kernel met " + std::to_string(*bad_ids_host_.as<int>()) +
                            " token id(s) outside the vocabulary after validation (a bug)");
}

void CudaBackend::forward(std::span<const ForwardItem> items, Head head, ForwardOutput& out) {
    const std::size_t width = forward_on_device(items, head, out.row_begin);
    const std::size_t n = out.row_begin.back() * width;
    if (n) {
        logits_host_.reserve(n * 4);
        dev_->copy_to_host(logits_host_.as<float>(), logits_.get(), n * 4, stream_);
    }
    dev_->stream_synchronize(stream_);
    check_embedding();
    out.width = width;
    out.logits.assign(logits_host_.as<float>(), logits_host_.as<float>() + n);
    if (head != Head::None) require_finite_logits(out, items, cfg_.path.parent_path().string());
}

}  // namespace detail

GraphCounts graph_counts(const Backend& backend) {
    const auto* c = dynamic_cast<const detail::CudaBackend*>(&backend);
    return c ? GraphCounts{c->graph_captures(), c->graph_replays()} : GraphCounts{};
}

CudaBackendOptions cuda_backend_options(const BackendOptions& options) {
    CudaBackendOptions o;
    if (options.weights == "int8") o.int8_weights = true;
    else if (options.weights == "q8_0")
        throw carbon::Error("q8_0 weights (groups of 32, GGUF Q8_0's layout) run on the CPU backend: use --backend cpu, or int8 "
                            "(one scale per row) on the GPU");
    else if (!options.weights.empty() && options.weights != "native")
        throw carbon::Error("unknown weights '" + options.weights + "': expected native or int8 on the GPU");
    return o;
}

std::unique_ptr<Backend> make_cuda_backend(std::unique_ptr<Device> device, const Checkpoint& checkpoint,
                                           std::vector<std::int32_t> dna_rows, const CudaBackendOptions& options) {
    return std::make_unique<detail::CudaBackend>(std::move(device), checkpoint, std::move(dna_rows), options);
}

}  // namespace carbon::gpu
