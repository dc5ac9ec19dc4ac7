// carbon-cli option parsing (see cli_args.h).
#include "cli_args.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "carbon/support/common.h"

namespace carbon::cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& known_values,
           const std::set<std::string>& known_flags) {
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (!a.starts_with("--")) throw Error("unexpected argument '" + a + "'");
        std::string name = a.substr(2), value;
        bool has_value = false;
        if (auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            has_value = true;
        }
        if (known_flags.count(name)) {
            if (has_value) throw Error("option --" + name + " takes no value");
            flags_.insert(name);
        } else if (known_values.count(name)) {
            if (!has_value) {
                if (i + 1 >= argv.size()) throw Error("option --" + name + " needs a value");
                value = argv[++i];
            }
            values_[name] = value;
        } else {
            throw Error("unknown option --" + name);
        }
    }
}

std::optional<std::string> Args::get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::string Args::required(const std::string& name) const {
    auto v = get(name);
    if (!v) throw Error("missing required option --" + name);
    return *v;
}

std::string Args::get_or(const std::string& name, const std::string& fallback) const { return get(name).value_or(fallback); }

std::optional<long long> Args::optional_integer(const std::string& name, long long min, long long max) const {
    auto v = get(name);
    if (!v) return std::nullopt;
    errno = 0;
    char* end = nullptr;
    long long x = std::strtoll(v->c_str(), &end, 10);
    if (v->empty() || *end || errno) throw Error("option --" + name + ": '" + *v + "' is not an integer");
    if (x < min || x > max)
        throw Error("option --" + name + ": " + *v + " is outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    return x;
}

long long Args::integer(const std::string& name, long long fallback, long long min, long long max) const {
    return optional_integer(name, min, max).value_or(fallback);
}

double Args::number(const std::string& name, double fallback, double min, double max) const {
    auto v = get(name);
    if (!v) return fallback;
    char* end = nullptr;
    double x = std::strtod(v->c_str(), &end);
    if (v->empty() || *end || !std::isfinite(x)) throw Error("option --" + name + ": '" + *v + "' is not a number");
    if (x < min || x > max)
        throw Error("option --" + name + ": " + *v + " is outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    return x;
}

}  // namespace carbon::cli
