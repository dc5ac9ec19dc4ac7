// Test tool for the parity tests: runs the CPU backend over given token ids and writes the
// full-vocabulary logits of every position (raw float32, [positions, vocab]) and, optionally, a
// greedy full-vocabulary continuation, so Python can compare both with transformers.
//   carbon_forward --model DIR --ids FILE.json --logits OUT.f32 [--greedy N --greedy-out OUT.json]
//                  [--chunks a,b,...] [--threads N]
// --chunks feeds the prompt in pieces (prefill then more prefills over the cache) to exercise the
// KV cache; the logits must not depend on it.
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "carbon/fns/sampling.h"
#include "carbon/gpu_provider.h"
#include "carbon/model.h"

using namespace carbon;
using json = nlohmann::json;

int main(int argc, char** argv) {
    try {
        std::string model, ids_file, logits_file, greedy_out, chunks_arg;
        std::string backend = "cpu";
        int greedy = 0, threads = 0;
        for (int i = 1; i + 1 < argc; i += 2) {
            std::string k = argv[i], v = argv[i + 1];
            if (k == "--model") model = v;
            else if (k == "--ids") ids_file = v;
            else if (k == "--logits") logits_file = v;
            else if (k == "--greedy") greedy = std::stoi(v);
            else if (k == "--greedy-out") greedy_out = v;
            else if (k == "--chunks") chunks_arg = v;
            else if (k == "--threads") threads = std::stoi(v);
            else if (k == "--backend") backend = v;
            else throw Error("unknown option " + k);
        }
        std::ifstream f(ids_file);
        if (!f) throw Error("cannot open " + ids_file);
        std::vector<int32_t> ids = json::parse(f).get<std::vector<int32_t>>();
        ModelOptions mo;
        mo.backend = parse_backend_kind(backend);
        if (mo.backend != BackendKind::Cpu) load_gpu_plugin();
        mo.threads = threads;
        auto m = Model::load(model, mo);
        Backend& be = m->backend();
        const SeqId seq = be.create_sequence();

        std::vector<size_t> chunks;
        if (!chunks_arg.empty()) {
            std::stringstream ss(chunks_arg);
            std::string part;
            while (std::getline(ss, part, ',')) chunks.push_back(std::stoul(part));
        } else {
            chunks.push_back(ids.size());
        }
        std::ofstream lo(logits_file, std::ios::binary);
        size_t done = 0;
        ForwardOutput out;
        for (size_t c = 0; done < ids.size(); ++c) {
            const size_t n = c < chunks.size() ? std::min(chunks[c], ids.size() - done) : ids.size() - done;
            ForwardItem item{seq, std::span<const int32_t>(ids.data() + done, n), true};
            be.forward(std::span(&item, 1), Head::Full, out);
            lo.write(reinterpret_cast<const char*>(out.logits.data()), std::streamsize(out.logits.size() * sizeof(float)));
            done += n;
        }
        if (!lo) throw Error("cannot write " + logits_file);
        if (greedy > 0) {
            std::vector<int32_t> gen;
            const float* last = out.row(0, out.row_begin[1] - out.row_begin[0] - 1);
            int32_t next = int32_t(argmax(std::span<const float>(last, out.width)));
            for (int s = 0; s < greedy; ++s) {
                gen.push_back(next);
                if (s + 1 == greedy) break;
                ForwardItem item{seq, std::span<const int32_t>(&next, 1), false};
                be.forward(std::span(&item, 1), Head::Full, out);
                next = int32_t(argmax(std::span<const float>(out.row(0), out.width)));
            }
            std::ofstream g(greedy_out);
            g << json(gen).dump() << "\n";
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "carbon_forward: error: %s\n", e.what());
        return 1;
    }
}
