// Model folders without loading them; see model_catalog.h.
#include "carbon/model_catalog.h"

#include "carbon/support/input_file.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <system_error>

#include "carbon/loader/checkpoint.h"
#include "carbon/model.h"
#include "carbon/support/user_dirs.h"
#include "carbon/tokenizer/tokenizer.h"

namespace carbon {

namespace fs = std::filesystem;

uint64_t cpu_kv_bytes_per_token(const ModelConfig& c) {
    return uint64_t(c.num_hidden_layers) * 2 * uint64_t(c.num_key_value_heads) * uint64_t(c.head_dim) * sizeof(float);
}

namespace {

uint64_t folder_bytes(const fs::path& dir) {
    uint64_t total = 0;
    std::error_code ec;
    if (fs::is_regular_file(dir, ec)) return fs::file_size(dir, ec);  // a GGUF file
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        std::error_code ec2;
        if (fs::is_regular_file(e.path(), ec2)) total += fs::file_size(e.path(), ec2);  // follows symlinks
    }
    return total;
}

// The folder's entries that are symbolic links to files that no longer exist: in a Hugging Face
// cache, snapshot files whose blobs were deleted (a half-removed or damaged cache entry).
std::vector<std::string> dangling_links(const fs::path& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        std::error_code ec2;
        if (fs::is_symlink(e.symlink_status(ec2)) && !fs::exists(e.path(), ec2))
            names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

// The first line of a small text file (a hub cache's refs/main); empty when it cannot be read
// (a FIFO or a huge file there is not waited on or loaded).
std::string read_first_line(const fs::path& p) {
    std::string s;
    try {
        s = read_regular_file(p, "a refs file", 4096);
    } catch (const Error&) {
        return {};
    }
    s = s.substr(0, s.find('\n'));
    while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

}  // namespace

ModelFolderInfo inspect_model_folder(const fs::path& dir) {
    ModelFolderInfo info;
    info.dir = dir;
    info.name = dir.filename().string();
    if (info.name.empty()) info.name = dir.parent_path().filename().string();
    try {
        std::error_code ec;
        if (!fs::is_directory(dir, ec) && !(fs::is_regular_file(dir, ec) && dir.extension() == ".gguf"))
            throw Error(dir.string() + ": not a folder (or a .gguf file)");
        // Opening maps the files and checks every tensor's presence, shape and dtype; it reads
        // headers only, so this is quick whatever the model's size.
        const Checkpoint ck = Checkpoint::open(dir);
        const Tokenizer tok = open_tokenizer(ck);
        info.config = ck.config();
        info.parameters = ck.config().parameter_count();
        info.weights_dtype = ck.weights().dtype;
        info.weight_bytes = ck.archive().total_bytes();
        info.disk_bytes = folder_bytes(dir);
        info.kv_bytes_per_token = cpu_kv_bytes_per_token(ck.config());
        info.dna_open = tok.dna_open_id();
        info.dna_close = tok.dna_close_id();
        info.oov = tok.oov_id();
        info.first_kmer = tok.kmer_id(0);
        info.last_kmer = tok.kmer_id(kNumKmers - 1);
        info.kmer_ids_from = tok.info().kmer_ids_from;
        info.ok = true;
    } catch (const std::exception& e) {
        info.error = e.what();
        // The loader names the file it could not read; say why that file is missing.
        if (const auto broken = dangling_links(dir); !broken.empty()) {
            std::string list;
            for (const std::string& n : broken) list += (list.empty() ? "" : ", ") + n;
            info.error +=
                " (" + list + (broken.size() == 1 ? " is a link" : " are links") +
                " to a file that no longer exists: the Hugging Face cache entry is damaged; download the model again)";
        }
    }
    return info;
}

fs::path default_hf_hub_dir() {
    auto env = [](const char* name) -> std::string {
        const char* v = std::getenv(name);
        return v && *v ? v : "";
    };
    if (auto v = env("HF_HUB_CACHE"); !v.empty()) return v;
    if (auto v = env("HF_HOME"); !v.empty()) return fs::path(v) / "hub";
    if (const fs::path cache = user_cache_dir(); !cache.empty()) return cache / "huggingface" / "hub";
    return {};
}

std::vector<ModelFolderInfo> find_hf_snapshots(const fs::path& hub, bool inspect) {
    std::vector<ModelFolderInfo> out;
    std::error_code ec;
    if (hub.empty() || !fs::is_directory(hub, ec)) return out;
    std::vector<fs::path> repos;
    for (const auto& e : fs::directory_iterator(hub, ec))
        if (e.is_directory() && e.path().filename().string().rfind("models--", 0) == 0) repos.push_back(e.path());
    std::sort(repos.begin(), repos.end());
    for (const fs::path& repo : repos) {
        // models--ORG--NAME -> ORG/NAME (names may themselves contain single dashes).
        std::string id = repo.filename().string().substr(8);
        if (auto p = id.find("--"); p != std::string::npos) id.replace(p, 2, "/");
        const std::string main_rev = read_first_line(repo / "refs" / "main");
        std::vector<fs::path> snaps;
        for (const auto& s : fs::directory_iterator(repo / "snapshots", ec))
            // A model snapshot has a config.json, if only as a link to a blob since deleted (then
            // listed with the reason it does not load).
            if (std::error_code ec2; s.is_directory() && fs::symlink_status(s.path() / "config.json", ec2).type() !=
                                                             fs::file_type::not_found)
                snaps.push_back(s.path());
        std::sort(snaps.begin(), snaps.end(), [&](const fs::path& a, const fs::path& b) {
            const bool ma = a.filename() == main_rev, mb = b.filename() == main_rev;
            return ma != mb ? ma : a < b;
        });
        for (const fs::path& s : snaps) {
            ModelFolderInfo info;
            if (inspect) info = inspect_model_folder(s);
            info.dir = s;
            info.name = id;
            info.revision = s.filename().string();
            info.current = info.revision == main_rev;
            out.push_back(std::move(info));
        }
    }
    return out;
}

void check_draft_compatible(const Tokenizer& target, const Tokenizer& draft) {
    if (draft.kmer_ids() != target.kmer_ids() || draft.dna_open_id() != target.dna_open_id() ||
        draft.dna_close_id() != target.dna_close_id() || draft.oov_id() != target.oov_id())
        throw Error("the draft model's tokenizer does not use the target's DNA token ids (<dna> " +
                    std::to_string(draft.dna_open_id()) + " vs " + std::to_string(target.dna_open_id()) + ", first 6-mer " +
                    std::to_string(draft.kmer_id(0)) + " vs " + std::to_string(target.kmer_id(0)) +
                    "): it cannot draft for this target");
}

}  // namespace carbon
