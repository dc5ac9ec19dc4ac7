// Fuzz target for the vep result reader (storage/src/vep_result.cpp: VepResultReader, which reads
// a TSV for `project import --vep` and checks every row of OUT.partial before `vep --resume`):
// any input must be read or refused with carbon::Error; every row it returns is one vep writes
// (POS 1 to 2^31-1, a known status, a window only for the scored ones, REF of A/C/G/T/N), and it
// never returns more rows than the input has lines. The reader's sources are compiled here with
// the sanitizers; the project code it links (not used by the reader) is the plain library's.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "carbon/storage/vep_result.h"
#include "carbon/support/common.h"
#include "fuzz_target.h"

std::vector<std::string> carbon_fuzz_seeds() {
    const std::string head = "##carbon-cli vep 0.1.0\n##model=/m\n##window_bp=600\n" + std::string(carbon::storage::kVepColumnLine);
    return {head + "chr1\t10\t.\tA\tC\tok\t1\t600\t0.5\t-0.25\tNA\tNA\n"
                   "chr1\t20\trs1\tAC\tA\tref_mismatch\tNA\tNA\tNA\tNA\tNA\tNA\n",
            head, "##carbon-cli vep 0.1.0\n"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string path = [] {
        char t[] = "/tmp/carbon-fuzz-vep-XXXXXX";
        const int fd = mkstemp(t);
        if (fd >= 0) close(fd);
        return std::string(t);
    }();
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), std::streamsize(size));
    const size_t lines = size_t(std::count(data, data + size, uint8_t('\n'))) + 1;
    try {
        carbon::storage::VepResultReader reader(path);
        size_t rows = 0;
        for (carbon::storage::VepRow r; reader.next(r);) {
            if (++rows > lines) __builtin_trap();
            if (r.pos < 1 || r.pos > 2147483647) __builtin_trap();
            if (r.ref.empty() || r.ref.find_first_not_of("ACGTN") != std::string::npos) __builtin_trap();
            const bool scored = r.status == "ok" || r.status == "window_clipped";
            if (scored && (r.window_start < 1 || r.window_end < r.window_start)) __builtin_trap();
        }
    } catch (const carbon::Error&) {
    }
    return 0;
}
