#include "typed/image_masks.hpp"

#include "io/number_text.hpp"

#include <cmath>

namespace lookback::typed {
namespace {

using io::parse_whole_double;
using io::parse_whole_long;

/// K of box:K and gaussian:K:SIGMA, or why not.
std::optional<std::string> parse_side(const std::string& spec, const std::string& text, int& side) {
  const std::string where = "--kernel " + spec + ": ";
  if (!text.empty() && text[0] == '-' && parse_whole_long(text.substr(1)))
    return where + "K must be at least 1, not " + text;
  const auto k = parse_whole_long(text);
  if (!k) return where + "K must be a whole number, not '" + text + "'";
  if (*k < 1) return where + "K must be at least 1, not " + text;
  if (*k > max_kernel_side) return where + "K must be at most " + std::to_string(max_kernel_side) + ", not " + text;
  if (*k % 2 == 0) return where + "K must be odd (the mask is centred on its middle tap), not " + text;
  side = static_cast<int>(*k);
  return std::nullopt;
}

image_mask three_by_three(std::vector<double> taps) { return {3, 3, std::move(taps)}; }

}  // namespace

const char* kernel_spec_list() { return "box:K | gaussian:K:SIGMA | sharpen | sobel-x | sobel-y"; }

std::optional<std::string> parse_kernel_spec(const std::string& spec, image_mask& mask) {
  if (spec == "sharpen") {
    mask = three_by_three({0, -1, 0, -1, 5, -1, 0, -1, 0});
    return std::nullopt;
  }
  if (spec == "sobel-x") {
    mask = three_by_three({-1, 0, 1, -2, 0, 2, -1, 0, 1});
    return std::nullopt;
  }
  if (spec == "sobel-y") {
    mask = three_by_three({-1, -2, -1, 0, 0, 0, 1, 2, 1});
    return std::nullopt;
  }
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const std::string rest = colon == std::string::npos ? std::string() : spec.substr(colon + 1);
  if (name == "box") {
    if (colon == std::string::npos) return "--kernel box needs its size: box:K";
    int k = 0;
    if (auto problem = parse_side(spec, rest, k)) return problem;
    mask = {k, k, std::vector<double>(static_cast<std::size_t>(k) * static_cast<std::size_t>(k), 1.0 / (double(k) * k))};
    return std::nullopt;
  }
  if (name == "gaussian") {
    const auto second = rest.find(':');
    if (colon == std::string::npos || second == std::string::npos)
      return "--kernel " + spec + ": a gaussian needs its size and width: gaussian:K:SIGMA";
    int k = 0;
    if (auto problem = parse_side(spec, rest.substr(0, second), k)) return problem;
    const std::string sigma_text = rest.substr(second + 1);
    const auto sigma = parse_whole_double(sigma_text);
    if (!sigma || !std::isfinite(*sigma)) return "--kernel " + spec + ": SIGMA must be a number, not '" + sigma_text + "'";
    if (*sigma <= 0) return "--kernel " + spec + ": SIGMA must be greater than 0, not " + sigma_text;
    image_mask g{k, k, std::vector<double>(static_cast<std::size_t>(k) * static_cast<std::size_t>(k))};
    double total = 0;
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j) {
        // Offsets in units of SIGMA: 2 * SIGMA^2 underflows to 0 below about 1e-162, and 0/0 made every
        // tap NaN; u and v only grow to infinity, whose exp is 0.
        const double u = (i - k / 2) / *sigma, v = (j - k / 2) / *sigma;
        total += g.taps[static_cast<std::size_t>(i * k + j)] = std::exp(-(u * u + v * v) / 2);
      }
    // The centre tap is exp(0) = 1, so the total is at least 1 however small SIGMA is.
    for (double& t : g.taps) t /= total;
    mask = std::move(g);
    return std::nullopt;
  }
  return "--kernel must be " + std::string(kernel_spec_list()) + ", not '" + spec + "'";
}

}  // namespace lookback::typed
