// Windowed-sinc design: scipy.signal.firwin's published values, unity gain where each band promises
// it, symmetry, the windows themselves, and the --window and tap-count refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <stdexcept>
#include <string>
#include <vector>

#include "typed/fir_design.hpp"

namespace lookback::typed {
namespace {

constexpr double pi = 3.14159265358979323846;

/// |H| at `f`, a fraction of the Nyquist frequency.
double gain_at(const std::vector<double>& h, double f) {
  std::complex<double> sum = 0;
  for (std::size_t k = 0; k < h.size(); ++k) sum += h[k] * std::polar(1.0, -pi * f * static_cast<double>(k));
  return std::abs(sum);
}

void expect_taps_near(const std::vector<double>& got, const std::vector<double>& want, double tolerance) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tolerance) << "tap " << i;
}

const window_spec hamming{};

TEST(FirDesign, MatchesScipyFirwinDocumentationExamples) {
  // scipy.signal.firwin's docstring, numtaps = 3 (Hamming): firwin(3, 0.1), firwin(3, 0.1,
  // pass_zero=False) and firwin(3, [0.1, 0.2], pass_zero=False), printed to 8 decimals.
  expect_taps_near(design_fir({0.0, 0.1}, 3, hamming), {0.06799017, 0.86401967, 0.06799017}, 5e-9);
  expect_taps_near(design_fir({0.1, 1.0}, 3, hamming), {-0.00859313, 0.98281375, -0.00859313}, 5e-9);
  expect_taps_near(design_fir({0.1, 0.2}, 3, hamming), {0.06301614, 0.88770441, 0.06301614}, 5e-9);
}

TEST(FirDesign, FiveTapHalfBandLowpassByHand) {
  // firwin(5, 0.5): 0.5 sinc(0.5 m) for m = -2..2 is (0, 1/pi, 1/2, 1/pi, 0); Hamming(5) is
  // (0.08, 0.54, 1, 0.54, 0.08); the sum of the products scales the taps to unity gain at DC.
  const double side = 0.54 / pi, centre = 0.5, total = centre + 2 * side;
  expect_taps_near(design_fir({0.0, 0.5}, 5, hamming), {0.0, side / total, centre / total, side / total, 0.0}, 1e-15);
}

TEST(FirDesign, UnityGainWhereEachBandPromisesIt) {
  for (const window_spec& w : {window_spec{window_kind::hamming}, window_spec{window_kind::blackman},
                               window_spec{window_kind::kaiser, 8.6}, window_spec{window_kind::kaiser, 0.0}}) {
    for (const int taps : {1, 2, 31, 100, 101}) {
      SCOPED_TRACE(describe(w) + ", " + std::to_string(taps) + " taps");
      EXPECT_NEAR(gain_at(design_fir({0.0, 0.3}, taps, w), 0.0), 1.0, 1e-12);  // lowpass: DC
      if (taps % 2 == 0) continue;
      if (taps > 1) EXPECT_NEAR(gain_at(design_fir({0.3, 1.0}, taps, w), 1.0), 1.0, 1e-12);  // highpass: Nyquist
      if (taps > 1) EXPECT_NEAR(gain_at(design_fir({0.2, 0.5}, taps, w), 0.35), 1.0, 1e-12);  // bandpass: centre
    }
  }
}

TEST(FirDesign, RejectsTheStopBand) {
  // 101 Hamming taps: the stop band sits more than 50 dB down, well past the transition.
  const std::vector<double> lowpass = design_fir({0.0, 0.2}, 101, hamming);
  const std::vector<double> highpass = design_fir({0.2, 1.0}, 101, hamming);
  const std::vector<double> bandpass = design_fir({0.3, 0.5}, 101, hamming);
  for (double f = 0; f <= 1.0; f += 0.01) {
    if (f >= 0.3) EXPECT_LT(gain_at(lowpass, f), 0.0032) << f;
    if (f <= 0.1) EXPECT_LT(gain_at(highpass, f), 0.0032) << f;
    if (f <= 0.2 || f >= 0.6) EXPECT_LT(gain_at(bandpass, f), 0.0032) << f;
  }
}

TEST(FirDesign, TapsAreSymmetric) {
  for (const fir_band band : {fir_band{0.0, 0.25}, fir_band{0.4, 1.0}, fir_band{0.1, 0.7}})
    for (const window_spec& w : {window_spec{window_kind::hamming}, window_spec{window_kind::blackman},
                                 window_spec{window_kind::kaiser, 5.0}}) {
      const std::vector<double> h = design_fir(band, 63, w);
      for (std::size_t i = 0; i < h.size(); ++i) EXPECT_NEAR(h[i], h[h.size() - 1 - i], 1e-15) << "tap " << i;
    }
  // Even lowpass filters are symmetric about the gap between their middle taps.
  const std::vector<double> even = design_fir({0.0, 0.25}, 64, hamming);
  for (std::size_t i = 0; i < even.size(); ++i) EXPECT_NEAR(even[i], even[even.size() - 1 - i], 1e-15) << "tap " << i;
}

