// lookback_soak: a bounded soak of the commands' GPU path. Until --seconds have passed it runs random
// cases (soak_cases.hpp), each compared element by element between ours and CUB's, and prints one line
// per mismatch and "soak: N runs in S s, M mismatches". Case I draws from (seed, I) alone, so
// `--seed S --case I` replays one.
//   lookback_soak [--seconds S (60)] [--seed N (random)] [--case I]
// Exit codes (cli/exit_codes.hpp): 0 all matched, 70 a mismatch or a failure, 69 no GPU, 64 bad option.
#include "cli/cli_error.hpp"
#include "cli/exit_codes.hpp"
#include "soak/soak_cases.hpp"
#include "typed/gpu_probe.hpp"

#include <lookback/primitives/error.cuh>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <type_traits>

namespace {

using namespace lookback;

struct options {
  double seconds = 60;
  std::uint64_t seed = 0;
  std::optional<std::uint64_t> one_case;
};

[[noreturn]] void usage_error(const std::string& problem) {
  throw cli::cli_error(cli::exit_code::usage,
                       problem + " (usage: lookback_soak [--seconds S] [--seed N] [--case I])");
}

/// The whole of `text` as a number, or a usage error naming the option.
template <class T>
T number_of(const std::string& option, const char* text) {
  std::size_t used = 0;
  const std::string s = text != nullptr ? text : "";
  try {
    const T value = std::is_floating_point_v<T> ? static_cast<T>(std::stod(s, &used)) : static_cast<T>(std::stoull(s, &used));
    if (used == s.size() && !s.empty() && s[0] != '-' && value == value) return value;
  } catch (const std::exception&) {
  }
  usage_error(option + " needs a non-negative number, not '" + s + "'");
}

options parse(int argc, char** argv) {
  options o;
  o.seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (option == "--seconds")
      o.seconds = number_of<double>(option, value);
    else if (option == "--seed")
      o.seed = number_of<std::uint64_t>(option, value);
    else if (option == "--case")
      o.one_case = number_of<std::uint64_t>(option, value);
    else
      usage_error("unknown option '" + option + "'");
    ++i;
  }
  // No runs would pass as a clean soak, and infinitely many never report.
  if (!(o.seconds > 0) || !std::isfinite(o.seconds))
    usage_error("--seconds needs a positive, finite number of seconds");
  return o;
}

int run_soak(const options& o) {
  if (const auto reason = typed::gpu_unavailable_reason()) {
    std::cout << "soak: skipped, " << *reason << std::endl;
    return cli::exit_code::unavailable;
  }
  std::cout << "soak: seed " << o.seed << ", ";
  if (o.one_case)
    std::cout << "case " << *o.one_case;
  else
    std::cout << o.seconds << " s";
  std::cout << " on " << typed::gpu_description() << std::endl;
  using clock = std::chrono::steady_clock;
  const clock::time_point start = clock::now();
  const auto elapsed_s = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  std::uint64_t runs = 0, mismatches = 0, failures = 0;
  for (std::uint64_t index = o.one_case.value_or(0); o.one_case ? runs == 0 : elapsed_s() < o.seconds; ++index) {
    // seed_seq keeps 32 bits of each value.
    std::seed_seq seq{o.seed & 0xffffffffu, o.seed >> 32, index & 0xffffffffu, index >> 32};
    std::mt19937_64 rng(seq);
    std::string what = "(not drawn yet)";
    const auto report = [&](const char* kind, const std::string& message) {
      std::cout << "soak: " << kind << " seed " << o.seed << " case " << index << " (" << what << "): " << message
                << std::endl;
    };
    ++runs;
    try {
      soak::run_case(rng, what);
    } catch (const cli::cli_error& e) {
      const bool mismatch = e.exit_code() == cli::exit_code::software;
      ++(mismatch ? mismatches : failures);
      report(mismatch ? "MISMATCH" : "FAILED", e.what());
    } catch (const cuda_error& e) {
      // A fault leaves the context unusable: the cases after it would only repeat it.
      ++failures;
      report("FAILED", std::string("CUDA failure: ") + e.what() + "; stopping");
      break;
    } catch (const std::exception& e) {
      ++failures;
      report("FAILED", e.what());
    }
  }
  char summary[128];
  std::snprintf(summary, sizeof summary, "soak: %llu runs in %.1f s, %llu mismatches",
                static_cast<unsigned long long>(runs), elapsed_s(), static_cast<unsigned long long>(mismatches));
  std::cout << summary << (failures > 0 ? ", " + std::to_string(failures) + " failures" : std::string()) << std::endl;
  return mismatches + failures > 0 ? cli::exit_code::software : cli::exit_code::ok;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_soak(parse(argc, argv));
  } catch (const cli::cli_error& e) {
    std::cerr << "lookback_soak: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "lookback_soak: " << e.what() << "\n";
    return cli::exit_code::software;
  }
}
