// A probe as JSON (carbon/predict/probe.h): what probe_to_json writes, probe_from_json reads back
// exactly (doubles written with 17 significant digits), refusing anything else. A probe file is
// untrusted input: every size is checked against the others before a number is used.
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <set>

#include "carbon/predict/probe.h"
#include "carbon/support/common.h"
#include "carbon/support/input_file.h"
#include "carbon/support/visible_text.h"

namespace carbon {

using json = nlohmann::json;

namespace {

constexpr const char* kFormat = "carbon-studio-probe";
constexpr size_t kMaxConditions = 1000, kMaxRows = 10'000'000, kMaxWidth = 1 << 16;

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

class Reader {
public:
    explicit Reader(std::string source) : source_(std::move(source)) {}
    [[noreturn]] void fail(const std::string& key, const std::string& why) const { throw Error(source_ + ": " + key + ": " + why); }
    const json& at(const json& j, const std::string& key, const std::string& path) const {
        if (!j.is_object() || !j.contains(key)) fail(path + key, "missing");
        return j[key];
    }
    std::string str(const json& j, const std::string& key, const std::string& path, size_t max = 4096) const {
        const json& v = at(j, key, path);
        if (!v.is_string()) fail(path + key, "must be a string");
        std::string s = v.get<std::string>();
        if (s.size() > max) fail(path + key, "longer than " + std::to_string(max) + " bytes");
        return s;
    }
    double num(const json& v, const std::string& key, bool allow_null = false) const {
        if (allow_null && v.is_null()) return std::numeric_limits<double>::quiet_NaN();
        if (!v.is_number()) fail(key, "must be a number, got " + visible_text(v.dump(), 40));
        const double x = v.get<double>();
        if (!std::isfinite(x)) fail(key, "is not finite");
        return x;
    }
    uint64_t count(const json& j, const std::string& key, const std::string& path, uint64_t max) const {
        const json& v = at(j, key, path);
        if (!v.is_number_unsigned() || v.get<uint64_t>() > max) fail(path + key, "must be a whole number from 0 to " + std::to_string(max));
        return v.get<uint64_t>();
    }
    std::vector<double> numbers(const json& j, const std::string& key, const std::string& path, size_t size, bool allow_null = false) const {
        const json& v = at(j, key, path);
        if (!v.is_array()) fail(path + key, "must be a list of numbers");
        if (v.size() != size) fail(path + key, "has " + std::to_string(v.size()) + " entries; " + std::to_string(size) + " expected");
        std::vector<double> out;
        out.reserve(size);
        for (size_t i = 0; i < size; ++i) out.push_back(num(v[i], path + key + "[" + std::to_string(i) + "]", allow_null));
        return out;
    }

private:
    std::string source_;
};

}  // namespace

std::string probe_to_json(const Probe& p) {
    json j;
    j["format"] = kFormat;
    j["version"] = Probe::kFormatVersion;
    j["created"] = p.created;
    j["engine_version"] = p.engine_version;
    j["model"] = {{"path", p.model_path}, {"fingerprint", p.model_fingerprint}, {"hidden_size", p.hidden_size}, {"weights", p.weights}};
    j["embedding"] = {{"pool", p.embedding.pool_name()}, {"strands", p.embedding.strands_name()}, {"recipe", p.embedding.describe()}};
    j["table"] = {{"path", p.table_path}, {"hash", p.table_hash}, {"rows", p.row_names}};
    j["cross_validation"] = {{"folds", p.folds}, {"seed", p.fold_seed}};
    json conds = json::array();
    for (const ProbeCondition& c : p.conditions) {
        json h = {{"pearson", number_or_null(c.pearson)},
                  {"spearman", number_or_null(c.spearman)},
                  {"pearson_ci", {number_or_null(c.pearson_ci.first), number_or_null(c.pearson_ci.second)}},
                  {"rows", c.rows},
                  {"fold", c.fold},
                  {"measured", c.measured},
                  {"predicted", c.predicted}};
        json loo = json::array();
        for (double v : c.ridge.loo_mse) loo.push_back(number_or_null(v));
        conds.push_back({{"name", c.name},
                         {"n", c.n},
                         {"alphas", c.ridge.alphas},
                         {"alpha_index", c.ridge.alpha_index},
                         {"loo_mse", loo},
                         {"intercept", c.ridge.intercept},
                         {"mean", c.ridge.mean},
                         {"scale", c.ridge.scale},
                         {"coef", c.ridge.coef},
                         {"held_out", h},
                         {"noise_ceiling", c.noise_ceiling ? json(*c.noise_ceiling) : json(nullptr)},
                         {"warnings", c.warnings}});
    }
    j["conditions"] = conds;
    return j.dump(1) + "\n";
}

Probe probe_from_json(std::string_view text, const std::string& source) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        throw Error(source + ": not a predictor file (malformed JSON: " + std::string(e.what()) + ")");
    }
    const Reader r(source);
    if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
        throw Error(source + ": not a Carbon Studio predictor file (no \"format\": \"" + kFormat + "\")");
    if (!j.contains("version") || j["version"] != Probe::kFormatVersion)
        r.fail("version", "this build reads version " + std::to_string(Probe::kFormatVersion) + "; the file says " +
                              visible_text(j.value("version", json()).dump(), 20));
    Probe p;
    p.created = r.str(j, "created", "");
    p.engine_version = r.str(j, "engine_version", "");
    const json& model = r.at(j, "model", "");
    p.model_path = r.str(model, "path", "model.");
    p.model_fingerprint = r.str(model, "fingerprint", "model.");
    p.hidden_size = r.count(model, "hidden_size", "model.", kMaxWidth);
    if (p.hidden_size == 0) r.fail("model.hidden_size", "must be positive");
    // Files written before the weights were recorded were fitted on the stored weights.
    p.weights = model.contains("weights") ? r.str(model, "weights", "model.") : "native";
    if (p.weights != "native" && p.weights != "int8" && p.weights != "q8_0")
        r.fail("model.weights", "must be native, int8 or q8_0 (the file says '" + visible_text(p.weights, 20) + "')");
    const json& emb = r.at(j, "embedding", "");
    p.embedding.pool = EmbeddingRecipe::parse_pool(r.str(emb, "pool", "embedding."), source + ": embedding.pool");
    p.embedding.rc_average = EmbeddingRecipe::parse_strands(r.str(emb, "strands", "embedding."), source + ": embedding.strands");
    const json& table = r.at(j, "table", "");
    p.table_path = r.str(table, "path", "table.");
    p.table_hash = r.str(table, "hash", "table.");
    const json& rows = r.at(table, "rows", "table.");
    if (!rows.is_array() || rows.size() > kMaxRows) r.fail("table.rows", "must be a list of at most " + std::to_string(kMaxRows) + " names");
    for (const json& name : rows) {
        if (!name.is_string()) r.fail("table.rows", "must be a list of names");
        p.row_names.push_back(name.get<std::string>());
    }
    const json& cv = r.at(j, "cross_validation", "");
    p.folds = r.count(cv, "folds", "cross_validation.", 1000);
    if (p.folds < 2) r.fail("cross_validation.folds", "must be at least 2");
    p.fold_seed = r.count(cv, "seed", "cross_validation.", std::numeric_limits<uint64_t>::max());
    const json& conds = r.at(j, "conditions", "");
    if (!conds.is_array() || conds.empty() || conds.size() > kMaxConditions)
        r.fail("conditions", "must be a list of 1 to " + std::to_string(kMaxConditions) + " conditions");
    const size_t W = p.width();
    std::set<std::string> names;
    for (size_t ci = 0; ci < conds.size(); ++ci) {
        const json& c = conds[ci];
        const std::string at = "conditions[" + std::to_string(ci) + "].";
        ProbeCondition pc;
        pc.name = r.str(c, "name", at, 1000);
        if (pc.name.empty() || !names.insert(pc.name).second) r.fail(at + "name", "empty or repeated: '" + visible_text(pc.name, 40) + "'");
        pc.n = r.count(c, "n", at, p.row_names.size());
        const json& a = r.at(c, "alphas", at);
        if (!a.is_array() || a.empty() || a.size() > 1000) r.fail(at + "alphas", "must be a list of 1 to 1000 penalties");
        pc.ridge.alphas = r.numbers(c, "alphas", at, a.size());
        for (double v : pc.ridge.alphas)
            if (!(v > 0)) r.fail(at + "alphas", "penalties must be positive");
        pc.ridge.alpha_index = r.count(c, "alpha_index", at, pc.ridge.alphas.size() - 1);
        pc.ridge.alpha = pc.ridge.alphas[pc.ridge.alpha_index];
        pc.ridge.loo_mse = r.numbers(c, "loo_mse", at, pc.ridge.alphas.size(), true);
        pc.ridge.intercept = r.num(r.at(c, "intercept", at), at + "intercept");
        pc.ridge.mean = r.numbers(c, "mean", at, W);
        pc.ridge.scale = r.numbers(c, "scale", at, W);
        for (double v : pc.ridge.scale)
            if (!(v > 0)) r.fail(at + "scale", "scales must be positive");
        pc.ridge.coef = r.numbers(c, "coef", at, W);
        const json& h = r.at(c, "held_out", at);
        const std::string hat = at + "held_out.";
        pc.pearson = r.num(r.at(h, "pearson", hat), hat + "pearson", true);
        pc.spearman = r.num(r.at(h, "spearman", hat), hat + "spearman", true);
        const std::vector<double> ci95 = r.numbers(h, "pearson_ci", hat, 2, true);
        pc.pearson_ci = {ci95[0], ci95[1]};
        pc.measured = r.numbers(h, "measured", hat, pc.n);
        pc.predicted = r.numbers(h, "predicted", hat, pc.n);
        for (double v : r.numbers(h, "rows", hat, pc.n)) {
            if (v < 0 || v >= double(p.row_names.size()) || v != std::floor(v)) r.fail(hat + "rows", "must index the table's rows");
            pc.rows.push_back(size_t(v));
        }
        for (double v : r.numbers(h, "fold", hat, pc.n)) {
            if (v < 0 || v >= double(p.folds) || v != std::floor(v)) r.fail(hat + "fold", "must be fold numbers below the folds");
            pc.fold.push_back(int(v));
        }
        const json& nc = r.at(c, "noise_ceiling", at);
        if (!nc.is_null()) pc.noise_ceiling = r.num(nc, at + "noise_ceiling");
        const json& w = r.at(c, "warnings", at);
        if (!w.is_array() || w.size() > 100) r.fail(at + "warnings", "must be a list of sentences");
        for (const json& s : w) {
            if (!s.is_string()) r.fail(at + "warnings", "must be a list of sentences");
            pc.warnings.push_back(s.get<std::string>());
        }
        p.conditions.push_back(std::move(pc));
    }
    return p;
}

Probe read_probe_file(const std::filesystem::path& path) {
    return probe_from_json(read_regular_file(path, "predictor file", size_t(1) << 30), path.string());
}

}  // namespace carbon
