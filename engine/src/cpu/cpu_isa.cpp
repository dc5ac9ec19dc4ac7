// Run-time detection of the CPU backend's instruction-set paths: CPUID for what the CPU has, XCR0
// for what the operating system saves on a context switch (AVX-512's and AMX's register state),
// and, for AMX, the Linux permission request without which the first tile instruction is SIGILL.
#include "cpu_isa.h"

#include "carbon/cpu/cpu_features.h"

#include <cstdlib>
#include <string_view>

#if defined(__x86_64__)
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#define CARBON_X86 1
#endif

namespace carbon::cpu {

namespace {

struct Features {
    bool avx2 = false, fma = false, f16c = false;
    bool avx512f = false, avx512bw = false, avx512vl = false, avx512bf16 = false, avx512vnni = false;
    bool amx_tile = false, amx_bf16 = false, amx_int8 = false;
    bool os_avx = false, os_avx512 = false, os_amx = false;
    bool amx_granted = false;
};

#if CARBON_X86
unsigned long long xgetbv0() {
    unsigned eax = 0, edx = 0;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return (static_cast<unsigned long long>(edx) << 32) | eax;
}

// Linux keeps AMX's 8 KB tile state off until a process asks (arch_prctl ARCH_REQ_XCOMP_PERM for
// XFEATURE_XTILEDATA); the grant is per process and lasts its lifetime.
bool request_amx_permission() {
#if defined(__linux__)
    constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
    return false;
#endif
}
#endif

Features detect() {
    Features f;
#if CARBON_X86
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
    const bool osxsave = c & (1u << 27);
    f.fma = c & (1u << 12);
    f.f16c = c & (1u << 29);
    if (osxsave) {
        const unsigned long long xcr0 = xgetbv0();
        f.os_avx = (xcr0 & 0x6) == 0x6;                  // SSE and AVX state
        f.os_avx512 = f.os_avx && (xcr0 & 0xe0) == 0xe0;  // opmask, ZMM_Hi256, Hi16_ZMM
        f.os_amx = (xcr0 & 0x60000) == 0x60000;          // XTILECFG, XTILEDATA
    }
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        f.avx2 = b & (1u << 5);
        f.avx512f = b & (1u << 16);
        f.avx512bw = b & (1u << 30);
        f.avx512vl = b & (1u << 31);
        f.avx512vnni = c & (1u << 11);
        f.amx_bf16 = d & (1u << 22);
        f.amx_tile = d & (1u << 24);
        f.amx_int8 = d & (1u << 25);
    }
    if (__get_cpuid_count(7, 1, &a, &b, &c, &d)) f.avx512bf16 = a & (1u << 5);
    if (f.amx_tile && (f.amx_bf16 || f.amx_int8) && f.os_amx) f.amx_granted = request_amx_permission();
#endif
    return f;
}

const Features& features() {
    static const Features f = detect();
    return f;
}

}  // namespace

const char* isa_name(Isa isa) {
    switch (isa) {
        case Isa::Portable: return "portable";
        case Isa::Avx2: return "avx2";
        case Isa::Avx512: return "avx512";
        case Isa::Avx512Bf16: return "avx512-bf16";
        case Isa::Amx: return "amx";
    }
    return "?";
}

const char* isa_required_flags(Isa isa) {
    switch (isa) {
        case Isa::Portable: return "none";
        case Isa::Avx2: return "avx2 fma f16c";
        case Isa::Avx512: return "avx512f avx512bw avx512vl (and AVX-512 state enabled by the OS)";
        case Isa::Avx512Bf16: return "avx512f avx512bw avx512vl avx512_bf16";
        case Isa::Amx: return "amx_tile amx_bf16 avx512f avx512bw avx512vl avx512_bf16 (and the OS granting tile state)";
    }
    return "?";
}

bool isa_supported(Isa isa) {
    const Features& f = features();
    const bool avx2 = f.os_avx && f.avx2 && f.fma && f.f16c;
    const bool avx512 = avx2 && f.os_avx512 && f.avx512f && f.avx512bw && f.avx512vl;
    switch (isa) {
        case Isa::Portable: return true;
        case Isa::Avx2: return avx2;
        case Isa::Avx512: return avx512;
        case Isa::Avx512Bf16: return avx512 && f.avx512bf16;
        case Isa::Amx: return avx512 && f.avx512bf16 && f.amx_granted;
    }
    return false;
}

