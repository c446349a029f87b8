#include "cli/failure.hpp"

#include "cli/cli_error.hpp"
#include "cli/exit_codes.hpp"
#include "io/io_error.hpp"

#include <lookback/distributed/dist_error.hpp>
#include <lookback/pipelines/stream_error.hpp>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/out_of_memory.hpp>

#include <new>

namespace lookback::cli {

namespace {

static_assert(exit_code::os_error == out_of_memory_exit_code, "one exit code for a failed allocation");

// The GPU paths report their needs (cli/device_memory.hpp); an allocation outside them still counts
// as out of memory, not as a failure of ours.
failure cuda_failure(int code, const char* what) {
  if (code == cudaErrorMemoryAllocation) return {exit_code::os_error, out_of_device_memory(what)};
  return {exit_code::software, std::string("CUDA failure: ") + what};
}

}  // namespace

failure classify(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const cli_error& e) {
    return {e.exit_code(), e.what()};
  } catch (const io::io_error& e) {
    return {exit_code_for(e.kind()), e.what()};
  } catch (const dist::dist_error& e) {
    return {e.exit_code() != 0 ? e.exit_code() : exit_code::software, e.what(), true};
  } catch (const pipelines::stream_error& e) {
    using kind = pipelines::stream_error::kind;
    switch (e.what_failed()) {
      case kind::read:
      case kind::write: return {exit_code::io_error, e.what()};
      case kind::budget: return {exit_code::usage, e.what()};
      case kind::device: return cuda_failure(e.cuda_code(), e.what());
    }
    return {exit_code::software, e.what()};
  } catch (const cuda_error& e) {
    return cuda_failure(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return {exit_code::os_error, out_of_host_memory};
  } catch (const std::exception& e) {
    return {exit_code::software, e.what()};
  } catch (...) {
    return {exit_code::software, "failed with an unknown exception"};
  }
}

}  // namespace lookback::cli
