// Reading a model folder's small files (config.json, tokenizer files, the safetensors index,
// a Hugging Face cache's refs/main) safely: only regular files are read (a named pipe in place of
// config.json would block forever, a device would never end), never more than a stated size
// (a 40 GB file named config.json is not one), and every failure names the file and the reason.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace carbon {

// The whole file as bytes. `what` names the file's role for messages ("config.json",
// "tokenizer file"); max_bytes is the largest such file that can be genuine. Throws
// carbon::Error: "PATH: cannot open config.json: No such file or directory", "PATH: is a folder,
// not a regular file", "PATH: is a named pipe, not a regular file", "PATH: 5.1 GB is too large
// for a tokenizer file (at most 512.00 MiB)", "PATH: cannot read: ...".
std::string read_regular_file(const std::filesystem::path& path, std::string_view what, size_t max_bytes);

// Opens `path` for reading without blocking on a FIFO and returns the descriptor of a regular
// file (the caller closes it) with its size; throws as read_regular_file for anything else.
int open_regular_file(const std::filesystem::path& path, std::string_view what, size_t& size);

}  // namespace carbon
