// What activity predictors say of a design (the design_predictions table; DesignPrediction in
// project.h): written with the design by add_design, read back by predictions_of_design.
#include <sqlite3.h>

#include <set>
#include <utility>

#include "carbon/storage/project.h"
#include "sqlite_stmt.h"

namespace carbon::storage {

using detail::Stmt;

void Project::insert_predictions(int64_t design_id, const std::string& design_name, const std::vector<DesignPrediction>& predictions) {
    std::set<std::pair<std::string, std::string>> seen;
    Stmt st(db_, "INSERT INTO design_predictions(design_id, predictor, output, value, held_out) VALUES(?,?,?,?,?)");
    for (const DesignPrediction& p : predictions) {
        if (p.output.empty()) throw Error(path_ + ": design '" + design_name + "': a prediction without an output name");
        if (!seen.emplace(p.predictor, p.output).second)
            throw Error(path_ + ": design '" + design_name + "': output '" + p.output + "' of predictor '" + p.predictor + "' given twice");
        st.bind(1, design_id).bind(2, p.predictor).bind(3, p.output).bind(4, p.value).bind(5, p.held_out).run();  // NaN binds NULL
    }
}

std::vector<DesignPrediction> Project::predictions_of_design(int64_t design_id) {
    // WITHOUT ROWID keeps rows in key order; the insertion order is not kept, so the outputs come
    // back by predictor, then output name.
    Stmt s(db_, "SELECT predictor, output, value, held_out FROM design_predictions WHERE design_id = ? ORDER BY predictor, output");
    s.bind(1, design_id);
    std::vector<DesignPrediction> out;
    while (s.step()) out.push_back({s.text(0), s.text(1), s.real(2), s.text(3)});
    return out;
}

std::vector<std::pair<int64_t, DesignPrediction>> Project::list_design_predictions() {
    Stmt s(db_, "SELECT design_id, predictor, output, value, held_out FROM design_predictions ORDER BY design_id, predictor, output");
    std::vector<std::pair<int64_t, DesignPrediction>> out;
    while (s.step()) out.push_back({s.i64(0), {s.text(1), s.text(2), s.real(3), s.text(4)}});
    return out;
}

void Project::set_design_predictions(const std::vector<std::pair<int64_t, DesignPrediction>>& predictions) {
    Transaction t(*this);
    Stmt exists(db_, "SELECT 1 FROM designs WHERE id = ?");
    Stmt st(db_, "INSERT OR REPLACE INTO design_predictions(design_id, predictor, output, value, held_out) VALUES(?,?,?,?,?)");
    for (const auto& [id, p] : predictions) {
        exists.bind(1, id);
        const bool found = exists.step();
        exists.reset();
        if (!found) throw Error(path_ + ": no design with id " + std::to_string(id) + " to store a prediction for");
        if (p.output.empty()) throw Error(path_ + ": design " + std::to_string(id) + ": a prediction without an output name");
        st.bind(1, id).bind(2, p.predictor).bind(3, p.output).bind(4, p.value).bind(5, p.held_out).run();
    }
    t.commit();
}

}  // namespace carbon::storage
