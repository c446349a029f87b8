#pragma once
// Options every subcommand shares, and the parsing that turns Boost's errors into one-line usage errors.
#include "cli/backend.hpp"
#include "cli/launch.hpp"
#include "typed/typed_ops.hpp"

#include <boost/program_options.hpp>

#include <optional>
#include <string>
#include <vector>

namespace lookback::cli {

namespace po = boost::program_options;

struct common_options {
  std::string backend = "auto";
  bool verify = false;
  std::string dtype;  // raw input only
};

void add_common_options(po::options_description& desc, common_options& common);

struct memory_caps;
struct stream_settings;

/// --device-memory-limit and --host-memory-limit of the streamed array commands, as given.
struct memory_options {
  std::string device;
  std::string host;
};
void add_memory_options(po::options_description& desc, memory_options& memory);
/// The caps they set (zero where not given); a malformed size is a usage error.
memory_caps parse_memory_options(const memory_options& memory);

/// The streamed commands' settings, with a progress bar's update as the progress callback (`bar` may
/// be null).
class progress_bar;
stream_settings stream_settings_for(backend b, const common_options& common, const memory_options& memory,
                                    progress_bar* bar);

/// Parses `args` (the words after the subcommand). Returns nullopt when --help was asked for, after
/// printing `usage` and `desc` to stdout. `hidden` options (not in the help) take the `positional`
/// words.
std::optional<po::variables_map> parse_options(const std::vector<std::string>& args, const po::options_description& desc,
                                               const std::string& usage, const po::options_description* hidden = nullptr,
                                               const po::positional_options_description* positional = nullptr);

/// auto: the GPU when one is usable, else the CPU reference with a one-line notice on stderr.
/// --verify needs a GPU whichever backend computes the result.
backend resolve_backend(const common_options& common);

/// --gpus and --distributed, on the commands that run across ranks.
void add_launch_options(po::options_description& desc, launch_options& launching);

/// resolve_backend for a command that may run across ranks: --gpus needs GPUs whatever the backend
/// says; --distributed --backend cpu --verify compares with the single-process CPU run, so needs none.
/// --device-memory-limit does not apply across ranks (each holds its slice on its GPU) and is refused.
backend resolve_backend(const common_options& common, const launch_options& launching, const memory_options& memory);

/// --deterministic runs in one process (on one GPU or the CPU): across ranks its association would
/// need the windows' aggregates folded in order across the ranks, which the distributed scan does not do.
void refuse_deterministic_launch(bool deterministic, const launch_options& launching);

/// --op sum|min|max, parsed or refused.
typed::op_kind parse_op_option(const std::string& text);

}  // namespace lookback::cli
