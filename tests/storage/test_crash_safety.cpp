// Crash safety: a child process commits designs with their tracks in a loop and is killed with
// SIGKILL at random moments, 60 times; after each kill the file must open, pass
// PRAGMA integrity_check, hold every design the child reported committed, and hold no design
// without all of its tracks and regions (nothing half-written).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "carbon/storage/project.h"
#include "check.h"
#include "storage_test_util.h"

using namespace carbon::storage;

namespace {

constexpr size_t kLen = 1000;

// The child: continues numbering after what is already stored, writes each committed number to
// the pipe, never returns.
[[noreturn]] void writer_child(const std::string& path, int fd) {
    try {
        auto p = Project::open(path, {.check = IntegrityCheck::None});
        Run r;
        r.kind = "generate";
        r.settings = {{"length", std::to_string(kLen)}};
        const int64_t run_id = p->begin_run(r);
        int64_t n = p->count("designs");
        for (;; ++n) {
            DesignRecord d;
            d.run_id = run_id;
            d.name = "design_" + std::to_string(n);
            d.bases = storage_test::design_bases(n, kLen);
            d.rank = int(n);
            Region reg;
            reg.kind = RegionKind::Design;
            reg.end = int64_t(kLen);
            p->add_design(d, storage_test::design_tracks(n, kLen), {reg});
            const int64_t committed = n;
            if (::write(fd, &committed, sizeof committed) != sizeof committed) _exit(3);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "writer child: %s\n", e.what());
        _exit(2);
    }
}

}  // namespace

TEST(sigkilled_writer_never_leaves_a_half_written_design) {
    const std::string path = storage_test::temp_path("crash.carbon");
    { Project::open(path); }  // create it before the first child
    std::mt19937 rng(12345);
    int64_t max_reported = -1;
    int kills = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int round = 0; round < 60; ++round) {
        int fds[2];
        CHECK(::pipe(fds) == 0);
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::close(fds[0]);
            writer_child(path, fds[1]);
        }
        ::close(fds[1]);
        // Random moments: sometimes during open/migration, mostly amid commits.
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 60000));
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) ++kills;
        else std::fprintf(stderr, "  round %d: the writer exited by itself (status %d)\n", round, status);
        int64_t n = 0;
        while (::read(fds[0], &n, sizeof n) == sizeof n) max_reported = std::max(max_reported, n);
        ::close(fds[0]);

        auto p = Project::open(path, {.create = false, .check = IntegrityCheck::Full});
        CHECK(p->check_integrity(true).empty());
        const auto designs = p->list_designs();
        // Numbers are consecutive from 0, so every reported number must be below the count.
        CHECK(int64_t(designs.size()) > max_reported);
        CHECK_EQ(p->count("tracks"), int64_t(2 * designs.size()));
        CHECK_EQ(p->count("regions"), int64_t(designs.size()));
        // Check the newest few in full (the whole file each round would be slow).
        for (size_t i = designs.size() > 5 ? designs.size() - 5 : 0; i < designs.size(); ++i) {
            const int64_t num = std::stoll(designs[i].name.substr(7));
            const std::string why = storage_test::verify_design(*p, designs[i], num, kLen);
            if (!why.empty()) std::fprintf(stderr, "  round %d: %s: %s\n", round, designs[i].name.c_str(), why.c_str());
            CHECK(why.empty());
        }
    }
    auto p = Project::open(path, {.create = false, .check = IntegrityCheck::Full});
    size_t checked = 0;
    for (const DesignRecord& d : p->list_designs()) {
        CHECK_EQ(storage_test::verify_design(*p, d, std::stoll(d.name.substr(7)), kLen), std::string());
        ++checked;
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("  %d SIGKILLs, %zu designs committed and verified, %lld reported before the kills, %.1f s\n", kills, checked,
                static_cast<long long>(max_reported + 1), secs);
    CHECK(kills >= 50);
    CHECK(max_reported >= 50);
}

CHECK_MAIN()
