// Where per-user files go: the XDG cache folder ($XDG_CACHE_HOME, else ~/.cache), shared by the
// GPU self-check's verdicts, the Hugging Face hub's default location and built reference indexes.
#pragma once

#include <filesystem>

namespace carbon {

// $XDG_CACHE_HOME when set and not empty, else $HOME/.cache; empty when neither is set.
std::filesystem::path user_cache_dir();

}  // namespace carbon
