// Model folders found and described without loading them: tiny checkpoints and a fake Hugging
// Face hub cache (snapshots of symlinks into blobs/, refs/main); the estimate of the memory a
// folder needs equals what the loaded CPU backend reports; broken folders give the loader's
// message (file, key and tensor named), with the links of a damaged cache entry; draft compatibility.
#include <cstdlib>
#include <fstream>

#include "carbon/model.h"
#include "carbon/model_catalog.h"
#include "check.h"
#include "test_model_dir.h"

using namespace carbon;
namespace fs = std::filesystem;

namespace {

// A hub cache entry for `repo` ("ORG/NAME") whose snapshot `rev` links every file of `model`
// into blobs/, as huggingface_hub lays it out.
void add_snapshot(const fs::path& hub, const std::string& repo, const std::string& rev, const fs::path& model) {
    std::string dir = "models--" + repo;
    dir.replace(dir.find('/'), 1, "--");
    const fs::path root = hub / dir;
    fs::create_directories(root / "blobs");
    fs::create_directories(root / "snapshots" / rev);
    fs::create_directories(root / "refs");
    int n = 0;
    for (const auto& e : fs::directory_iterator(model)) {
        const fs::path blob = root / "blobs" / ("blob" + rev + std::to_string(n++));
        fs::copy_file(e.path(), blob, fs::copy_options::overwrite_existing);
        fs::create_symlink(fs::path("../../blobs") / blob.filename(), root / "snapshots" / rev / e.path().filename());
    }
}

}  // namespace

TEST(folder_is_described_and_memory_matches_loaded_backend) {
    const fs::path& dir = testing_support::tiny_model();
    const ModelFolderInfo info = inspect_model_folder(dir);
    CHECK(info.ok);
    CHECK_EQ(info.error, std::string());
    CHECK_EQ(info.parameters, info.config.parameter_count());
    CHECK(info.disk_bytes >= info.weight_bytes);
    ModelOptions mo;
    mo.backend = BackendKind::Cpu;
    mo.threads = 1;
    auto m = Model::load(dir, mo);
    const MemoryPlan plan = m->backend().memory_plan();
    CHECK_EQ(info.weight_bytes, uint64_t(plan.weights));
    CHECK_EQ(info.kv_bytes_per_token, uint64_t(plan.kv_per_token));
    CHECK_EQ(info.memory_needed(1000, 2), uint64_t(plan.weights) + 2000 * uint64_t(plan.kv_per_token));
    CHECK_EQ(info.dna_open, m->tokenizer().dna_open_id());
    CHECK_EQ(info.first_kmer, m->tokenizer().kmer_id(0));
    CHECK_EQ(info.last_kmer, m->tokenizer().kmer_id(kNumKmers - 1));
}

TEST(broken_folders_say_what_is_wrong) {
    testing_support::TempDir tmp("catalog");
    const fs::path& good = testing_support::tiny_model();
    CHECK(!inspect_model_folder(tmp.path / "missing").ok);
    CHECK(inspect_model_folder(tmp.path / "missing").error.find("not a folder") != std::string::npos);

    const fs::path no_tok = tmp.path / "no-tokenizer";
    fs::create_directories(no_tok);
    for (const auto& e : fs::directory_iterator(good))
        if (e.path().filename() == "config.json" || e.path().extension() == ".safetensors")
            fs::copy_file(e.path(), no_tok / e.path().filename());
    const ModelFolderInfo a = inspect_model_folder(no_tok);
    CHECK(!a.ok);
    CHECK(a.error.find(no_tok.string()) != std::string::npos);  // the folder, and the files it lacks
    CHECK(a.error.find("tokenizer.json") != std::string::npos);

    // A config.json with an ill-typed key: the file and the key are named.
    const fs::path bad_cfg = tmp.path / "bad-config";
    fs::create_directories(bad_cfg);
    for (const auto& e : fs::directory_iterator(good)) fs::copy_file(e.path(), bad_cfg / e.path().filename());
    {
        std::ifstream f(bad_cfg / "config.json");
        std::string text(std::istreambuf_iterator<char>(f), {});
        const auto k = text.find("\"hidden_size\": ");
        CHECK(k != std::string::npos);
        if (k != std::string::npos) text.insert(k + 15, "\"sixty-four\", \"was\": ");
        f.close();
        std::ofstream(bad_cfg / "config.json") << text;
    }
    const ModelFolderInfo c = inspect_model_folder(bad_cfg);
    CHECK(!c.ok);
    CHECK(c.error.find((bad_cfg / "config.json").string()) != std::string::npos);
    CHECK(c.error.find("'hidden_size'") != std::string::npos);

    // A checkpoint without one layer's tensor: the loader names the tensor.
    TestModelOptions o;
    o.layers = 2;
    const fs::path two = tmp.path / "two-layers";
    make_test_model(two, o);
    std::string cfg;
    {
        std::ifstream f(two / "config.json");
        cfg.assign(std::istreambuf_iterator<char>(f), {});
    }
    const auto p = cfg.find("\"num_hidden_layers\": 2");
    CHECK(p != std::string::npos);
    if (p != std::string::npos) cfg.replace(p, 22, "\"num_hidden_layers\": 3");
    std::ofstream(two / "config.json") << cfg;
    const ModelFolderInfo b = inspect_model_folder(two);
    CHECK(!b.ok);
    CHECK(b.error.find("num_hidden_layers=3") != std::string::npos && b.error.find("hold 2 layer(s)") != std::string::npos);
}

