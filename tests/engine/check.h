// A minimal test harness for the engine tests (plain C++, so they run where there is no
// GoogleTest or Qt). TEST(name) registers a case; CHECK* record failures with file and line;
// SKIP("why") marks a case skipped. main() prints one line per case and the closing line
// "N passed, N failed, N skipped" that CTest's log and CI read.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace check {

struct Case {
    const char* name;
    std::function<void()> fn;
};
inline std::vector<Case>& registry() {
    static std::vector<Case> cases;
    return cases;
}
struct Registrar {
    Registrar(const char* name, std::function<void()> fn) { registry().push_back({name, std::move(fn)}); }
};
struct State {
    int failures = 0;
    bool skipped = false;
    std::string skip_reason;
};
inline State& state() {
    static State s;
    return s;
}
struct Skip {};

inline void fail(const char* file, int line, const std::string& what) {
    ++state().failures;
    std::fprintf(stderr, "  FAIL %s:%d: %s\n", file, line, what.c_str());
}

template <class A, class B>
std::string describe(const char* ea, const char* eb, const A& a, const B& b) {
    std::ostringstream os;
    os << ea << " == " << eb << " (" << a << " vs " << b << ")";
    return os.str();
}

inline int run_all() {
    int passed = 0, failed = 0, skipped = 0;
    for (auto& c : registry()) {
        state() = State{};
        try {
            c.fn();
        } catch (const Skip&) {
        } catch (const std::exception& e) {
            fail(__FILE__, __LINE__, std::string("unexpected exception: ") + e.what());
        }
        if (state().skipped) {
            ++skipped;
            std::printf("SKIP %s: %s\n", c.name, state().skip_reason.c_str());
        } else if (state().failures) {
            ++failed;
            std::printf("FAIL %s\n", c.name);
        } else {
            ++passed;
            std::printf("ok   %s\n", c.name);
        }
        std::fflush(stdout);
    }
    std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}

}  // namespace check

#define CHECK_CAT2(a, b) a##b
#define CHECK_CAT(a, b) CHECK_CAT2(a, b)
#define TEST(name)                                                                             \
    static void name();                                                                        \
    static ::check::Registrar CHECK_CAT(check_reg_, name)(#name, name);                        \
    static void name()

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) ::check::fail(__FILE__, __LINE__, "CHECK(" #cond ")");      \
    } while (0)
#define CHECK_EQ(a, b)                                                                        \
    do {                                                                                      \
        const auto check_a_ = (a);                                                            \
        const auto check_b_ = (b);                                                            \
        if (!(check_a_ == check_b_))                                                          \
            ::check::fail(__FILE__, __LINE__, ::check::describe(#a, #b, check_a_, check_b_)); \
    } while (0)
#define CHECK_NEAR(a, b, tol)                                                                    \
    do {                                                                                         \
        double check_a_ = double(a), check_b_ = double(b);                                       \
        if (!(std::fabs(check_a_ - check_b_) <= double(tol))) {                                  \
            std::ostringstream check_os_;                                                        \
            check_os_ << #a " ~ " #b " within " << (tol) << " (" << check_a_ << " vs " << check_b_ << ")"; \
            ::check::fail(__FILE__, __LINE__, check_os_.str());                                  \
        }                                                                                        \
    } while (0)
// Runs `stmt`, which must throw an exception whose what() contains every one of the given
// substrings (the message must say what is wrong and where).
#define CHECK_THROWS_WITH(stmt, ...)                                                              \
    do {                                                                                          \
        bool check_threw_ = false;                                                                \
        try {                                                                                     \
            stmt;                                                                                 \
        } catch (const std::exception& check_e_) {                                                \
            check_threw_ = true;                                                                  \
            std::string check_msg_ = check_e_.what();                                             \
            for (const char* check_sub_ : {__VA_ARGS__})                                          \
                if (check_msg_.find(check_sub_) == std::string::npos)                             \
                    ::check::fail(__FILE__, __LINE__,                                             \
                                  "message '" + check_msg_ + "' lacks '" + check_sub_ + "'");     \
        }                                                                                         \
        if (!check_threw_) ::check::fail(__FILE__, __LINE__, "expected an exception from " #stmt); \
    } while (0)
#define SKIP(reason)                                  \
    do {                                              \
        ::check::state().skipped = true;              \
        ::check::state().skip_reason = (reason);      \
        throw ::check::Skip{};                        \
    } while (0)

#define CHECK_MAIN() \
    int main() { return ::check::run_all(); }
