// The CUDA backend's class (cuda_backend.h is its public face): shared by cuda_backend.cpp (the
// forward pass, sequences, memory) and cuda_backend_fns.cpp (FNS on the device). Internal to the
// backend's library.
#pragma once

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "carbon/loader/rope.h"
#include "gpu/cuda_backend.h"
#include "gpu/device_memory.h"
#include "gpu/device_weights.h"
#include "gpu/kv_pages.h"

namespace carbon::gpu::detail {

// Attention: up to kDecodeMaxNewTokens new rows per sequence take the split-K decode kernel (its
// split points depend on the cache length alone), more the prefill kernel. Projections: passes of
// up to kDecodeMaxRows rows in all run every projection and the head through gemv (a row's sums
// depend on that row alone; up to 8 rows it reads each weight once, as a GEMM would), so their
// logits are batch-invariant bit for bit (what guarantees() promises); larger passes take cuBLASLt
// GEMMs on tensor cores. Steps within kDecodeMaxNewTokens (decode, verification) go through CUDA
// graphs whichever projections they use.
constexpr int kDecodeMaxNewTokens = 16;
constexpr int kDecodeMaxRows = 8;

inline const char* status_name(cudaError_t s) {
    switch (s) {
        case cudaSuccess: return "cudaSuccess";
        case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
        case cudaErrorNotSupported: return "cudaErrorNotSupported";
        case cudaErrorMisalignedAddress: return "cudaErrorMisalignedAddress";
        case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
        case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
        case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
        default: return "cudaError (other)";
    }
}

// A launcher's refusal is a bug in this backend (it sized something wrong), never the user's input:
// reported with the kernel and, where the launcher says, why.
inline void launched(cudaError_t s, const char* kernel, const char* why = "") {
    if (s != cudaSuccess) throw Error(kernel, status_name(s), why, __FILE__, __LINE__);
}

// Calls f with a value of the C++ type of `t` (float, __half, __nv_bfloat16).
template <class F>
decltype(auto) with_type(DType t, F&& f) {
    switch (t) {
        case DType::F32: return f(float{});
        case DType::F16: return f(__half{});
        case DType::BF16: break;
        case DType::Q8_0:  // never on the GPU (cuda_backend refuses such a checkpoint)
        case DType::I8:    // int8 weights go through CudaBackend::int8_linear, never here
        case DType::I32: break;
    }
    return f(__nv_bfloat16{});
}

struct Sequence {
    std::vector<int> pages;
    std::size_t length = 0;
};

// The step's integer tables, packed into one upload: offsets in int32 elements.
struct StepTables {
    std::vector<std::int32_t> data;
    std::size_t ids = 0, positions = 0, row_seq = 0, q_begin = 0, kv_len = 0, page_table = 0;
    int page_table_stride = 1;
};

// One forward call as queued: sizes, the tables' layout (uploaded before the work), the rows whose
// logits are asked for. A decode step's work depends on nothing else (and on the buffers' addresses).
struct Step {
    int T = 0, B = 0, max_new = 0, max_kv = 0;
    bool decode = false;
    StepTables t;
    Head head = Head::None;
    std::vector<std::size_t> rows;
    std::size_t width = 0;
};

// Decode steps' recorded graphs kept at once (a run uses a handful of shapes: its batch sizes, times
// one per 256 positions of context); more, and they are all dropped and recorded again.
constexpr std::size_t kMaxGraphs = 32;

class CudaBackend final : public Backend {
public:
    CudaBackend(std::unique_ptr<Device> device, const Checkpoint& ckpt, std::vector<std::int32_t> dna_rows,
                const CudaBackendOptions& opt);
    ~CudaBackend() override;

    std::string name() const override { return "cuda"; }
    std::string notice() const override { return notice_; }
    std::string describe() const override;

    SeqId create_sequence() override {
        const SeqId id = next_id_++;
        seqs_.emplace(id, Sequence{});
        return id;
    }
    void free_sequence(SeqId seq) override;
    SeqId fork_sequence(SeqId src) override;
    std::size_t sequence_length(SeqId seq) const override { return sequence(seq).length; }
    void truncate_sequence(SeqId seq, std::size_t n_tokens) override;
    void forward(std::span<const ForwardItem> items, Head head, ForwardOutput& out) override;
    void forward_fns(std::span<const ForwardItem> items, std::span<const FnsRowRequest> rows, const SamplingParams& sampling,
                     std::vector<FnsRow>& out) override;
    // Batch-invariant within the gemv path only (kDecodeMaxRows rows): cuBLASLt
    // may pick another algorithm (another summation order) for another number of rows, and the
    // decode and prefill attention kernels round differently.
    BackendGuarantees guarantees() const override {
        if (!gemv_ok_) return {};
        return {std::size_t(std::min(kDecodeMaxNewTokens, kDecodeMaxRows)), std::size_t(kDecodeMaxRows)};
    }
    MemoryPlan memory_plan() const override;
    // FNS rows computed on the device, and rows sent back to the host functions (undecided: near ties).
    std::size_t fns_device_rows() const { return fns_device_rows_; }
    std::size_t fns_host_rows() const { return fns_host_rows_; }
    std::size_t graph_captures() const { return graph_captures_; }
    std::size_t graph_replays() const { return graph_replays_; }
    std::size_t memory_available() const override { return dev_->memory_info().free; }
    void release_cached_memory() override;

private:
    Sequence& sequence(SeqId seq) {
        auto it = seqs_.find(seq);
        if (it == seqs_.end()) throw carbon::Error("unknown sequence id " + std::to_string(seq));
        return it->second;
    }
    const Sequence& sequence(SeqId seq) const { return const_cast<CudaBackend*>(this)->sequence(seq); }

