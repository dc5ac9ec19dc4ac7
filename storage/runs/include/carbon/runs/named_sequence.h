// A sequence a run reads or stores, by the name it was given (a FASTA record's name and
// description, or "context" for a generation's left context). Engine-free.
#pragma once

#include <string>

namespace carbon::runs {

struct NamedSequence {
    std::string name, description, bases;
};

}  // namespace carbon::runs
