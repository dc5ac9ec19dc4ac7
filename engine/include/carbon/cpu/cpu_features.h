// What the CPU backend can use on this machine (the public face of engine/src/cpu/cpu_isa.h): the
// vector-extension flags it looks for, and its instruction-set paths with whether each runs here.
#pragma once

#include <string>

namespace carbon {

// The relevant CPU flags this machine has, space-separated (recorded with benchmark figures).
std::string cpu_flags();

// One line per CPU kernel path: its name, whether this CPU runs it (else the flags it needs), and
// which one "auto" takes.
std::string cpu_kernel_paths();

}  // namespace carbon
