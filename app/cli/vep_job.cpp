// The parts of `carbon-cli vep` its forms share (see vep_job.h).
#ifdef CARBON_HAVE_STORAGE

#include "vep_job.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "carbon/support/common.h"
#include "cli_common.h"

namespace carbon::cli {

std::set<std::string> vep_value_options() {
    return {"model", "reference", "vcf", "window", "regions", "tags", "yarn", "backend", "threads", "chunk", "weights"};
}
std::set<std::string> vep_flag_options() { return {"rc", "no-prefix-sharing", "free-tags", "quiet"}; }

VepSettings vep_settings(const Args& a) {
    VepSettings s;
    s.model = a.required("model");
    s.reference = a.required("reference");
    s.vcf = a.required("vcf");
    s.yarn = a.get_or("yarn", "");
    s.weights = a.get_or("weights", "");
    s.options.scoring.tags = resolve_tags(a.get_or("tags", ""), a.flag("free-tags"));
    s.options.scoring.chunk_tokens = size_t(a.integer("chunk", 512, 1, 1 << 20));
    s.options.window_bp = size_t(a.integer("window", 8192, 1, 1ll << 30));
    s.options.reverse_complement = a.flag("rc");
    s.share_prefix = !a.flag("no-prefix-sharing");
    s.regions_text = a.get_or("regions", "");
    if (a.get("regions")) s.regions = storage::parse_vcf_regions(s.regions_text);
    return s;
}

void write_fully(int fd, const char* data, size_t n, const std::string& what) {
    size_t done = 0;
    while (done < n) {
        const ssize_t w = ::write(fd, data + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) throw Error("cannot write " + what + ": " + std::strerror(errno));
        done += size_t(w);
    }
}

FdCloser::~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
}

}  // namespace carbon::cli

#endif
