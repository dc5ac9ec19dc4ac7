// main() of the host layer's tests (test_host_*.cpp): names the executor of this build first, so
// that the log says which build ran (and a skipped first case cannot mark the whole run skipped).
#include <cstdio>

#include "check.h"
#include "cuda_portable.cuh"

int main() {
    std::printf("host layer executor: %s\n", carbon::host::executor());
    return check::run_all();
}
