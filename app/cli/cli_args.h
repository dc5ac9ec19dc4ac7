// A small command-line parser for carbon-cli: --name value / --flag, with errors that name the
// option. Unknown options are errors, never ignored.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace carbon::cli {

class Args {
public:
    // `flags` take no value; every other --name takes one.
    Args(const std::vector<std::string>& argv, const std::set<std::string>& known_values,
         const std::set<std::string>& known_flags);
    bool flag(const std::string& name) const { return flags_.count(name) > 0; }
    std::optional<std::string> get(const std::string& name) const;
    std::string required(const std::string& name) const;
    std::string get_or(const std::string& name, const std::string& fallback) const;
    long long integer(const std::string& name, long long fallback, long long min, long long max) const;
    std::optional<long long> optional_integer(const std::string& name, long long min, long long max) const;
    double number(const std::string& name, double fallback, double min, double max) const;

private:
    std::map<std::string, std::string> values_;
    std::set<std::string> flags_;
};

}  // namespace carbon::cli
