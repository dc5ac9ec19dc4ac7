// FNS on the device for the CUDA backend (Backend::forward_fns): the fns_step kernel beside the
// logits, 48 numbers a row back to the host, and the host functions for the rows it cannot certify.
#include "carbon/kernels/fns_step.h"
#include "gpu/cuda_backend_impl.h"

namespace carbon::gpu {
namespace detail {

void CudaBackend::forward_fns(std::span<const ForwardItem> items, std::span<const FnsRowRequest> requests,
                              const SamplingParams& sampling, std::vector<FnsRow>& out) {
    if (requests.size() != items.size())
        throw carbon::Error("forward_fns: " + std::to_string(requests.size()) + " row requests for " +
                            std::to_string(items.size()) + " items");
    std::vector<ForwardItem> last(items.begin(), items.end());
    for (ForwardItem& it : last) it.all_positions = false;
    std::vector<std::size_t> row_begin;
    const std::size_t width = forward_on_device(last, Head::Dna, row_begin);
    const int R = int(items.size());
    // In: the Philox streams and steps (u64), then the masks (6 bytes a row). Out: plain and masked
    // marginals (24 floats a row each), then the status.
    const std::size_t in_bytes = std::size_t(R) * (16 + 6), out_bytes = std::size_t(R) * (2 * 24 * 4 + 4);
    fns_in_host_.reserve(in_bytes);
    fns_in_.reserve(in_bytes);
    fns_out_.reserve(out_bytes);
    fns_out_host_.reserve(out_bytes);
    auto* streams = fns_in_host_.as<std::uint64_t>();
    auto* steps = streams + R;
    auto* masks = reinterpret_cast<std::uint8_t*>(steps + R);
    for (int r = 0; r < R; ++r) {
        streams[r] = requests[std::size_t(r)].stream;
        steps[r] = requests[std::size_t(r)].step;
        std::copy(requests[std::size_t(r)].masks.begin(), requests[std::size_t(r)].masks.end(), masks + 6 * r);
    }
    dev_->copy_to_device(fns_in_.get(), fns_in_host_.as<void>(), in_bytes, stream_);
    const auto* d_streams = fns_in_.as<std::uint64_t>();
    kern::FnsStepRows in;
    in.streams = d_streams;
    in.steps = d_streams + R;
    in.masks = reinterpret_cast<const std::uint8_t*>(d_streams + 2 * R);
    kern::FnsStepParams params;
    params.temperature = sampling.temperature;
    params.top_p = sampling.top_p;
    params.seed = sampling.seed;
    params.certify_every_subset = true;  // the host's constraint search re-picks within a position
    kern::FnsStepOutputs o;
    o.marginals = fns_out_.as<float>();
    o.masked_marginals = o.marginals + 24 * R;
    o.status = reinterpret_cast<std::int32_t*>(o.masked_marginals + 24 * R);
    launched(kern::fns_step(logits_.as<float>(), R, static_cast<long long>(width), in, params, o, stream_), "fns_step",
             kern::fns_step_argument_error(logits_.get(), R, static_cast<long long>(width), in, params, o));
    dev_->copy_to_host(fns_out_host_.as<void>(), fns_out_.get(), out_bytes, stream_);
    dev_->stream_synchronize(stream_);
    check_embedding();
    const float* plain = fns_out_host_.as<float>();
    const float* masked = plain + 24 * R;
    const auto* status = reinterpret_cast<const std::int32_t*>(masked + 24 * R);
    out.assign(std::size_t(R), FnsRow{});
    std::vector<float> row(width);
    for (int r = 0; r < R; ++r) {
        FnsRow& f = out[std::size_t(r)];
        if (status[r] == kern::kFnsNonFinite || status[r] == kern::kFnsUndecided) {
            // The row's logits come back: a non-finite one is reported as forward() reports it; an
            // undecided row (a near tie) gets the host functions, as the CPU computes it.
            dev_->copy_to_host(row.data(), logits_.as<float>() + std::size_t(r) * width, width * 4, stream_);
            dev_->stream_synchronize(stream_);
            if (status[r] == kern::kFnsNonFinite) {
                ForwardOutput one;
                one.width = width;
                one.logits = row;
                one.row_begin = {0, 1};
                require_finite_logits(one, items.subspan(std::size_t(r), 1), cfg_.path.parent_path().string());
            }
            f = fns_row_on_host(row.data(), width, requests[std::size_t(r)].masks);
            ++fns_host_rows_;
            continue;
        }
        for (int j = 0; j < 6; ++j)
            for (int b = 0; b < 4; ++b) {
                f.plain[std::size_t(j)][std::size_t(b)] = plain[(r * 6 + j) * 4 + b];
                f.masked[std::size_t(j)][std::size_t(b)] = masked[(r * 6 + j) * 4 + b];
            }
        f.masked_total = status[r] == kern::kFnsNoAllowedKmer ? 0.0 : 1.0;
        ++fns_device_rows_;
    }
}

}  // namespace detail

FnsRowCounts fns_row_counts(const Backend& backend) {
    const auto* c = dynamic_cast<const detail::CudaBackend*>(&backend);
    return c ? FnsRowCounts{c->fns_device_rows(), c->fns_host_rows()} : FnsRowCounts{};
}

}  // namespace carbon::gpu
