// What every fuzz target defines: the libFuzzer entry point (any input must be accepted or
// refused with carbon::Error, never crash, hang or trip a sanitizer) and its built-in seeds,
// which the bounded mutation driver (mutation_driver.cpp, used in CI) starts from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// Seeds the target makes itself (valid and nearly valid inputs); files in --corpus DIR are added.
std::vector<std::string> carbon_fuzz_seeds();
