// Results that cannot be stored in their project are kept, never dropped: written whole into a
// recovery project beside it (or, when that folder cannot take it either, in the temporary
// folder), from which merge_project() stores them later (`carbon-cli project import P --recover R`).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "carbon/storage/project.h"

namespace carbon::storage {

// Writes a result into a project; store_or_keep runs it inside one transaction.
using ProjectWriter = std::function<void(Project&)>;

struct StoreOutcome {
    bool stored = false;     // everything is in the project
    std::string error;       // why it is not (then nothing of it is)
    std::string kept_in;     // the recovery project that holds all of it instead
    std::string keep_error;  // why keeping it failed too (kept_in empty)
};

// Runs `write` in one transaction on the project at `path` (opened with `options`; created when
// missing). When that fails (the project locked past the wait, a full disk, a read-only file, a
// file that is not a project), nothing of it is in the project, a project this call created is
// removed again, and `write` runs on a new recovery project instead; the outcome says which.
StoreOutcome store_or_keep(const std::string& path, const OpenOptions& options, const ProjectWriter& write);
// The same for a project that is already open (the desktop application's connection).
StoreOutcome store_or_keep(Project& project, const ProjectWriter& write);

// "<folder>/<name>.recovered-<UTC date and time>-<process id>.carbon" for a project
// "<folder>/<name>.carbon"; the folder is the temporary one when `in_temp_folder`.
std::string recovery_path_for(const std::string& project_path, bool in_temp_folder);

struct MergeResult {
    std::vector<int64_t> run_ids;  // the runs as numbered in the target
    size_t sequences_added = 0, sequences_reused = 0, designs = 0, tracks = 0, regions = 0, variants = 0, vep_rows = 0, predictors = 0;
};
// Copies everything `from` holds into `into`, in one transaction: sequences (one with the same
// name and bases already in `into` is reused, with its regions as they are), their regions and
// tracks and features, runs with their settings, designs with their tracks, regions and flags, variants, vep rows,
// predictors (one whose name `into` has already gets " (recovered)", then a number); ids are renumbered. All or
// nothing.
MergeResult merge_project(Project& into, Project& from);

}  // namespace carbon::storage
