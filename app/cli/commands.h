// carbon-cli subcommands; each returns the process exit status and throws carbon::Error on bad
// input (main prints it to stderr and exits 1).
#pragma once

#include <string>
#include <vector>

#include "carbon/support/host_memory.h"

namespace carbon::cli {

int cmd_bench(const std::vector<std::string>& args);
int cmd_generate(const std::vector<std::string>& args);
int cmd_score(const std::vector<std::string>& args);
int cmd_variant(const std::vector<std::string>& args);
int cmd_ism(const std::vector<std::string>& args);
int cmd_predict(const std::vector<std::string>& args);  // cli_predict.cpp
int cmd_predictor(const std::vector<std::string>& args);  // cli_predictor.cpp (needs storage/ and LAPACK)
int cmd_evolve(const std::vector<std::string>& args);     // cli_evolve.cpp
int cmd_models(const std::vector<std::string>& args);
int cmd_motifs(const std::vector<std::string>& args);
int cmd_select(const std::vector<std::string>& args);  // cli_select.cpp
int cmd_check(const std::vector<std::string>& args);   // cli_check.cpp
int cmd_vep(const std::vector<std::string>& args);  // cli_vep.cpp (needs storage/)
// Peak resident set size of this process in bytes (VmHWM), 0 when unknown.
size_t peak_rss_bytes();
using carbon::human_bytes;  // carbon/support/host_memory.h

}  // namespace carbon::cli