bool cpu_has_avx512_vnni() { return isa_supported(Isa::Avx512) && features().avx512vnni; }

bool cpu_has_amx_int8() { return isa_supported(Isa::Avx512) && features().amx_int8 && features().amx_granted; }

std::vector<Isa> all_isas() { return {Isa::Portable, Isa::Avx2, Isa::Avx512, Isa::Avx512Bf16, Isa::Amx}; }

Isa best_isa() {
    for (Isa i : {Isa::Amx, Isa::Avx512Bf16})
        if (isa_supported(i)) return i;
    return best_fp32_isa();
}

// avx512 (fp32) decodes faster than avx2 but prefills slower (measured on a Xeon with AMX, 2
// threads: 27.6 vs 24.1 tok/s decode, 150-190 vs 217 tok/s prefill; docs/benchmarks.md), and
// scoring is prefill: avx2 stays the fp32 choice; avx512 is there to be asked for.
Isa best_fp32_isa() { return isa_supported(Isa::Avx2) ? Isa::Avx2 : Isa::Portable; }

Isa choose_isa(const std::string& request) {
    std::string want = request, source;
    if (want.empty() || want == "auto") {
        const char* env = std::getenv("CARBON_CPU_KERNELS");
        want = env && *env ? env : "auto";
        if (want == "auto") return best_isa();
        source = "CARBON_CPU_KERNELS=" + want + " (from the environment): ";
    }
    if (want == "fp32") return best_fp32_isa();
    std::string names = "fp32";
    for (Isa i : all_isas()) {
        names += std::string(", ") + isa_name(i);
        if (want != isa_name(i)) continue;
        if (!isa_supported(i))
            throw Error(source + "CPU kernels '" + isa_name(i) + "' cannot run on this CPU: they need " +
                        isa_required_flags(i) + "; this CPU has: " + cpu_flags_summary());
        return i;
    }
    throw Error(source + "unknown CPU kernels '" + want + "' (expected auto, " + names + ")");
}

Isa isa_for_dtype(Isa isa, DType weights) {
    if (weights == DType::BF16 || !isa_rounds_activations(isa)) return isa;
    return best_fp32_isa();
}

std::string cpu_flags_summary() {
    const Features& f = features();
    std::string s;
    auto add = [&](bool on, std::string_view name) {
        if (on) s += std::string(s.empty() ? "" : " ") + std::string(name);
    };
    add(f.avx2, "avx2");
    add(f.fma, "fma");
    add(f.f16c, "f16c");
    add(f.avx512f, "avx512f");
    add(f.avx512bw, "avx512bw");
    add(f.avx512vl, "avx512vl");
    add(f.avx512vnni, "avx512_vnni");
    add(f.avx512bf16, "avx512_bf16");
    add(f.amx_tile, "amx_tile");
    add(f.amx_bf16, "amx_bf16");
    add(f.amx_int8, "amx_int8");
    if (f.amx_tile && !f.amx_granted) s += " (tile state not granted by the OS)";
    return s.empty() ? "no vector extensions the engine uses" : s;
}

}  // namespace carbon::cpu

namespace carbon {

std::string cpu_flags() { return cpu::cpu_flags_summary(); }

std::string cpu_kernel_paths() {
    std::string s;
    for (cpu::Isa isa : cpu::all_isas()) {
        const std::string name = cpu::isa_name(isa);
        s += "  " + name + std::string(name.size() < 13 ? 13 - name.size() : 1, ' ');
        if (!cpu::isa_supported(isa)) s += std::string("not on this CPU (needs ") + cpu::isa_required_flags(isa) + ")";
        else s += isa == cpu::best_isa() ? "runs here; auto" : isa == cpu::best_fp32_isa() ? "runs here; fp32" : "runs here";
        s += "\n";
    }
    return s;
}

}  // namespace carbon
