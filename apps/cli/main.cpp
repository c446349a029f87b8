// lookback: GPU data-parallel primitives on .npy and raw files, checked against CUB.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/failure.hpp"
#include "cli/mpi_session.hpp"
#include "io/io_error.hpp"

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
  // One write: the ranks of an MPI job share the launcher's stderr, and pieces would interleave. One
  // line, whatever the paths in the message hold.
  std::cerr << (lookback::io::one_line(where + ": " + message) + "\n");
  return code;
}

/// Whether the words ask for --distributed (options are spelt out in full: parse_options).
bool asks_distributed(int argc, char** argv) {
  for (int i = 2; i < argc; ++i)
    if (std::string(argv[i]) == "--distributed") return true;
  return false;
}

/// Runs the command in this process, or as this process's rank of an MPI job (--distributed under
/// mpirun), whose ranks agree on any failure and leave through MPI_Finalize together.
int run_command(const command& c, const std::string& where, int argc, char** argv) {
  const int launched = mpi_launch_size();
  const bool distributed = asks_distributed(argc, argv);
  if (launched > 1 && !distributed)
    return report(where,
                  "started by an MPI launcher as one of " + std::to_string(launched) +
                      " ranks, without --distributed: every rank would do the whole job (add --distributed)",
                  exit_code::usage);
  bool session = false;
  try {
    if (distributed && launched != 0) {
      begin_mpi_session();
      session = true;
    }
    int code = c.run(args(argv + 2, argv + argc));
    // A result printed into a full disk or a closed pipe is a lost result.
    if (!std::cout.flush()) code = report(where, "writing the result to standard output failed", exit_code::io_error);
    return session ? end_mpi_session(code, true) : code;
  } catch (...) {
    const failure f = classify(std::current_exception());
    if (!session) return report(where, f.message, f.exit_code);
    const session_report settled = settle_in_session(f);
    if (settled.print) report(where, settled.f.message, settled.f.exit_code);
    return end_mpi_session(settled.f.exit_code, settled.joined);
  }
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
  for (const command& c : commands)
    if (name == c.name) return run_command(c, where, argc, argv);
  return report("lookback", "unknown command '" + name + "' (see lookback --help)", exit_code::usage);
}