    StepTables tables(std::span<const ForwardItem> items, const std::vector<Sequence*>& seqs) const;
    void reserve_buffers(std::size_t rows);
    // A projection's input as its product takes it: on the decode path (gemv) fp32 or bf16 as it
    // is; on the GEMM path cast to the weights' type (gemm_input); with int8 weights quantised per
    // row into xq_ / xs_ (type I8), whichever the path.
    struct Operand {
        const void* data = nullptr;
        DType type = DType::F32;
    };
    template <class X>
    Operand operand(const X* x, int rows, int cols, bool decode, const DeviceTensor& w);
    // y[rows, w.rows] = x w^T, or y + x w^T when accumulate (the GEMM path only with native
    // weights: the decode path adds the residual in its norm).
    void project(const Operand& x, int rows, const DeviceTensor& w, float* y, bool decode, bool accumulate = false);
    // The int8 product: gemv_int8 for decode (or when cuBLASLt has no int8 GEMM), else cuBLASLt's
    // int8 GEMM into acc_ and scale_int32_products.
    void int8_linear(int rows, const DeviceTensor& w, float* y, bool decode, bool accumulate);
    // y[rows, w.rows] = x w^T (+ beta * y); x is in the weights' type.
    void linear(const void* x, int rows, const DeviceTensor& w, float* y, float beta = 0.0f);
    void add_bias(float* y, int rows, const DeviceTensor& b);
    // x as the GEMMs take it: x itself for fp32 weights, else cast into xg_.
    const void* gemm_input(const float* x, int rows, int cols);
    void attention(int layer, const StepTables& t, int batch, int max_new, int max_kv, int rows);
    // The decode path's product: y[rows, w.rows] = x w^T through gemv, x fp32 or bf16 [rows, w.cols].
    template <class X>
    void gemv_linear(const X* x, int rows, const DeviceTensor& w, float* y);
    // Validates, appends the items' tokens and queues the layers and the head: the requested rows'
    // logits in logits_ (device), not yet synchronized. Returns the head's width (0: Head::None).
    std::size_t forward_on_device(std::span<const ForwardItem> items, Head head, std::vector<std::size_t>& row_begin);
    // Queues a step's work: embedding, layers, head (nothing allocated, nothing synchronized).
    void queue_step(const Step& s);
    // A decode step through a CUDA graph: recorded the first time its key is seen, replayed after.
    void replay_step(const Step& s);
    std::vector<std::uintptr_t> step_key(const Step& s) const;
    void drop_graphs();
    void check_embedding() const;  // after a synchronize

    std::unique_ptr<Device> dev_;  // first: destroyed last, after every allocation made on it
    Stream stream_ = nullptr;
    ModelConfig cfg_;
    std::string notice_;
    DType w_type_, kv_type_;
    int H_ = 0, F_ = 0, nh_ = 0, nkv_ = 0, hd_ = 0, qdim_ = 0, kvdim_ = 0;
    std::unique_ptr<DeviceWeights> w_;
    std::unique_ptr<KvPages> kv_;
    RopeTable rope_;
    DeviceMemory inv_freq_;
    std::map<SeqId, Sequence> seqs_;
    SeqId next_id_ = 0;
    std::size_t rows_capacity_ = 0, workspace_bytes_ = 0;
    // Per-step buffers, grown (never shrunk) to the largest batch seen.
    DeviceMemory tables_, h_, xn_, xg_, q_, k_, v_, qc_, att_, gate_, up_, ao_, attn_ws_, bad_ids_, sel_, logits_, fns_in_,
        fns_out_, gemv_ws_;
    // int8 weights: the quantised activations (rows x widest input), their scales, and the int8
    // GEMM's int32 sums (rows x widest output).
    DeviceMemory xq_, xs_, acc_;
    bool int8_ = false;
    bool int8_gemm_ = false;  // cuBLASLt took the int8 GEMM at start-up; else prefill runs gemv_int8
    std::string int8_gemm_note_;  // why not
    void probe_int8_gemm();
    bool gemv_ok_ = false;  // every matrix's shape suits gemv: the decode path is on
    bool graphs_ = true;    // decode steps through CUDA graphs (CudaBackendOptions::graphs)
    std::map<std::vector<std::uintptr_t>, Graph> graphs_by_key_;
    std::size_t graph_captures_ = 0, graph_replays_ = 0;
    PinnedMemory tables_host_, logits_host_, bad_ids_host_, fns_in_host_, fns_out_host_;
    std::size_t fns_device_rows_ = 0, fns_host_rows_ = 0;
};

}  // namespace carbon::gpu::detail
