// Numbers as a report shows them to the user (predict/).
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace carbon {

// `v` with `digits` decimals; "undefined" for NaN (a correlation of constant values).
inline std::string report_fixed(double v, int digits) {
    if (!std::isfinite(v)) return "undefined";
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

// Three significant digits (penalties, which span many decades).
inline std::string report_general(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

}  // namespace carbon
