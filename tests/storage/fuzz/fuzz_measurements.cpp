// Fuzz target for the measurement-table reader (storage/src/measurements.cpp): any bytes must be
// read or refused with carbon::Error. The first byte picks the name the text is read under ('0' .tsv,
// '1' .csv, '2' no extension, so the header decides the delimiter). What it returns must hold what the
// header promises: one value and one SE per condition, finite values, SEs >= 0 only beside a
// value, sequences of A/C/G/T/N, unique names, never more rows than lines; then resolving the
// rows without a sequence gives each one or refuses with carbon::Error, leaving the table as it was.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "carbon/storage/measurements.h"
#include "carbon/support/common.h"
#include "fuzz_target.h"

std::vector<std::string> carbon_fuzz_seeds() {
    return {"0name\tsequence\tK562\tK562_se\tHepG2\n# comment\na\tACGTN\t1.5\t0.25\tNA\nb\tacgt\t-2e-3\t\t\n",
            "1\xEF\xBB\xBFid,\"K562, rep\",HepG2_sem,HepG2\r\n\"x \"\"1\"\"\",3,0.5,1\r\ny,N/A,,\r\n",
            "2seq,a,b\nACGT,1,2\nACGA,inf,3\n", "0name\tK\n"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const char* names[] = {"m.tsv", "m.csv", "m"};
    const std::string name = names[data[0] % 3];
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    const size_t lines = size_t(std::count(text.begin(), text.end(), '\n')) + 1;
    try {
        carbon::storage::MeasurementTable t = carbon::storage::parse_measurement_table(text, name);
        const size_t nc = t.conditions.size();
        if (nc == 0 || t.has_se.size() != nc || t.rows.empty() || t.rows.size() > lines) __builtin_trap();
        std::set<std::string> seen;
        for (const auto& r : t.rows) {
            if (r.line < 2 || r.line > lines || r.values.size() != nc || r.se.size() != nc) __builtin_trap();
            if (r.name.empty() && r.sequence.empty()) __builtin_trap();
            if (r.sequence.find_first_not_of("ACGTN") != std::string::npos) __builtin_trap();
            if (!r.name.empty() && !seen.insert(r.name).second) __builtin_trap();
            for (size_t c = 0; c < nc; ++c) {
                if (r.values[c] && !std::isfinite(*r.values[c])) __builtin_trap();
                if (r.se[c] && (!t.has_se[c] || !r.values[c] || !std::isfinite(*r.se[c]) || *r.se[c] < 0))
                    __builtin_trap();
            }
        }
        const auto before = t.rows.size();
        try {
            carbon::storage::resolve_measurement_sequences(
                t,
                [](const std::string& n) -> std::optional<std::string> {
                    if (n.size() % 3 == 0) return std::nullopt;
                    return n.size() % 3 == 1 ? std::string("acgtn") : std::string("ACXT");
                },
                "the fuzz genome");
            for (const auto& r : t.rows)
                if (r.sequence.empty() || r.sequence.find_first_not_of("ACGTN") != std::string::npos) __builtin_trap();
        } catch (const carbon::Error&) {
        }
        if (t.rows.size() != before) __builtin_trap();
    } catch (const carbon::Error&) {
    }
    return 0;
}
