// Objective::parse, evaluation and description (carbon/predict/objective.h).
#include "carbon/predict/objective.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "carbon/support/common.h"
#include "carbon/support/visible_text.h"

namespace carbon {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    size_t a = 0;
    for (size_t b; (b = s.find(sep, a)) != std::string_view::npos; a = b + 1) out.push_back(s.substr(a, b - a));
    out.push_back(s.substr(a));
    return out;
}

}  // namespace

Objective Objective::parse(std::string_view spec, const std::vector<std::string>& outputs, const std::string& where) {
    Objective o;
    o.spec = std::string(spec);
    std::string names;
    for (const std::string& n : outputs) names += (names.empty() ? "" : ", ") + n;
    auto fail = [&](const std::string& why) -> Objective {
        throw Error(where + " '" + visible_text(std::string(spec), 80) + "': " + why + " (the predictor's outputs: " + names +
                    "; forms: NAME, mingap:NAME, mingap:NAME-OTHER,OTHER, sum:NAME=W,NAME=W)");
    };
    auto index = [&](std::string_view name) -> size_t {
        for (size_t i = 0; i < outputs.size(); ++i)
            if (outputs[i] == name) return i;
        fail("'" + visible_text(std::string(name), 40) + "' is not an output of the predictor");
        return 0;
    };
    if (spec.rfind("mingap:", 0) == 0) {
        o.kind = Kind::MinGap;
        const std::string_view rest = spec.substr(7);
        const size_t dash = rest.find('-');
        o.target = index(rest.substr(0, dash));
        if (dash == std::string_view::npos) {
            for (size_t i = 0; i < outputs.size(); ++i)
                if (i != o.target) o.others.push_back(i);
        } else {
            for (std::string_view n : split(rest.substr(dash + 1), ',')) o.others.push_back(index(n));
        }
        if (o.others.empty()) fail("MinGap needs at least one other output to be specific against");
        if (std::find(o.others.begin(), o.others.end(), o.target) != o.others.end()) fail("the target is among the others");
        return o;
    }
    if (spec.rfind("sum:", 0) == 0) {
        o.kind = Kind::Sum;
        for (std::string_view term : split(spec.substr(4), ',')) {
            const size_t eq = term.find('=');
            if (eq == std::string_view::npos) fail("each term is NAME=WEIGHT");
            double w = 0;
            const std::string_view ws = term.substr(eq + 1);
            const auto [end, ec] = std::from_chars(ws.data(), ws.data() + ws.size(), w);
            if (ec != std::errc() || end != ws.data() + ws.size() || !std::isfinite(w)) fail("the weight of a term is not a number");
            o.terms.emplace_back(index(term.substr(0, eq)), w);
        }
        return o;
    }
    o.kind = Kind::Value;
    o.target = index(spec);
    return o;
}

double Objective::operator()(std::span<const double> v) const {
    switch (kind) {
        case Kind::Value: return v[target];
        case Kind::MinGap: {
            double worst = -std::numeric_limits<double>::infinity();
            for (size_t i : others) worst = std::max(worst, v[i]);
            return v[target] - worst;
        }
        case Kind::Sum: {
            double s = 0;
            for (const auto& [i, w] : terms) s += w * v[i];
            return s;
        }
    }
    return 0;
}

std::string Objective::describe(const std::vector<std::string>& outputs) const {
    switch (kind) {
        case Kind::Value: return outputs[target];
        case Kind::MinGap: {
            std::string s = outputs[target] + " - max(";
            for (size_t k = 0; k < others.size(); ++k) s += (k ? ", " : "") + outputs[others[k]];
            return s + ")";
        }
        case Kind::Sum: {
            std::string s;
            for (const auto& [i, w] : terms) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "%+g", w);
                s += (s.empty() ? "" : " ") + std::string(buf) + " " + outputs[i];
            }
            return s;
        }
    }
    return "";
}

}  // namespace carbon
