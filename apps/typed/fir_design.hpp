#pragma once
// Windowed-sinc FIR design, as scipy.signal.firwin(num_taps, band, window=..., pass_zero=(low == 0),
// scale=True) makes it: the ideal band's impulse response sampled about the filter's centre, times a
// symmetric window, scaled to unity gain at DC (lowpass), Nyquist (highpass) or the band's centre.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lookback::typed {

enum class window_kind { hamming, blackman, kaiser };

struct window_spec {
  window_kind kind = window_kind::hamming;
  double beta = 8.6;  // kaiser only; numpy's kaiser documentation likens 8.6 to Blackman's trade-off
};

inline constexpr double max_kaiser_beta = 100.0;  // I0(beta) overflows a double near 713; useful values are < 20

/// "hamming", "blackman", "kaiser" or "kaiser:BETA" (0 <= BETA <= max_kaiser_beta); the problem in
/// words, naming --window, when it is none of those.
std::optional<std::string> parse_window(std::string_view text, window_spec& window);
/// "hamming", "kaiser (beta 8.6)"
std::string describe(const window_spec& window);

/// The symmetric window of n points (scipy.signal.get_window(..., n, fftbins=False)).
std::vector<double> window_values(const window_spec& window, int n);

/// The pass band [low, high] as fractions of the Nyquist frequency: low 0 for a lowpass, high 1 for a
/// highpass.
struct fir_band {
  double low = 0;
  double high = 1;
};

inline constexpr int max_fir_taps = 1 << 20;

/// Why the band cannot be designed with num_taps taps (0 <= low < high <= 1, not both ends; 1 to
/// max_fir_taps taps; odd for a highpass, whose response at Nyquist an even count forces to zero), or empty when it can. Names --num-taps.
std::string fir_design_problem(const fir_band& band, int num_taps);

/// The taps; throws std::invalid_argument with fir_design_problem's words for a band it refuses.
std::vector<double> design_fir(const fir_band& band, int num_taps, const window_spec& window);

}  // namespace lookback::typed
