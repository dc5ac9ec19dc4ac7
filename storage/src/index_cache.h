// Where indexes of the user's files are built when the file's own cannot be trusted (a FASTA's
// .fai/.gzi, a VCF's .tbi/.csi): a folder per file as it is now, under a cache folder, never
// beside the user's file. Private to storage/.
#pragma once

#include <filesystem>
#include <string>

namespace carbon::storage {

// True when `index` is a regular file written no earlier than `data` was last changed.
bool index_is_current(const std::filesystem::path& index, const std::filesystem::path& data);

// user_cache_dir()/carbon-studio/KIND, else the temporary folder's.
std::string default_index_cache(const char* kind);

// INDEX_DIR/KEY, KEY naming `data` as it is now (its canonical path, size and time of change), so
// that an edited file gets a new folder.
std::filesystem::path index_folder(const std::string& index_dir, const std::string& data);

// `index`.partial.PID: where an index is written before it is renamed into place, so that a
// concurrent reader never sees half of one.
std::string partial_name(const std::filesystem::path& index);

}  // namespace carbon::storage
