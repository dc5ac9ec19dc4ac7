// Fuzz target for the motif files (JASPAR, MEME minimal, TRANSFAC; engine/src/motifs/
// motif_formats.cpp): parse_motifs must accept the input or refuse it with carbon::Error; every
// motif it accepts has 1 to 300 positions of finite counts >= 0 with some mass, and its PSSM and
// p-value grid build with finite scores and p-values in [0, 1] (the first three motifs, so that a
// file of many cannot make one input slow).
#include <cmath>

#include "carbon/motifs/motif.h"
#include "carbon/support/common.h"
#include "fuzz_target.h"

std::vector<std::string> carbon_fuzz_seeds() {
    return {">MA0004.1 Arnt\nA [ 4 19 0 0 0 0 ]\nC [16 0 20 0 0 0 ]\nG [ 0 1 0 20 0 20 ]\nT [ 0 0 0 0 20 0 ]\n",
            "MEME version 4\n\nALPHABET= ACGT\n\nMOTIF m1 one\nletter-probability matrix: alength= 4 w= 3 nsites= 20\n"
            "0.25 0.25 0.25 0.25\n0.7 0.1 0.1 0.1\n0.1 0.1 0.1 0.7\n",
            "AC M1\nXX\nID one\nP0 A C G T\n01 1 2 3 4 N\n02 4 3 2 1 N\n//\n",
            "4 19 0 0 0 0\n16 0 20 0 0 0\n0 1 0 20 0 20\n0 0 0 0 20 0\n"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const std::vector<carbon::Motif> ms = carbon::parse_motifs(std::string(reinterpret_cast<const char*>(data), size), "fuzz.jaspar");
        for (size_t k = 0; k < ms.size(); ++k) {
            const carbon::Motif& m = ms[k];
            if (m.counts.empty() || m.counts.size() > 300) __builtin_trap();
            for (const auto& c : m.counts) {
                double sum = 0;
                for (double v : c) {
                    if (!std::isfinite(v) || v < 0) __builtin_trap();
                    sum += v;
                }
                if (!(sum > 0) || !std::isfinite(sum)) __builtin_trap();
            }
            if (k >= 3) continue;
            const carbon::Pssm p = carbon::make_pssm(m, carbon::uniform_background(), 0.5);
            if (!std::isfinite(p.min_score()) || !std::isfinite(p.max_score())) __builtin_trap();
            const carbon::ScoreDistribution d(p);
            const double pv = d.pvalue(p.max_score());
            if (!(pv >= 0 && pv <= 1)) __builtin_trap();
        }
    } catch (const carbon::Error&) {
    }
    return 0;
}
