// Diverse designs chosen among a project's and stored as a selection (design_choice.h).
#include "carbon/runs/design_choice.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "carbon/support/visible_text.h"

namespace carbon::runs {

namespace {

const char* const kColumns[] = {"design_logp", "ranking_logp", "min_base_logp", "objective", "specificity"};

double column_score(const storage::DesignRecord& d, const std::string& name) {
    if (name == "design_logp") return d.design_logp;
    if (name == "ranking_logp") return d.ranking_logp;
    if (name == "min_base_logp") return d.min_base_logp;
    if (name == "objective") return d.objective;
    return d.specificity;
}

bool is_column(const std::string& name) {
    for (const char* c : kColumns)
        if (name == c) return true;
    return false;
}

}  // namespace

const std::vector<std::string>& design_score_columns() {
    static const std::vector<std::string> columns(std::begin(kColumns), std::end(kColumns));
    return columns;
}

DesignChoice choose_designs(storage::Project& project, const DesignChoiceRequest& r, bool store) {
    const std::string where = project.path() + ": ";
    if (r.count == 0) throw Error("choose at least one design (the count is 0)");
    if (store && (r.name.empty() || r.name.size() > 200)) throw Error("a selection's name must be 1 to 200 bytes");
    // The candidates, each with its score.
    std::vector<storage::DesignRecord> designs;
    if (r.candidates.empty()) {
        for (storage::DesignRecord& d : project.list_designs(r.run_id))
            if (d.flag != "discarded") designs.push_back(std::move(d));
        if (designs.empty())
            throw Error(where + (r.run_id ? "run " + std::to_string(r.run_id) + " has no designs that are not discarded"
                                          : std::string("no designs that are not discarded")));
    } else {
        for (int64_t id : r.candidates) {
            auto d = project.design(id);
            if (!d) throw Error(where + "no design with id " + std::to_string(id));
            designs.push_back(std::move(*d));
        }
    }
    std::vector<double> scores(designs.size(), std::nan(""));
    if (is_column(r.score)) {
        for (size_t i = 0; i < designs.size(); ++i) scores[i] = column_score(designs[i], r.score);
    } else {
        const size_t colon = r.score.rfind(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == r.score.size())
            throw Error("the score '" + visible_text(r.score, 80) +
                        "' is neither a design column (design_logp, ranking_logp, min_base_logp, objective, specificity) nor "
                        "PREDICTOR:OUTPUT");
        const std::string predictor = r.score.substr(0, colon), output = r.score.substr(colon + 1);
        std::map<int64_t, double> value;
        for (const auto& [id, p] : project.list_design_predictions())
            if (p.predictor == predictor && p.output == output) value[id] = p.value;
        if (value.empty())
            throw Error(where + "no design has a prediction of '" + visible_text(output, 80) + "' by '" + visible_text(predictor, 80) +
                        "' (predict the designs first)");
        for (size_t i = 0; i < designs.size(); ++i)
            if (auto it = value.find(designs[i].id); it != value.end()) scores[i] = it->second;
    }
    std::vector<std::string> bases;
    for (const storage::DesignRecord& d : designs) {
        std::string s = d.bases;
        for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
        if (r.distance == SequenceDistance::Hamming && !bases.empty() && s.size() != bases.front().size())
            throw Error(where + "design " + std::to_string(d.id) + " is " + std::to_string(s.size()) + " bp where design " +
                        std::to_string(designs.front().id) + " is " + std::to_string(bases.front().size()) +
                        " bp: the Hamming distance needs one length (choose the edit distance)");
        bases.push_back(std::move(s));
    }

    DesignChoice out;
    out.candidates = designs.size();
    std::vector<size_t> pool(designs.size());
    for (size_t i = 0; i < pool.size(); ++i) pool[i] = i;
    if (r.min_distance > 0) pool = remove_near_duplicates(bases, scores, r.min_distance, r.distance);
    out.after_near_duplicates = pool.size();
    std::vector<std::string> kept;
    std::vector<double> kept_scores;
    for (size_t i : pool) {
        kept.push_back(bases[i]);
        kept_scores.push_back(scores[i]);
    }
    const DesignSelection sel = select_diverse(kept, kept_scores, r.count, r.distance, r.min_score);
    out.eligible = sel.eligible;
    out.min_distance = sel.min_distance;
    out.note = sel.note;
    for (size_t k : sel.chosen) out.design_ids.push_back(designs[pool[k]].id);
    if (out.design_ids.empty())
        throw Error(where + "no design could be chosen: " + (sel.note.empty() ? std::string("none is eligible") : sel.note));

    nlohmann::json j = {{"method", "greedy max-min"},
                        {"count", r.count},
                        {"score", r.score},
                        {"distance", r.distance == SequenceDistance::Edit ? "edit" : "hamming"},
                        {"both_strands", true},
                        {"min_distance", r.min_distance},
                        {"candidates", out.candidates},
                        {"after_near_duplicates", out.after_near_duplicates},
                        {"eligible", out.eligible},
                        {"chosen", out.design_ids.size()}};
    if (r.min_score) j["min_score"] = *r.min_score;
    if (r.run_id) j["run"] = r.run_id;
    if (out.design_ids.size() > 1) j["smallest_distance"] = out.min_distance;
    if (!out.note.empty()) j["note"] = out.note;
    out.settings = j.dump();
    if (store) {
        storage::SelectionRecord rec;
        rec.name = r.name;
        rec.settings = out.settings;
        rec.design_ids = out.design_ids;
        out.selection_id = project.save_selection(rec, r.replace);
    }
    return out;
}

}  // namespace carbon::runs
