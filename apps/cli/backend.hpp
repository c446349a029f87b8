#pragma once
// Where a command computes its result; apart from the option parsing that chooses it, so that the GPU
// path (lookback_cli_gpu) builds without Boost.
namespace lookback::cli {

enum class backend { cpu, gpu };

}  // namespace lookback::cli
