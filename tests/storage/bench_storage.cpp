// Storage benchmark (not a test): stores N designs of L bases with full tracks (logp f32,
// A/C/G/T distribution f16, entropy f32), one transaction per design, then reopens the project
// (quick_check) and lists its designs. Usage: bench_storage FILE [N] [L]. See docs/benchmarks.md.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "carbon/storage/project.h"
#include "storage_test_util.h"

using namespace carbon::storage;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_storage FILE [N] [L]\n");
        return 2;
    }
    const std::string path = argv[1];
    const int n = argc > 2 ? std::atoi(argv[2]) : 10000;
    const size_t len = argc > 3 ? size_t(std::atoi(argv[3])) : 1000;
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path + ext);
    using clock = std::chrono::steady_clock;
    auto secs = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
    auto t0 = clock::now();
    {
        auto p = Project::open(path);
        Run r;
        r.kind = "generate";
        const int64_t run_id = p->begin_run(r);
        for (int i = 0; i < n; ++i) {
            DesignRecord d;
            d.run_id = run_id;
            d.name = "design_" + std::to_string(i);
            d.bases = storage_test::design_bases(i, len);
            d.rank = i + 1;
            auto tracks = storage_test::design_tracks(i, len);
            Track ent;
            ent.kind = "entropy_bits";
            ent.values.assign(len, 1.5f);
            tracks.push_back(ent);
            Region reg;
            reg.kind = RegionKind::Design;
            reg.end = int64_t(len);
            p->add_design(d, tracks, {reg});
        }
    }
    const double store = secs(t0);
    t0 = clock::now();
    auto p = Project::open(path, {.create = false});
    const auto designs = p->list_designs(0, false);
    const double list = secs(t0);
    std::printf("stored %d designs of %zu bp with 3 tracks in %.2f s (%.0f designs/s); file %.1f MiB\n", n, len, store, n / store,
                double(std::filesystem::file_size(path)) / (1 << 20));
    std::printf("open (quick_check) + list %zu designs: %.3f s\n", designs.size(), list);
    t0 = clock::now();
    auto p2 = Project::open(path, {.create = false, .check = IntegrityCheck::None});
    const auto d2 = p2->list_designs(0, false);
    std::printf("open (no check) + list %zu designs: %.3f s\n", d2.size(), secs(t0));
    return 0;
}
