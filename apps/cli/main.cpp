// lookback: GPU data-parallel primitives on .npy and raw files, checked against CUB.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/failure.hpp"

#include <cstring>
#include <iostream>

#ifndef LOOKBACK_VERSION
#define LOOKBACK_VERSION "unknown"
#endif

namespace {
using namespace lookback::cli;

void print_usage(std::ostream& out) {
  out << "usage: lookback <command> [options]   (lookback <command> --help for its options)\n\ncommands:\n";
  for (const command& c : commands) out << "  " << c.name << std::string(10 - std::strlen(c.name), ' ') << c.summary << "\n";
}

int report(const std::string& where, const std::string& message, int code) {
  std::cerr << where << ": " << message << "\n";
  return code;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage(std::cerr);
    return exit_code::usage;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage(std::cout);
    return exit_code::ok;
  }
  if (name == "--version") {
    std::cout << "lookback " << LOOKBACK_VERSION << "\n";
    return exit_code::ok;
  }
  const std::string where = "lookback " + name;
  for (const command& c : commands) {
    if (name != c.name) continue;
    try {
      const int code = c.run(args(argv + 2, argv + argc));
      // A result printed into a full disk or a closed pipe is a lost result.
      if (!std::cout.flush()) return report(where, "writing the result to standard output failed", exit_code::io_error);
      return code;
    } catch (...) {
      const failure f = classify(std::current_exception());
      return report(where, f.message, f.exit_code);
    }
  }
  return report("lookback", "unknown command '" + name + "' (see lookback --help)", exit_code::usage);
}
