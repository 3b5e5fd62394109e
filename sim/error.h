// Errors the user can fix: bad input files, bad configuration, bad command lines.
//
// The message is one line that says where ("trace.csv:12: gpu_num: ...") and what is wrong; the
// command line prints it and exits non-zero. Bugs in acmesim itself (a policy that over-allocates,
// a broken invariant) are std::logic_error instead.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace acme {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "file:line: field: message"; the line is left out when 0, the field when empty.
[[noreturn]] void throw_input_error(std::string_view file, std::size_t line, std::string_view field,
                                    std::string_view message);

}  // namespace acme