TEST(FirDesign, OneTapIsTheIdentity) { EXPECT_EQ(design_fir({0.0, 0.3}, 1, hamming), std::vector<double>{1.0}); }

TEST(FirWindow, ValuesAsScipyGetWindow) {
  expect_taps_near(window_values({window_kind::hamming}, 5), {0.08, 0.54, 1.0, 0.54, 0.08}, 1e-15);
  expect_taps_near(window_values({window_kind::blackman}, 5), {0.0, 0.34, 1.0, 0.34, 0.0}, 1e-15);
  expect_taps_near(window_values({window_kind::kaiser, 0.0}, 4), {1.0, 1.0, 1.0, 1.0}, 1e-15);
  // I0(2) = 2.2795853023360673 (Abramowitz and Stegun, table 9.8).
  expect_taps_near(window_values({window_kind::kaiser, 2.0}, 3), {1 / 2.2795853023360673, 1.0, 1 / 2.2795853023360673},
                   1e-15);
  EXPECT_EQ(window_values({window_kind::blackman}, 1), std::vector<double>{1.0});
}

TEST(FirWindow, ParsesNamesAndKaiserBeta) {
  window_spec w;
  EXPECT_FALSE(parse_window("blackman", w));
  EXPECT_EQ(w.kind, window_kind::blackman);
  EXPECT_FALSE(parse_window("hamming", w));
  EXPECT_EQ(w.kind, window_kind::hamming);
  EXPECT_FALSE(parse_window("kaiser", w));
  EXPECT_EQ(w.kind, window_kind::kaiser);
  EXPECT_EQ(w.beta, 8.6);
  EXPECT_FALSE(parse_window("kaiser:5", w));
  EXPECT_EQ(w.beta, 5.0);
  EXPECT_FALSE(parse_window("kaiser:0", w));
  EXPECT_EQ(w.beta, 0.0);
  EXPECT_FALSE(parse_window("kaiser:12.25", w));
  EXPECT_EQ(w.beta, 12.25);
  EXPECT_EQ(describe(w), "kaiser (beta 12.25)");

  for (const char* bad : {"kaiser:", "kaiser:abc", "kaiser:-1", "kaiser:101", "kaiser:nan", "kaiser:5x"}) {
    const auto problem = parse_window(bad, w);
    ASSERT_TRUE(problem) << bad;
    EXPECT_EQ(*problem, "--window " + std::string(bad) + ": the kaiser beta must be a number from 0 to 100");
  }
  for (const char* bad : {"hann", "", "Hamming", "kaiser5"}) {
    const auto problem = parse_window(bad, w);
    ASSERT_TRUE(problem) << bad;
    EXPECT_EQ(*problem, "--window must be hamming, blackman, kaiser or kaiser:BETA, not '" + std::string(bad) + "'");
  }
}

TEST(FirDesign, RefusesWhatCannotBeDesigned) {
  EXPECT_EQ(fir_design_problem({0.0, 0.5}, 100), "");
  EXPECT_EQ(fir_design_problem({0.2, 1.0}, 101), "");
  EXPECT_EQ(fir_design_problem({0.2, 1.0}, 100),
            "--num-taps must be odd for a highpass filter (its design needs a centre tap; an even-length one has zero "
            "gain at Nyquist), not 100");
  // A band short of Nyquist takes an even count, as scipy's firwin(64, [0.2, 0.4], pass_zero=False).
  EXPECT_EQ(fir_design_problem({0.2, 0.4}, 64), "");
  const std::vector<double> even = design_fir({0.2, 0.4}, 64, {window_kind::hamming, 0.0});
  for (std::size_t i = 0; i < even.size(); ++i) EXPECT_NEAR(even[i], even[even.size() - 1 - i], 1e-15) << "tap " << i;
  EXPECT_NEAR(gain_at(even, 0.3), 1.0, 1e-12);
  EXPECT_LT(std::abs(gain_at(even, 1.0)), 1e-12);  // an even symmetric filter: zero at Nyquist
  EXPECT_EQ(fir_design_problem({0.0, 0.5}, 0), "--num-taps must be between 1 and 1048576, not 0");
  EXPECT_EQ(fir_design_problem({0.0, 0.5}, max_fir_taps + 1), "--num-taps must be between 1 and 1048576, not 1048577");
  EXPECT_NE(fir_design_problem({0.5, 0.5}, 11), "");
  EXPECT_NE(fir_design_problem({0.0, 1.0}, 11), "");
  EXPECT_NE(fir_design_problem({0.0, 1.5}, 11), "");
  EXPECT_THROW(design_fir({0.2, 1.0}, 10, hamming), std::invalid_argument);
}

}  // namespace
}  // namespace lookback::typed
