// What a directed-evolution run was asked and what predicted it, beside its EvolutionResult: what
// the writer stores (run_writers.h: write_evolution). Engine only, so carbon-cli builds it without
// storage.
#pragma once

#include <string>
#include <vector>

namespace carbon::runs {

struct EvolutionRecord {
    std::string predictor;              // as the run names it (a file, a stored predictor, a checkpoint)
    std::vector<std::string> outputs;   // the predictor's outputs, in EvolutionRound::values order
    std::vector<std::string> held_out;  // per output: its held-out accuracy ("" when not known)
    std::string objective, objective_described;
    size_t budget = 0;
    std::string plausibility_model;  // the language model of the plausibility term ("" without it)
};

}  // namespace carbon::runs
