// Small helpers shared by the exporters: numbers as text, NA for missing values.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace carbon::storage {

// %.9g (or `digits`) of v, "NA" for NaN (the convention of every TSV/CSV the project writes).
inline std::string num(double v, int digits = 9) {
    if (std::isnan(v)) return "NA";
    char b[40];
    std::snprintf(b, sizeof b, "%.*g", digits, v);
    return b;
}

}  // namespace carbon::storage
