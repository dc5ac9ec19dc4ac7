// carbon-cli shared helpers (see cli_common.h).
#include "cli_common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "carbon/support/visible_text.h"
#include "metadata_tags.h"

namespace carbon::cli {

std::string tsv_number(double v, int digits) {
    if (std::isnan(v)) return "NA";
    char b[40];
    std::snprintf(b, sizeof b, "%.*g", digits, v);
    return b;
}

bool wants_help(const std::vector<std::string>& argv, const char* usage) {
    for (const std::string& s : argv)
        if (s == "--help" || s == "-h") {
            std::fputs(usage, stdout);
            return true;
        }
    return false;
}

#ifdef CARBON_HAVE_STORAGE
std::unique_ptr<storage::ReferenceGenome> open_reference(const std::string& path) {
    auto g = storage::ReferenceGenome::open(path, storage::ReferenceGenome::default_index_dir());
    if (!g->index_note().empty()) std::fprintf(stderr, "note: %s\n", g->index_note().c_str());
    return g;
}
#endif

std::unique_ptr<Model> load_model_from_args(const Args& a) { return load_model_from_args(a, a.required("model")); }

std::unique_ptr<Model> load_model_from_args(const Args& a, const std::string& dir) {
    ModelOptions mo;
    mo.backend = parse_backend_kind(a.get_or("backend", "auto"));
    mo.threads = int(a.integer("threads", 0, 0, 1024));
    mo.yarn_factor = a.get("yarn") ? a.number("yarn", 0, 1.0 + 1e-9, 64.0) : 0.0;
    mo.weights = a.get_or("weights", "");  // the commands that offer --weights: native, int8 or q8_0
    auto m = Model::load(dir, mo);
    if (!m->notice().empty()) std::fprintf(stderr, "note: %s\n", m->notice().c_str());
    return m;
}

std::string resolve_tags(const std::string& comma_list, bool free) {
    std::vector<std::string> offered;
    std::stringstream text(kMetadataTagsText);
    std::string line;
    while (std::getline(text, line)) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (!line.empty() && line[0] != '#') offered.push_back(line);
    }
    std::string out;
    std::stringstream ss(comma_list);
    std::string tag;
    while (std::getline(ss, tag, ',')) {
        if (tag.empty()) continue;
        std::string found;
        for (const std::string& o : offered)
            if (o == tag || o == "<" + tag + ">") found = o;
        if (found.empty()) {
            if (!free) {
                std::string list;
                for (const std::string& o : offered) list += " " + o;
                throw Error("unknown metadata tag '" + tag + "' (offered:" + list + "; use --free-tags to pass your own text)");
            }
            found = tag;
        }
        out += found;
    }
    return out;
}

void ProgressPrinter::update(double done, double total, const char* unit, double rate) {
    if (quiet_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(500)) return;
    last_ = now;
    const double eta = rate > 0 ? (total - done) / rate : 0;
    std::fprintf(stderr, "\r  %.0f/%.0f %s (%.1f %s/s, ETA %.0f s)   ", done, total, unit, rate, unit, eta);
    std::fflush(stderr);
    printed_ = true;
}

void ProgressPrinter::finish() {
    if (printed_) std::fprintf(stderr, "\n");
    printed_ = false;
}

std::vector<int64_t> parse_ids(const std::string& list, const char* option) {
    std::vector<int64_t> ids;
    for (size_t i = 0; i <= list.size();) {
        const size_t j = std::min(list.find(',', i), list.size());
        const std::string part = list.substr(i, j - i);
        if (!part.empty()) {
            if (part.size() > 18 || part.find_first_not_of("0123456789") != std::string::npos)
                throw Error(std::string(option) + ": '" + visible_text(part, 40) + "' is not a design id");
            ids.push_back(std::stoll(part));
        }
        i = j + 1;
    }
    return ids;
}

}  // namespace carbon::cli
