// carbon-cli's bridge to project files (storage/): `carbon-cli project ...` (cli_project.cpp)
// and the --project option of generate / score / variant / ism / vep (cli_project_store.cpp, over
// the runs' writers). Built without storage, every entry point throws a clear Error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "carbon/model.h"
#include "carbon/predict/evolution.h"
#include "carbon/predict/probe.h"
#include "carbon/runs/evolution_record.h"
#include "carbon/runs/generation_run.h"
#include "carbon/runs/named_sequence.h"
#include "carbon/runs/run_settings.h"
#include "carbon/scoring/scoring.h"
#include "carbon/scoring/variants.h"
#include "cli_args.h"

namespace carbon::cli {

using runs::NamedSequence;
using runs::RunSettings;

int cmd_project(const std::vector<std::string>& args);

// Where --project results go, and how long to wait for another program writing to the file.
struct ProjectTarget {
    std::string path;
    double wait_s = 300;
};
// The default of --project-wait and of `project import --wait`, in seconds.
constexpr double kDefaultProjectWait = 300;

// --project FILE [--project-wait SECONDS] of `a`, checked before any work is done, so that a
// wrong path is refused before minutes of computing: an existing file must be a Carbon Studio
// project this program may write (one of an earlier version is brought up to date now); a
// missing one needs a folder that exists and can be written (it is created only when the
// results are stored). nullopt without --project.
std::optional<ProjectTarget> project_target(const Args& a);

// Each stores one run and all its results in one transaction (the writers of carbon/runs/
// run_writers.h): everything or nothing. When the project cannot take them (locked longer than
// the wait, a full disk, a read-only file), they are kept whole in a recovery project beside it
// and the Error says where and how to store it (`project import P --recover R`); `elsewhere` adds
// where else the results are ("the designs are in OUT"). store_generation stores every setting
// of the run's request, its draft and figures itself, the left context as the sequence the
// designs were made in; `settings` adds the command line's own.
void store_generation(const ProjectTarget& project, const runs::GenerationRun& run, const RunSettings& settings,
                      const std::string& elsewhere);
void store_scores(const ProjectTarget& project, const Model& model, const std::vector<NamedSequence>& records,
                  const std::vector<SequenceScore>& scores, const RunSettings& settings, double bases_per_second);
void store_variant(const ProjectTarget& project, const Model& model, const NamedSequence& record, const VariantScore& score,
                   const RunSettings& settings);
// A complete vep result (the TSV at `tsv`) as one "vep" run with its rows and the model's
// identity. Kept in a recovery project when the project cannot take it, as the others.
void store_vep(const ProjectTarget& project, const Model& model, const std::string& tsv);
void store_ism(const ProjectTarget& project, const Model& model, const NamedSequence& record, const IsmResult& result,
               const RunSettings& settings, const std::string& elsewhere);
// A directed-evolution run (runs::write_evolution): the start, each round's design with its
// objective, outputs and edits.
void store_evolution(const ProjectTarget& project, const Model& model, const NamedSequence& start, const EvolutionResult& result,
                     const runs::EvolutionRecord& what, const RunSettings& settings, const std::string& elsewhere);
// A fitted predictor under `name` (refused when the project has one of that name), kept in a
// recovery project like a run when the project cannot take it.
void store_predictor(const ProjectTarget& project, const Probe& probe, const std::string& name, const std::string& elsewhere);
// The predictor named `name` in the project at `path` (opened read-only); Error listing the
// project's predictors when it has none of that name.
Probe project_predictor(const std::string& path, const std::string& name);
bool project_has_predictor(const std::string& path, const std::string& name);
// The construct named `name` in the project at `path`, as the settings a run made in it records
// (construct, construct_upstream, construct_downstream: storage's construct_settings); Error
// listing the project's constructs when it has none of that name.
RunSettings project_construct(const std::string& path, const std::string& name);

}  // namespace carbon::cli
