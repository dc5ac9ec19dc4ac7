// OutputFile: regular files replaced only when complete, devices and FIFOs written in place and
// never replaced (a device node the test makes itself with mknod), folders refused up front,
// failures leave neither debris nor a changed file.
#include "carbon/support/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "carbon/support/common.h"
#include "check.h"

namespace fs = std::filesystem;
using carbon::OutputFile;

namespace {

fs::path fresh_dir(const char* name) {
    const fs::path d = fs::temp_directory_path() / ("carbon-output-file-" + std::to_string(::getpid())) / name;
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

void spit(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

bool partial_left(const fs::path& dir) {
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".partial") return true;
    return false;
}

}  // namespace

TEST(new_regular_file_appears_only_on_commit) {
    const fs::path d = fresh_dir("new");
    {
        OutputFile out((d / "a.fa").string());
        CHECK(out.replaces_file());
        out.stream() << ">x\nACGT\n";
        CHECK(!fs::exists(d / "a.fa"));  // not under the user's name before commit
        out.commit();
    }
    CHECK_EQ(slurp(d / "a.fa"), std::string(">x\nACGT\n"));
    CHECK(!partial_left(d));
}

TEST(existing_file_kept_until_commit_and_kept_on_failure) {
    const fs::path d = fresh_dir("existing");
    spit(d / "a.tsv", "old\n");
    fs::permissions(d / "a.tsv", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    {
        OutputFile out((d / "a.tsv").string());
        out.stream() << "half of a new fi";
        // destroyed without commit (an error mid-way): the old file stays, no partial is left
    }
    CHECK_EQ(slurp(d / "a.tsv"), std::string("old\n"));
    CHECK(!partial_left(d));
    {
        OutputFile out((d / "a.tsv").string());
        out.stream() << "new\n";
        out.commit();
    }
    CHECK_EQ(slurp(d / "a.tsv"), std::string("new\n"));
    // the replaced file keeps its permissions
    CHECK(fs::status(d / "a.tsv").permissions() == (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
}

TEST(symbolic_link_is_followed_and_kept) {
    const fs::path d = fresh_dir("link");
    spit(d / "real.fa", "old\n");
    fs::create_symlink("real.fa", d / "link.fa");
    {
        OutputFile out((d / "link.fa").string());
        out.stream() << "new\n";
        out.commit();
    }
    CHECK(fs::is_symlink(d / "link.fa"));
    CHECK_EQ(slurp(d / "real.fa"), std::string("new\n"));
    fs::create_symlink("missing.fa", d / "dangling.fa");
    CHECK_THROWS_WITH(OutputFile((d / "dangling.fa").string()), "dangling.fa", "does not exist");
}

TEST(folder_and_missing_folder_refused_up_front) {
    const fs::path d = fresh_dir("folder");
    fs::create_directory(d / "sub");
    CHECK_THROWS_WITH(OutputFile((d / "sub").string()), "sub", "is a folder");
    CHECK_THROWS_WITH(OutputFile((d / "nope" / "a.fa").string()), "nope", "does not exist");
    CHECK_THROWS_WITH(OutputFile(""), "empty");
    CHECK(!partial_left(d));
    CHECK(!fs::exists(d / "sub.partial"));
}

TEST(fifo_written_in_place) {
    const fs::path d = fresh_dir("fifo");
    const fs::path f = d / "pipe";
    CHECK(::mkfifo(f.c_str(), 0600) == 0);
    std::string got;
    std::thread reader([&] { got = slurp(f); });
    {
        OutputFile out(f.string());
        CHECK(!out.replaces_file());
        out.stream() << "through the pipe\n";
        out.commit();
    }
    reader.join();
    CHECK_EQ(got, std::string("through the pipe\n"));
    struct stat st {};
    CHECK(::lstat(f.c_str(), &st) == 0 && S_ISFIFO(st.st_mode));
    CHECK(!partial_left(d));
}

TEST(device_node_written_in_place_and_still_a_device) {
    const fs::path d = fresh_dir("device");
    const fs::path null = d / "null", full = d / "full";
    if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0 || ::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0)
        SKIP("mknod of a character device is not permitted here (needs root or CAP_MKNOD): " + std::string(std::strerror(errno)));
    {
        OutputFile out(null.string());
        CHECK(!out.replaces_file());
        out.stream() << std::string(100000, 'A');
        out.commit();
    }
    struct stat st {};
    CHECK(::lstat(null.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3));
    // /dev/full: every write fails with ENOSPC; the message says so, the device stays
    {
        OutputFile out(full.string());
        out.stream() << std::string(1 << 20, 'A');
        CHECK_THROWS_WITH(out.commit(), "cannot write", "full", "No space left on device");
    }
    CHECK(::lstat(full.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 7));
    CHECK(!partial_left(d));
}

TEST(unwritable_folder_named) {
    if (::geteuid() == 0) SKIP("running as root: a read-only folder does not stop root from writing");
    const fs::path d = fresh_dir("readonly");
    fs::permissions(d, fs::perms::owner_read | fs::perms::owner_exec);
    CHECK_THROWS_WITH(OutputFile((d / "a.fa").string()), "cannot write", "a.fa", "Permission denied");
    fs::permissions(d, fs::perms::owner_all);
}

CHECK_MAIN()