TEST(hub_cache_snapshots_are_found_offline) {
    testing_support::TempDir tmp("hub");
    const fs::path hub = tmp.path / "hub";
    CHECK(find_hf_snapshots(hub).empty());  // no cache yet: nothing, no error
    const fs::path& model = testing_support::tiny_model();
    add_snapshot(hub, "HuggingFaceBio/Carbon-500M", "aaa111", model);
    add_snapshot(hub, "HuggingFaceBio/Carbon-500M", "bbb222", model);
    std::ofstream(hub / "models--HuggingFaceBio--Carbon-500M" / "refs" / "main") << "bbb222";
    fs::create_directories(hub / "datasets--someone--data" / "snapshots" / "x");  // not a model
    const auto found = find_hf_snapshots(hub);
    CHECK_EQ(found.size(), size_t(2));
    if (found.size() == 2) {
        CHECK_EQ(found[0].name, std::string("HuggingFaceBio/Carbon-500M"));
        CHECK_EQ(found[0].revision, std::string("bbb222"));  // refs/main first
        CHECK(found[0].current);
        CHECK(!found[1].current);
        CHECK(found[0].ok);
        CHECK(found[0].disk_bytes >= found[0].weight_bytes);  // sizes through the symlinks
    }
    // Found by name only (what the GUI does before inspecting each folder on its own cache).
    const auto named = find_hf_snapshots(hub, false);
    CHECK_EQ(named.size(), size_t(2));
    if (named.size() == 2) {
        CHECK_EQ(named[0].dir, hub / "models--HuggingFaceBio--Carbon-500M" / "snapshots" / "bbb222");
        CHECK_EQ(named[0].name, std::string("HuggingFaceBio/Carbon-500M"));
        CHECK(named[0].current);
        CHECK(!named[0].ok);
        CHECK_EQ(named[0].error, std::string());
        CHECK_EQ(named[0].disk_bytes, uint64_t(0));  // not inspected
    }
    // The cache location follows the Hugging Face variables, in their order of precedence.
    setenv("HF_HOME", "/srv/hf", 1);
    setenv("HF_HUB_CACHE", (tmp.path / "hub").c_str(), 1);
    CHECK_EQ(default_hf_hub_dir(), tmp.path / "hub");
    unsetenv("HF_HUB_CACHE");
    CHECK_EQ(default_hf_hub_dir(), fs::path("/srv/hf/hub"));
    unsetenv("HF_HOME");
    setenv("XDG_CACHE_HOME", "/srv/cache", 1);
    CHECK_EQ(default_hf_hub_dir(), fs::path("/srv/cache/huggingface/hub"));
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/bio", 1);
    CHECK_EQ(default_hf_hub_dir(), fs::path("/home/bio/.cache/huggingface/hub"));
}

TEST(damaged_cache_entries_are_listed_with_the_reason) {
    // Blobs deleted under a snapshot (a half-removed cache entry): the snapshot is still listed,
    // and the message names the links that lead nowhere.
    testing_support::TempDir tmp("hub-damaged");
    const fs::path hub = tmp.path / "hub";
    const fs::path& model = testing_support::tiny_model();
    add_snapshot(hub, "HuggingFaceBio/Carbon-3B", "weights0", model);
    add_snapshot(hub, "HuggingFaceBio/Carbon-8B", "config00", model);
    const fs::path r3 = hub / "models--HuggingFaceBio--Carbon-3B", r8 = hub / "models--HuggingFaceBio--Carbon-8B";
    fs::remove(r3 / "snapshots" / "weights0" / "model.safetensors");
    fs::create_symlink("../../blobs/deleted-blob", r3 / "snapshots" / "weights0" / "model.safetensors");
    fs::remove(fs::canonical(r8 / "snapshots" / "config00" / "config.json"));
    const auto found = find_hf_snapshots(hub);
    CHECK_EQ(found.size(), size_t(2));
    if (found.size() == 2) {
        CHECK_EQ(found[0].name, std::string("HuggingFaceBio/Carbon-3B"));
        CHECK(!found[0].ok);
        CHECK(found[0].error.find("model.safetensors is a link to a file that no longer exists") != std::string::npos);
        CHECK_EQ(found[1].name, std::string("HuggingFaceBio/Carbon-8B"));
        CHECK(!found[1].ok);
        CHECK(found[1].error.find("config.json") != std::string::npos);
        CHECK(found[1].error.find("config.json is a link to a file that no longer exists") != std::string::npos);
    }
}

TEST(draft_compatibility) {
    ModelOptions mo;
    mo.backend = BackendKind::Cpu;
    mo.threads = 1;
    auto target = Model::load(testing_support::tiny_model(), mo);
    TestModelOptions o;
    o.seed = 5;
    o.layers = 1;
    auto same_ids = Model::load(testing_support::tiny_model(o, "draft-same-ids"), mo);
    check_draft_compatible(target->tokenizer(), same_ids->tokenizer());  // no throw
    TestModelOptions c;
    c.compact_vocab = true;
    auto other = Model::load(testing_support::tiny_model(c, "draft-compact"), mo);
    CHECK_THROWS_WITH(check_draft_compatible(target->tokenizer(), other->tokenizer()), "does not use the target's DNA token ids");
}

CHECK_MAIN()
