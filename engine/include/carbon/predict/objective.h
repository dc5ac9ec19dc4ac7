// What a design optimiser maximises, from an activity predictor's outputs (the field's objectives:
// CODA / boda2's MinGap specificity, gReLU's weighted task combinations):
//  - one output's value:                      "K562"
//  - MinGap specificity: the target minus the highest of the others (or of the ones named):
//                                              "mingap:K562" or "mingap:K562-HepG2,SKNSH"
//  - a weighted sum:                          "sum:K562=1,HepG2=-0.5"
// Output names are the predictor's (Predictions::outputs); an unknown name is an Error listing
// the ones there are.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace carbon {

struct Objective {
    enum class Kind { Value, MinGap, Sum };
    Kind kind = Kind::Value;
    std::string spec;                 // as given
    size_t target = 0;                // Value, MinGap: the output index
    std::vector<size_t> others;       // MinGap: off-target outputs
    std::vector<std::pair<size_t, double>> terms;  // Sum: (output, weight)

    // Parses `spec` against `outputs`; Error naming `where`, the spec and the outputs.
    static Objective parse(std::string_view spec, const std::vector<std::string>& outputs, const std::string& where);
    // The objective of one sequence's outputs (in `outputs` order).
    double operator()(std::span<const double> values) const;
    // "K562 - max(HepG2, SKNSH)" for reports.
    std::string describe(const std::vector<std::string>& outputs) const;
};

}  // namespace carbon
