// SequenceEmbedder and model_fingerprint (carbon/predict/embedder.h).
#include "carbon/predict/embedder.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <optional>

#include "carbon/fns/fns.h"
#include "carbon/support/common.h"
#include "carbon/support/visible_text.h"
#include "forked_pass.h"
#include "hidden_pass.h"

namespace carbon {

namespace fs = std::filesystem;

std::string EmbeddingRecipe::pool_name() const {
    switch (pool) {
        case EmbeddingPool::DnaEnd: return "dna-end";
        case EmbeddingPool::DnaMean: return "dna-mean";
        case EmbeddingPool::Both: return "both";
    }
    return "?";
}

std::string EmbeddingRecipe::describe() const {
    std::string s = "<dna>SEQUENCE</dna>, final hidden state ";
    s += pool == EmbeddingPool::DnaEnd    ? "at </dna>"
         : pool == EmbeddingPool::DnaMean ? "averaged over the DNA tokens"
                                          : "at </dna> and averaged over the DNA tokens, side by side";
    s += rc_average ? ", averaged with the reverse complement's" : ", forward strand";
    return s;
}

EmbeddingPool EmbeddingRecipe::parse_pool(std::string_view name, const std::string& where) {
    if (name == "dna-end") return EmbeddingPool::DnaEnd;
    if (name == "dna-mean") return EmbeddingPool::DnaMean;
    if (name == "both") return EmbeddingPool::Both;
    throw Error(where + ": embedding '" + visible_text(name, 40) + "' is not one of dna-end, dna-mean, both");
}

bool EmbeddingRecipe::parse_strands(std::string_view name, const std::string& where) {
    if (name == "forward") return false;
    if (name == "average") return true;
    throw Error(where + ": strands '" + visible_text(name, 40) + "' is not one of forward, average");
}

SequenceEmbedder::SequenceEmbedder(Model& model, EmbeddingRecipe recipe) : model_(model), recipe_(recipe) {}

std::vector<int32_t> SequenceEmbedder::tokens(std::string_view sequence, const std::string& name) const {
    size_t a = 0, b = sequence.size();
    while (a < b && std::isspace(static_cast<unsigned char>(sequence[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(sequence[b - 1]))) --b;
    std::string s(sequence.substr(a, b - a));
    for (char& ch : s) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    if (s.empty()) throw Error(name + ": no bases to embed");
    std::vector<int32_t> ids = model_.tokenizer().encode_prompt("", s, true).ids;
    const size_t context = size_t(std::max(1, model_.config().max_position_embeddings));
    if (ids.size() > context)
        throw Error(name + ": " + std::to_string(s.size()) + " bases make " + std::to_string(ids.size()) +
                    " tokens, more than the model's context of " + std::to_string(context));
    return ids;
}

Embeddings SequenceEmbedder::embed(std::span<const std::string> sequences, std::span<const std::string> names, size_t batch,
                                   const EmbedProgress& progress) {
    return embed_impl(nullptr, sequences, names, batch, progress);
}

Embeddings SequenceEmbedder::embed_near(std::string_view reference, std::span<const std::string> sequences,
                                        std::span<const std::string> names, size_t batch, const EmbedProgress& progress) {
    return embed_impl(&reference, sequences, names, batch, progress);
}

Embeddings SequenceEmbedder::embed_impl(const std::string_view* reference, std::span<const std::string> sequences,
                                        std::span<const std::string> names, size_t batch, const EmbedProgress& progress) {
    const size_t H = size_t(model_.config().hidden_size);
    const bool want_end = recipe_.pool != EmbeddingPool::DnaMean, want_mean = recipe_.pool != EmbeddingPool::DnaEnd;
    const size_t views = recipe_.rc_average ? 2 : 1;
    std::vector<std::vector<int32_t>> inputs =
        strand_inputs(sequences, names, views, [&](const std::string& s, const std::string& name) { return tokens(s, name); });
    Embeddings e;
    e.width = recipe_.width(H);
    e.values.assign(sequences.size() * e.width, 0.0);
    Backend& be = model_.backend();
    std::optional<ForkedPasses> forked;
    if (reference && !inputs.empty()) {
        const std::string ref(*reference);
        forked.emplace(be, strand_inputs(std::span<const std::string>(&ref, 1), {}, views,
                                         [&](const std::string& s, const std::string&) { return tokens(s, "the reference"); }),
                       want_mean);
    }
    batch = std::max<size_t>(1, batch) * views;
    for (size_t b0 = 0; b0 < inputs.size(); b0 += batch) {
        const size_t b1 = std::min(inputs.size(), b0 + batch);
        ForwardOutput out;
        if (forked) {
            forked->run(inputs, b0, b1, out);
        } else {
            hidden_pass(be, inputs, b0, b1, want_mean, out);
            for (size_t k = b0; k < b1; ++k) e.tokens_forwarded += inputs[k].size();
        }
        if (forked) e.tokens_forwarded = forked->tokens();
        for (size_t k = b0; k < b1; ++k) {
            // <dna> at 0, the DNA tokens at 1 .. T-2, </dna> at T-1.
            const size_t T = inputs[k].size();
            double* dst = e.values.data() + (k / views) * e.width;
            const double w = 1.0 / double(views);
            if (want_end) {
                const float* h = out.row(k - b0, want_mean ? T - 1 : 0);
                for (size_t j = 0; j < H; ++j) dst[j] += w * double(h[j]);
            }
            if (want_mean) {
                double* m = dst + (want_end ? H : 0);
                const size_t n_dna = T - 2;  // tokens() guarantees at least one base, so one 6-mer
                std::vector<double> sum(H, 0.0);
                for (size_t p = 1; p + 1 < T; ++p) {
                    const float* h = out.row(k - b0, p);
                    for (size_t j = 0; j < H; ++j) sum[j] += double(h[j]);
                }
                for (size_t j = 0; j < H; ++j) m[j] += w * (sum[j] / double(n_dna));
            }
        }
        if (progress && !progress(b1 / views, sequences.size())) {
            e.cancelled = true;
            return e;
        }
    }
    return e;
}

namespace {

struct Fnv {
    uint64_t h = 1469598103934665603ull;
    void add(const void* data, size_t n) {
        const auto* p = static_cast<const unsigned char*>(data);
        for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
    }
    void add(std::string_view s) {
        add(s.data(), s.size());
        add("\0", 1);
    }
};

// The file's bytes at [offset, offset + n) (fewer at its end) into the hash.
void add_range(Fnv& f, std::ifstream& in, uint64_t offset, size_t n) {
    std::vector<char> buf(n);
    in.clear();
    in.seekg(std::streamoff(offset));
    in.read(buf.data(), std::streamsize(n));
    f.add(buf.data(), size_t(std::max<std::streamsize>(0, in.gcount())));
}

}  // namespace

std::string model_fingerprint(const fs::path& dir) {
    Fnv f;
    std::vector<fs::path> weights;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.path().extension() == ".safetensors") weights.push_back(entry.path());
    std::sort(weights.begin(), weights.end());
    for (const char* small : {"config.json", "tokenizer.json", "tokenizer_config.json"}) {
        std::ifstream in(dir / small, std::ios::binary);
        f.add(small);
        if (!in) continue;
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        f.add(text);
    }
    constexpr size_t kSample = 64 << 10;
    for (const fs::path& w : weights) {
        std::ifstream in(w, std::ios::binary);
        if (!in) throw Error(w.string() + ": cannot read the weights to identify the model");
        in.seekg(0, std::ios::end);
        const uint64_t size = uint64_t(in.tellg());
        f.add(w.filename().string());
        f.add(&size, sizeof size);
        uint64_t header = 0;
        in.seekg(0);
        in.read(reinterpret_cast<char*>(&header), 8);  // little-endian length of the JSON header
        // The header as the file states it, at most what the file holds and 100 MiB (safetensors' own cap).
        const uint64_t data_start = size < 8 ? size : 8 + std::min<uint64_t>({header, size - 8, uint64_t(100) << 20});
        add_range(f, in, 0, size_t(data_start));
        const uint64_t data = size - data_start;
        for (int s = 0; s < 16; ++s) add_range(f, in, data_start + data / 16 * uint64_t(s), size_t(std::min<uint64_t>(kSample, data)));
    }
    char out[32];
    std::snprintf(out, sizeof out, "fnv1a64:%016llx", static_cast<unsigned long long>(f.h));
    return out;
}

}  // namespace carbon
