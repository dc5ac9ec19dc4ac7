// SplitMix64 (Steele, Lea, Flood 2014): the seeded generator of predict/'s draws (folds,
// evolution's proposals), the same numbers on every platform for the same seed.
#pragma once

#include <cstdint>

namespace carbon {

struct SplitMix64 {
    uint64_t state = 0;
    uint64_t next() {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // Uniform in (0, 1): 53 random bits, never 0.
    double uniform() { return (double(next() >> 11) + 0.5) * 0x1.0p-53; }
};

}  // namespace carbon
