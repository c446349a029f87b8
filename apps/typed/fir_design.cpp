#include "typed/fir_design.hpp"

#include "io/number_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace lookback::typed {
namespace {

constexpr double pi = 3.14159265358979323846;

double sinc(double x) { return x == 0 ? 1.0 : std::sin(pi * x) / (pi * x); }

// The modified Bessel function of the first kind, order 0, from its power series; every term is
// positive, so the sum converges without cancellation for the betas allowed.
double bessel_i0(double x) {
  double term = 1, sum = 1;
  for (int k = 1; term > sum * 1e-17; ++k) {
    term *= (x / (2 * k)) * (x / (2 * k));
    sum += term;
  }
  return sum;
}

}  // namespace

std::optional<std::string> parse_window(std::string_view text, window_spec& window) {
  if (text == "hamming") {
    window = {window_kind::hamming};
    return std::nullopt;
  }
  if (text == "blackman") {
    window = {window_kind::blackman};
    return std::nullopt;
  }
  if (text == "kaiser") {
    window = {window_kind::kaiser};
    return std::nullopt;
  }
  if (text.substr(0, 7) == "kaiser:") {
    const auto beta = io::parse_whole_double(std::string(text.substr(7)));
    if (beta && *beta >= 0 && *beta <= max_kaiser_beta) {
      window = {window_kind::kaiser, *beta};
      return std::nullopt;
    }
    std::ostringstream problem;
    problem << "--window " << text << ": the kaiser beta must be a number from 0 to " << max_kaiser_beta;
    return problem.str();
  }
  return "--window must be hamming, blackman, kaiser or kaiser:BETA, not '" + std::string(text) + "'";
}

std::string describe(const window_spec& window) {
  switch (window.kind) {
    case window_kind::hamming: return "hamming";
    case window_kind::blackman: return "blackman";
    case window_kind::kaiser: {
      std::ostringstream out;
      out << "kaiser (beta " << window.beta << ")";
      return out.str();
    }
  }
  return "?";
}

std::vector<double> window_values(const window_spec& window, int n) {
  std::vector<double> w(static_cast<std::size_t>(n), 1.0);
  if (n < 2) return w;
  for (int i = 0; i < n; ++i) {
    // scipy's general_cosine form: the phase runs from -pi to pi across the window.
    const double phase = -pi + 2 * pi * i / (n - 1);
    double& v = w[static_cast<std::size_t>(i)];
    switch (window.kind) {
      case window_kind::hamming: v = 0.54 + 0.46 * std::cos(phase); break;
      case window_kind::blackman: v = 0.42 + 0.5 * std::cos(phase) + 0.08 * std::cos(2 * phase); break;
      case window_kind::kaiser: {
        const double r = 2.0 * i / (n - 1) - 1.0;
        v = bessel_i0(window.beta * std::sqrt(std::max(0.0, 1 - r * r))) / bessel_i0(window.beta);
        break;
      }
    }
  }
  return w;
}

std::string fir_design_problem(const fir_band& band, int num_taps) {
  if (num_taps < 1 || num_taps > max_fir_taps)
    return "--num-taps must be between 1 and " + std::to_string(max_fir_taps) + ", not " + std::to_string(num_taps);
  if (!(band.low >= 0 && band.low < band.high && band.high <= 1) || (band.low == 0 && band.high == 1))
    return "the pass band must lie inside (0, Nyquist)";
  // As scipy's firwin: only a band that reaches Nyquist needs the centre tap.
  if (band.high == 1 && num_taps % 2 == 0)
    return "--num-taps must be odd for a highpass filter (its design needs a centre tap; an even-length one has "
           "zero gain at Nyquist), not " + std::to_string(num_taps);
  return {};
}

std::vector<double> design_fir(const fir_band& band, int num_taps, const window_spec& window) {
  if (const std::string problem = fir_design_problem(band, num_taps); !problem.empty())
    throw std::invalid_argument("lookback::design_fir: " + problem);
  const std::vector<double> w = window_values(window, num_taps);
  const double centre = 0.5 * (num_taps - 1);
  // The pass band's gain reference: DC, Nyquist or the band's centre, as firwin's scale=True.
  const double reference = band.low == 0 ? 0.0 : band.high == 1 ? 1.0 : 0.5 * (band.low + band.high);
  std::vector<double> h(static_cast<std::size_t>(num_taps));
  double gain = 0;
  for (int i = 0; i < num_taps; ++i) {
    const double m = i - centre;
    const double ideal = band.high * sinc(band.high * m) - band.low * sinc(band.low * m);
    h[static_cast<std::size_t>(i)] = ideal * w[static_cast<std::size_t>(i)];
    gain += h[static_cast<std::size_t>(i)] * std::cos(pi * m * reference);
  }
  for (double& tap : h) tap /= gain;
  return h;
}

}  // namespace lookback::typed
