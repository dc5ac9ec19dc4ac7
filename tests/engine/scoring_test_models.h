// The two tiny models the scoring tests (test_scoring, test_allele_scoring) run on, loaded once
// per test program on the CPU backend with 2 threads.
#pragma once

#include <memory>
#include <string>

#include "carbon/model.h"
#include "test_model_dir.h"

namespace testing_support {

inline std::unique_ptr<carbon::Model> load_cpu_model(const carbon::TestModelOptions& o, const std::string& tag) {
    carbon::ModelOptions mo;
    mo.backend = carbon::BackendKind::Cpu;
    mo.threads = 2;
    return carbon::Model::load(tiny_model(o, tag), mo);
}

// The default tiny model (full 155,776 vocabulary, 2,048 positions).
inline carbon::Model& tiny() {
    static std::unique_ptr<carbon::Model> m = load_cpu_model({}, "tiny");
    return *m;
}

// A tiny model with a 64-token context (compact vocabulary, so full-head brute force is cheap):
// sequences of a few hundred bases need sliding windows.
inline carbon::Model& short_context() {
    static std::unique_ptr<carbon::Model> m = [] {
        carbon::TestModelOptions o;
        o.max_position = 64;
        o.compact_vocab = true;
        o.seed = 5;
        return load_cpu_model(o, "ctx64");
    }();
    return *m;
}

}  // namespace testing_support
