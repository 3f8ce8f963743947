// The comparison's verdict looks at the whole distribution (issue "Trust"): the failing inputs of
// that issue, each with the right verdict, and the two-sample statistics behind it against values
// computed independently (by hand, or NumPy 2.x / SciPy 1.17 as annotated).

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/core/two_sample.hpp"
#include "gauge/report/checks.hpp"
#include "gauge/report/compare.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_compare_verdict {

namespace {

std::vector<double> repeat(std::size_t n, double v) { return std::vector<double>(n, v); }

std::vector<double> join(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

gauge::Result result(const std::vector<double>& samples) {
  gauge::Result r;
  r.name = "step";
  r.gpu_samples_s = samples;
  return r;
}

const gauge::stats::StatisticRatio& statistic_of(const gauge::compare::ExperimentComparison& e, gauge::stats::Statistic s) {
  for (const auto& x : e.statistics)
    if (x.statistic == s) return x;
  FAIL("statistic " << gauge::to_string(s) << " missing");
  return e.statistics.front();
}

}  // namespace

TEST_CASE("verdict: a slow minority of steps is a regression, although the median is unchanged", "[compare][trust]") {
  // Base: 10,000 steps of 1.000 ms. New: 85 % at 1.000 ms, 15 % at 3.000 ms.
  // NumPy: mean ratio 1.3, p90 ratio 3.0, p99 ratio 3.0, median ratio 1.0;
  // scipy.stats.mannwhitneyu(base, new, method="asymptotic").statistic == 42500000.0.
  const auto base = result(repeat(10000, 1.0e-3));
  const auto candidate = result(join(repeat(8500, 1.0e-3), repeat(1500, 3.0e-3)));
  const auto e = gauge::compare_results(base, candidate);
  INFO(e.reason);
  CHECK(e.verdict == gauge::Verdict::slower);
  CHECK(e.regression());
  CHECK(statistic_of(e, gauge::stats::Statistic::median).interval.estimate == 1.0);
  CHECK(statistic_of(e, gauge::stats::Statistic::mean).interval.estimate == Approx(1.3).epsilon(1e-12));
  CHECK(statistic_of(e, gauge::stats::Statistic::p90).interval.low == Approx(3.0).epsilon(1e-15));
  CHECK(statistic_of(e, gauge::stats::Statistic::p99).interval.estimate == Approx(3.0).epsilon(1e-15));
  CHECK(e.mann_whitney->u == 42500000.0);
  CHECK(e.mann_whitney->p_value < 1e-100);
  // 85 % / 15 %, nothing between: two modes, and the lower one holds the median (>= 75 %), so the
  // median decides too (within 1 +- 2 %) while p90 and p99 decide "slower".
  CHECK(e.candidate_modes->bimodal);
  CHECK_FALSE(e.base_modes->bimodal);
  CHECK(std::find(e.deciding.begin(), e.deciding.end(), gauge::stats::Statistic::median) != e.deciding.end());
  // The gate fails with "regression".
  gauge::Comparison c;
  c.experiments.push_back(e);
  CHECK(gauge::compare::gate(c) == gauge::compare::GateOutcome::regression);
  CHECK(gauge::compare::gate(c, true, true) == gauge::compare::GateOutcome::regression);
}

TEST_CASE("verdict: a base whose slow tenth sits apart does not hide +9 % of the rest", "[compare][trust]") {
  // The CPU pair of docs/images/cpu-compare.png, in evenly spaced values: base 440 steps over
  // [3.10, 3.18] ms and a descheduled 12 % over [3.40, 3.90] ms (two modes, Ashman's D ~3.9);
  // new 500 steps over [3.40, 3.48] ms. The base's lower mode holds 88 % of its steps, so its
  // median lies there and decides. NumPy: median ratio 1.09364161849711, p90 ratio
  // 0.9976827586206896 (the base's tail), mean ratio 1.0745970261152067;
  // scipy.stats.mannwhitneyu(base, new, method="asymptotic") -> (27604.0, 6.292416068153982e-101).
  std::vector<double> base, candidate;
  for (int i = 0; i < 440; ++i) base.push_back(3.10e-3 + 0.08e-3 * (i + 0.5) / 440);
  for (int i = 0; i < 60; ++i) base.push_back(3.40e-3 + 0.50e-3 * (i + 0.5) / 60);
  for (int i = 0; i < 500; ++i) candidate.push_back(3.40e-3 + 0.08e-3 * (i + 0.5) / 500);
  const auto e = gauge::compare_results(result(base), result(candidate));
  INFO(e.reason);
  REQUIRE(e.base_modes->bimodal);
  CHECK(e.base_modes->lower.n == 440);
  CHECK_FALSE(e.candidate_modes->bimodal);
  CHECK(e.mann_whitney->u == 27604.0);
  CHECK(e.mann_whitney->p_value == Approx(6.292416068153982e-101).epsilon(1e-6));
  CHECK(statistic_of(e, gauge::stats::Statistic::median).interval.estimate == Approx(1.09364161849711).epsilon(1e-12));
  CHECK(statistic_of(e, gauge::stats::Statistic::p90).interval.estimate == Approx(0.9976827586206896).epsilon(1e-12));
  CHECK(std::find(e.deciding.begin(), e.deciding.end(), gauge::stats::Statistic::median) != e.deciding.end());
  CHECK(e.verdict == gauge::Verdict::slower);
  CHECK_THAT(e.reason, Catch::Contains("the middle half of the steps spans <= 2 % on each bimodal side, so the median is steady and decides"));
  CHECK(e.headline->statistic == gauge::stats::Statistic::median);
  // The same tail with a body of 60 % (300 at [3.10, 3.18], 200 at [3.40, 3.90]): no mode holds
  // the median firmly, so it does not decide, and p90 (the base's tail) cannot call it slower.
  std::vector<double> even;
  for (int i = 0; i < 300; ++i) even.push_back(3.10e-3 + 0.08e-3 * (i + 0.5) / 300);
  for (int i = 0; i < 200; ++i) even.push_back(3.40e-3 + 0.50e-3 * (i + 0.5) / 200);
  const auto j = gauge::compare_results(result(even), result(candidate));
  INFO(j.reason);
  REQUIRE(j.base_modes->bimodal);
  CHECK(std::find(j.deciding.begin(), j.deciding.end(), gauge::stats::Statistic::median) == j.deciding.end());
  CHECK(j.verdict != gauge::Verdict::slower);
  CHECK_THAT(j.reason, Catch::Contains("the median jumps between the modes"));
  // Under 100 samples a side (no p90), a slow fifth: 60 steps at 1 ms against 48 at 1 ms and 12 at
  // 3 ms. The median lies in the fast mode (80 %) and stays put (ratio 1); the mean prices the slow
  // mode, by hand (0.8 * 1 + 0.2 * 3) / 1 = 1.4, and decides with it: slower.
  const auto few = gauge::compare_results(result(repeat(60, 1e-3)), result(join(repeat(48, 1e-3), repeat(12, 3e-3))));
  INFO(few.reason);
  CHECK(few.deciding == std::vector<gauge::stats::Statistic>{gauge::stats::Statistic::median, gauge::stats::Statistic::mean});
  CHECK(statistic_of(few, gauge::stats::Statistic::median).interval.estimate == 1.0);
  CHECK(statistic_of(few, gauge::stats::Statistic::mean).interval.estimate == Approx(1.4).epsilon(1e-12));
  CHECK(few.verdict == gauge::Verdict::slower);
  // Two bimodal sides whose medians lie in different modes (80 % fast against 80 % slow): the
  // median jumps, though each side's majority is firm.
  const auto swapped = gauge::compare_results(result(join(repeat(800, 1.00e-3), repeat(200, 1.25e-3))),
                                              result(join(repeat(200, 1.00e-3), repeat(800, 1.25e-3))));
  CHECK(std::find(swapped.deciding.begin(), swapped.deciding.end(), gauge::stats::Statistic::median) == swapped.deciding.end());
}

TEST_CASE("verdict: an adversarial review of the median's rule for bimodal sides", "[compare][trust]") {
  // Values in ms, exact repeats; NumPy for every ratio (np.median, np.mean, np.percentile type 7).
  auto ms = [](std::size_t n, double v) { return repeat(n, v * 1e-3); };
  auto has = [](const gauge::compare::ExperimentComparison& e, gauge::stats::Statistic s) {
    return std::find(e.deciding.begin(), e.deciding.end(), s) != e.deciding.end();
  };
  // 1. Identical code whose fast "mode" is two clock states trading weight: base 2600 x 1.00, 1400
  //    x 1.05, 1000 x 2.0; new 2400 / 1600 / 1000. Median ratio 1.05 (the seam), mean
  //    1.00164744645799, p90 1.0. The middle half spans 1.00 to 1.05 (5 % > 2 %): the median does
  //    not decide, nor veto (a tenth of the steps moves it too): same, never slower.
  auto e = gauge::compare_results(result(join(join(ms(2600, 1.00), ms(1400, 1.05)), ms(1000, 2.0))),
                                  result(join(join(ms(2400, 1.00), ms(1600, 1.05)), ms(1000, 2.0))));
  INFO(e.reason);
  CHECK_FALSE(has(e, gauge::stats::Statistic::median));
  CHECK(statistic_of(e, gauge::stats::Statistic::median).interval.estimate == Approx(1.05).epsilon(1e-12));
  CHECK(e.verdict == gauge::Verdict::same);
  // 2. A body 9.4 % slower behind a base tail of a quarter: base 749 evenly over [3.10, 3.18] ms
  //    and 251 over [3.9, 4.1]; new 1000 over [3.41, 3.49]. Median 1.0940556331766798, mean
  //    1.0280524217339222, p90 0.8661611940298508. The base's Q75 (3.90 ms) is in the tail, so the
  //    median does not decide; p90 is below 1 - 2 %, but the median (steady: Q40 3.143, Q60 3.164
  //    ms) is above and the mean not below: inconclusive, never faster; the matcher fails.
  std::vector<double> tail_base, body_new;
  for (int i = 0; i < 749; ++i) tail_base.push_back(3.10e-3 + 0.08e-3 * (i + 0.5) / 749);
  for (int i = 0; i < 251; ++i) tail_base.push_back(3.9e-3 + 0.2e-3 * (i + 0.5) / 251);
  for (int i = 0; i < 1000; ++i) body_new.push_back(3.41e-3 + 0.08e-3 * (i + 0.5) / 1000);
  e = gauge::compare_results(result(tail_base), result(body_new));
  INFO(e.reason);
  CHECK(statistic_of(e, gauge::stats::Statistic::median).interval.estimate == Approx(1.0940556331766798).epsilon(1e-12));
  CHECK(statistic_of(e, gauge::stats::Statistic::p90).interval.estimate == Approx(0.8661611940298508).epsilon(1e-12));
  CHECK(e.verdict == gauge::Verdict::inconclusive);
  CHECK_THAT(e.reason, Catch::Contains("the distribution changed shape"));
  CHECK_FALSE(gauge::detail::checks::no_slower_than({result(tail_base)}, result(body_new), 0.03, {}, false).ok);
  // 3. Both modes moved, the weights flipped: base 800 x 1.00, 200 x 1.25; new 200 x 0.90, 800 x
  //    1.12. Median 1.12 (80 % of the steps 12 % slower), mean 1.024761904761904, p90 0.896. Not
  //    the same modes (0.90 / 1.00): each median is steady and decides: slower.
  e = gauge::compare_results(result(join(ms(800, 1.00), ms(200, 1.25))), result(join(ms(200, 0.90), ms(800, 1.12))));
  INFO(e.reason);
  CHECK(has(e, gauge::stats::Statistic::median));
  CHECK(statistic_of(e, gauge::stats::Statistic::median).interval.estimate == Approx(1.12).epsilon(1e-12));
  CHECK(e.verdict == gauge::Verdict::slower);
  // 4. The same modes, weights flipped 80/20 to 20/80: median 1.5, mean 1.2727272727272725, p90
  //    1.0. The medians lie in different modes (they read the flip), but each is steady: it vetoes
  //    "same": inconclusive, at n = 1000 and at n = 100.
  for (std::size_t k : {1, 10}) {
    e = gauge::compare_results(result(join(ms(80 * k, 1.0), ms(20 * k, 1.5))), result(join(ms(20 * k, 1.0), ms(80 * k, 1.5))));
    INFO(e.reason);
    CHECK_FALSE(has(e, gauge::stats::Statistic::median));
    CHECK(e.verdict == gauge::Verdict::inconclusive);
    CHECK_THAT(e.reason, Catch::Contains("the same modes, 80 % → 20 % in the lower one"));
  }
  // 6. The matcher at tolerance t compares as gauge-compare --threshold t: base 600 x 1.00, 400 x
  //    1.04; new 450 x 1.02, 550 x 1.065. At 5 % the groups (4 % apart) are not modes, the median
  //    (1.065) decides: slower, and the matcher at 5 % fails.
  gauge::CompareOptions five;
  five.threshold = 0.05;
  const auto a6 = result(join(ms(600, 1.00), ms(400, 1.04))), b6 = result(join(ms(450, 1.02), ms(550, 1.065)));
  e = gauge::compare_results(a6, b6, five);
  CHECK(statistic_of(e, gauge::stats::Statistic::median).interval.estimate == Approx(1.065).epsilon(1e-12));
  CHECK(e.verdict == gauge::Verdict::slower);
  const auto m6 = gauge::detail::checks::no_slower_than({a6}, b6, 0.05, {}, false);
  INFO(m6.text);
  CHECK_FALSE(m6.ok);
  // A second review. (i) Two clock states trading a third of the steps (650 x 1.00 and 350 x 1.03
  //     ms against 350 / 650): the median crosses the gap (1.03) but the mean moves 0.89 %
  //     (NumPy: 1.0089064819396338): same, and the matcher at 2 % passes.
  const auto a_i = result(join(ms(650, 1.00), ms(350, 1.03))), b_i = result(join(ms(350, 1.00), ms(650, 1.03)));
  e = gauge::compare_results(a_i, b_i);
  INFO(e.reason);
  CHECK(statistic_of(e, gauge::stats::Statistic::mean).interval.estimate == Approx(1.0089064819396338).epsilon(1e-12));
  CHECK(e.verdict == gauge::Verdict::same);
  CHECK(gauge::detail::checks::no_slower_than({a_i}, b_i, 0.02, {}, false).ok);
  // (ii) The base tail of a quarter at twice the body (749 over [3.10, 3.18] ms, 251 at 2x the
  //      first 251 of them) against a body 9.4 % slower: median 1.0940556331766798, mean
  //      0.8812735323872091, p90 0.5587086841694845. The steady median vetoes "faster" whatever
  //      the mean: inconclusive, and the matcher fails.
  std::vector<double> twice = tail_base;
  twice.resize(749);
  for (int i = 0; i < 251; ++i) twice.push_back(2 * twice[static_cast<std::size_t>(i)]);
  e = gauge::compare_results(result(twice), result(body_new));
  INFO(e.reason);
  CHECK(statistic_of(e, gauge::stats::Statistic::mean).interval.estimate == Approx(0.8812735323872091).epsilon(1e-12));
  CHECK(e.verdict == gauge::Verdict::inconclusive);
  CHECK_FALSE(gauge::detail::checks::no_slower_than({result(twice)}, result(body_new), 0.03, {}, false).ok);
  // (iii) A mode 15 % slower behind an unchanged one (450 x 1.00 and 550 x 1.30 ms against 450 x
  //       1.15 and 550 x 1.30): median and p90 1.0, mean 1.0579399141630899. gauge-compare says
  //       inconclusive (a mode moved); the matcher checks the mean too, and fails at 3 %.
  const auto a_m = result(join(ms(450, 1.00), ms(550, 1.30))), b_m = result(join(ms(450, 1.15), ms(550, 1.30)));
  e = gauge::compare_results(a_m, b_m);
  INFO(e.reason);
  CHECK(statistic_of(e, gauge::stats::Statistic::mean).interval.estimate == Approx(1.0579399141630899).epsilon(1e-12));
  CHECK(e.verdict == gauge::Verdict::inconclusive);
  const auto m_m = gauge::detail::checks::no_slower_than({a_m}, b_m, 0.03, {}, false);
  INFO(m_m.text);
  CHECK_FALSE(m_m.ok);
  CHECK_THAT(m_m.text, Catch::Contains("mean above 1 + 3 % where the comparison is inconclusive"));
  // 10. Two modes at any scale: 1e300 and 2e300, 1e-300 and 2e-300 (the between-group variance
  //     overflowed or underflowed).
  for (double scale : {1e300, 1e-300}) {
    const auto m = gauge::stats::find_modes(join(repeat(60, scale), repeat(40, 2 * scale)));
    CHECK(m.bimodal);
    CHECK(m.lower.n == 60);
  }
}

TEST_CASE("verdict: a bimodal step whose modes trade weight is not read as +25 %", "[compare][trust]") {
  // Base: 52 % at 1.00 ms, 48 % at 1.25 ms; new: 48 % / 52 % (4,000 samples each). NumPy: median
  // ratio 1.25, mean ratio 1.0089285714285716, deciles p10..p90 all 1.0 except p50 = 1.25;
  // scipy.stats.mannwhitneyu(base, new, method="asymptotic") -> (7680000.0, 0.0003469233380555662).
  const auto base = result(join(repeat(2080, 1.00e-3), repeat(1920, 1.25e-3)));
  const auto candidate = result(join(repeat(1920, 1.00e-3), repeat(2080, 1.25e-3)));
  const auto e = gauge::compare_results(base, candidate);
  INFO(e.reason);
  CHECK(e.bimodal);
  CHECK(e.base_modes->bimodal);
  CHECK(e.candidate_modes->bimodal);
  CHECK(e.base_modes->lower.median == 1.00e-3);
  CHECK(e.base_modes->upper.median == 1.25e-3);
  CHECK(e.base_modes->lower.weight == Approx(0.52).epsilon(1e-12));
  CHECK(e.candidate_modes->lower.weight == Approx(0.48).epsilon(1e-12));
  CHECK(statistic_of(e, gauge::stats::Statistic::mean).interval.estimate == Approx(1.0089285714285716).epsilon(1e-12));
  CHECK(e.mann_whitney->u == 7680000.0);
  CHECK(e.mann_whitney->p_value == Approx(0.0003469233380555662).epsilon(1e-9));
  CHECK(e.largest_decile_shift->first == 50);
  // The same two modes on both sides (1.00 and 1.25 ms), only their weights moved: the tails
  // (p90, p99: 1.0) decide, within 2 %: "same", never "slower". The mean (+0.89 %) is shown and
  // does not decide (a heavy tail moves it).
  CHECK(e.verdict == gauge::Verdict::same);
  CHECK(std::find(e.deciding.begin(), e.deciding.end(), gauge::stats::Statistic::median) == e.deciding.end());
  CHECK(e.reason.find("bimodal") != std::string::npos);
  CHECK(e.reason.find("the same modes, their weights moved (52 % → 48 % in the lower one)") != std::string::npos);
  // The table shows the deciding p90's change (+0.00 %), not the median's jump.
  CHECK(std::find(e.deciding.begin(), e.deciding.end(), gauge::stats::Statistic::mean) == e.deciding.end());
  gauge::Comparison c;
  c.experiments.push_back(e);
  const std::string text = gauge::compare::to_text(c);
  INFO(text);
  CHECK(text.find("p90 1.0000 [1.0000, 1.0000]       +0.00 %") != std::string::npos);
  CHECK(text.find("+25.00 %") == std::string::npos);
  CHECK(text.find("same (bimodal)") != std::string::npos);
  CHECK(gauge::compare::gate(c) == gauge::compare::GateOutcome::pass);
  // If the slow mode itself got 5 % slower (1.3125 ms), the modes no longer match: p90 and p99
  // (1.3125 / 1.25 = 1.05) decide "slower".
  const auto moved = gauge::compare_results(base, result(join(repeat(1920, 1.00e-3), repeat(2080, 1.3125e-3))));
  CHECK(moved.verdict == gauge::Verdict::slower);
}

TEST_CASE("verdict: p90 in the gap of a slow mode both sides have reads its weight, not the step", "[compare][trust]") {
  // Identical code whose slow clock state (1.10 ms against 1.00 ms) takes 5 % of the steps in one
  // run and 14 % in the next (an adversarial review: weights of 5-15 % put p90 in either mode,
  // and 13 % of identical pairs read slower or faster). NumPy (np.percentile, type 7): p90
  // 1.00 ms and 1.10 ms (ratio 1.1); new p85 1.00 ms, p95 1.10 ms (p90 sits in the gap); base
  // p85..p95 1.00..1.005 ms; mean ratio 1.008955223880597; median ratio 1.0; p99 1.10 ms both.
  const auto base = result(join(repeat(950, 1.00e-3), repeat(50, 1.10e-3)));
  const auto identical = result(join(repeat(860, 1.00e-3), repeat(140, 1.10e-3)));
  const auto e = gauge::compare_results(base, identical);
  INFO(e.reason);
  CHECK(e.bimodal);
  CHECK(statistic_of(e, gauge::stats::Statistic::p90).interval.estimate == Approx(1.1).epsilon(1e-12));
  CHECK(statistic_of(e, gauge::stats::Statistic::mean).interval.estimate == Approx(1.008955223880597).epsilon(1e-12));
  // p90 does not decide; the mean (+0.9 %) does in its place, beside the median: same.
  CHECK(std::find(e.deciding.begin(), e.deciding.end(), gauge::stats::Statistic::p90) == e.deciding.end());
  CHECK(std::find(e.deciding.begin(), e.deciding.end(), gauge::stats::Statistic::mean) != e.deciding.end());
  CHECK(std::find(e.deciding.begin(), e.deciding.end(), gauge::stats::Statistic::median) != e.deciding.end());
  CHECK(e.verdict == gauge::Verdict::same);
  CHECK(e.reason.find("p90 lies in the gap of a slow mode whose steps both sides take") != std::string::npos);
  // The Catch2 matcher agrees (it compares at its tolerance as gauge-compare does).
  CHECK(gauge::detail::checks::no_slower_than({base}, identical, 0.02, gauge::CompareOptions{}, false).ok);

  SECTION("a slow mode the base never took is a regression: p90 decides") {
    // 14 % at 1.30 ms, where the base has no step within 2 %: NumPy p90 ratio 1.3 (mean 1.0368).
    const auto moved = gauge::compare_results(base, result(join(repeat(860, 1.00e-3), repeat(140, 1.30e-3))));
    INFO(moved.reason);
    CHECK(std::find(moved.deciding.begin(), moved.deciding.end(), gauge::stats::Statistic::p90) != moved.deciding.end());
    CHECK(statistic_of(moved, gauge::stats::Statistic::p90).interval.low == Approx(1.3).epsilon(1e-12));
    CHECK(moved.verdict == gauge::Verdict::slower);
  }
  SECTION("a weight shift that costs more than the threshold is slower through the mean") {
    // 5 % → 14 % of the steps at 1.30 ms (10,000 each): NumPy p90 1.00 / 1.30 ms, base p85..p95
    // within 1.015, mean ratio 1.0266009852216749 (> 1 + 2 %): the mean decides slower.
    const auto b3 = result(join(repeat(9500, 1.00e-3), repeat(500, 1.30e-3)));
    const auto n3 = result(join(repeat(8600, 1.00e-3), repeat(1400, 1.30e-3)));
    const auto c3 = gauge::compare_results(b3, n3);
    INFO(c3.reason);
    CHECK(std::find(c3.deciding.begin(), c3.deciding.end(), gauge::stats::Statistic::p90) == c3.deciding.end());
    CHECK(statistic_of(c3, gauge::stats::Statistic::mean).interval.estimate == Approx(1.0266009852216749).epsilon(1e-12));
    CHECK(statistic_of(c3, gauge::stats::Statistic::mean).interval.low > 1.02);
    CHECK(c3.verdict == gauge::Verdict::slower);
  }
}

TEST_CASE("verdict: a tail at the edge of a gap confirms nothing, and the mean decides in its place", "[compare][trust]") {
  // New-user friction 7: a host step with 10 % slow calls failed no_slower_than against its own
  // baseline ("cannot confirm"): p90 sits at the gap's edge, so its bootstrap interval reaches
  // across the gap. 3,600 steps at 1.0 ms and 400 at 2.0 ms on both sides. NumPy (type 7): p90
  // 1.1 ms on each side (rank 3599.1 between 1.0 and 2.0), p85 1.0 and p95 2.0 ms (the tail spans
  // the gap), mean 1.1 ms, ratios 1.0; the median 1.0 ms, steady (p25..p75 all 1.0 ms).
  const auto base = result(join(repeat(3600, 1.0e-3), repeat(400, 2.0e-3)));
  const auto e = gauge::compare_results(base, base);
  INFO(e.reason);
  CHECK(e.bimodal);
  CHECK(statistic_of(e, gauge::stats::Statistic::p90).interval.estimate == Approx(1.0).epsilon(1e-12));
  // p90's interval reaches across 1 ± t, so it does not decide; the mean does, beside the median.
  const auto& p90 = statistic_of(e, gauge::stats::Statistic::p90).interval;
  CHECK((p90.low < 0.98 || p90.high > 1.02));
  CHECK(std::find(e.deciding.begin(), e.deciding.end(), gauge::stats::Statistic::p90) == e.deciding.end());
  CHECK(std::find(e.deciding.begin(), e.deciding.end(), gauge::stats::Statistic::mean) != e.deciding.end());
  CHECK(e.verdict == gauge::Verdict::same);
  CHECK_THAT(e.reason, Catch::Contains("p90 sits at the edge of a gap between modes (its interval reaches across it)"));
  // The matcher confirms: the mean's interval (sd 0.3 ms over 4,000 steps a side) lies within 1 ± 2 %.
  const auto check = gauge::detail::checks::no_slower_than({base}, base, 0.02, gauge::CompareOptions{}, false);
  INFO(check.text);
  CHECK(check.ok);

  SECTION("a slow mode that moved still reads slower, through the mean") {
    // The slow mode at 2.6 ms (+30 %), the base has no step near it: NumPy mean ratio
    // (0.9 * 1.0 + 0.1 * 2.6) / 1.1 = 1.0545454545454545.
    const auto moved = gauge::compare_results(base, result(join(repeat(3600, 1.0e-3), repeat(400, 2.6e-3))));
    INFO(moved.reason);
    CHECK(statistic_of(moved, gauge::stats::Statistic::mean).interval.estimate == Approx(1.0545454545454545).epsilon(1e-12));
    CHECK(moved.verdict == gauge::Verdict::slower);
    CHECK_FALSE(gauge::detail::checks::no_slower_than({base}, result(join(repeat(3600, 1.0e-3), repeat(400, 2.6e-3))), 0.02,
                                                      gauge::CompareOptions{}, false)
                    .ok);
  }
}

TEST_CASE("verdict: p99 in a continuous tail confirms nothing, and the matcher does not fail a step against itself", "[compare][trust]") {
  // An adversarial review (helper-15 #4) and bench/verdict_mc.py: GPU steps whose last percents
  // form a tail (no second mode) put p99 where few steps lie, its bootstrap interval reaches across
  // 1 + t, and no_slower_than failed identical code 199 times in 200. 970 steps at 1.0 ms and 30
  // slower by 0.2 ms x an exponential quantile, (j + 0.5) / 30. NumPy (type 7): p98.5 1.132,
  // p99 1.210, p99.5 1.339 us x 1000 (the tail is unsteady: 1.339 / 1.132 > 1.02), mean
  // 1.005930963 ms; against itself every ratio is 1, and x 1.03 every ratio is 1.03.
  std::vector<double> tail;
  for (int j = 0; j < 30; ++j) tail.push_back(1.0e-3 * (1 + 0.2 * -std::log(1 - (j + 0.5) / 30)));
  const auto steps = join(repeat(970, 1.0e-3), tail);
  const auto base = result(steps);
  CHECK(gauge::stats::percentile_sorted(steps, 99) == Approx(1.210e-3).epsilon(1e-3));
  const auto e = gauge::compare_results(base, base);
  INFO(e.reason);
  CHECK_FALSE(e.bimodal);
  CHECK(std::find(e.deciding.begin(), e.deciding.end(), gauge::stats::Statistic::p99) == e.deciding.end());
  CHECK(std::find(e.deciding.begin(), e.deciding.end(), gauge::stats::Statistic::mean) != e.deciding.end());
  CHECK(e.verdict == gauge::Verdict::same);
  CHECK_THAT(e.reason, Catch::Contains("p99 sits among a tail or a slow minority of steps both sides take"));
  const auto self = gauge::detail::checks::no_slower_than({base}, base, 0.02, gauge::CompareOptions{}, false);
  INFO(self.text);
  CHECK(self.ok);

  SECTION("the whole step 3 % slower is slower, and 3 % faster passes the matcher") {
    std::vector<double> scaled = steps;
    for (double& x : scaled) x *= 1.03;
    const auto slow = result(scaled);
    const auto up = gauge::compare_results(base, slow);
    INFO(up.reason);
    CHECK(statistic_of(up, gauge::stats::Statistic::mean).interval.estimate == Approx(1.03).epsilon(1e-12));
    CHECK(up.verdict == gauge::Verdict::slower);
    CHECK_FALSE(gauge::detail::checks::no_slower_than({base}, slow, 0.02, gauge::CompareOptions{}, false).ok);
    const auto down = gauge::detail::checks::no_slower_than({slow}, base, 0.02, gauge::CompareOptions{}, false);
    INFO(down.text);
    CHECK(down.ok);
  }
}

TEST_CASE("verdict: a new slow minority of 1 % of the steps is not same, though the median and p90 stay", "[compare][trust]") {
  // helper-15 #4: 1 % of the steps at 4x the body, new on one side, moves the mean by 3 % and read
  // `same`. 1000 steps at 1.0 ms against 990 at 1.0 and 10 at 4.0 ms. NumPy (type 7): new p98.5
  // 1.0, p99 1.03, p99.5 4.0 ms (its p99 spans the gap; the base has no step near 4.0 ms); mean
  // ratio 1.03. p99 stays deciding (only one side has the slow steps) and its interval reaches
  // across 1.02 with the estimate beyond it: it cannot confirm what it reads: inconclusive, and
  // the matcher fails (helper-16 #1: dropping it let the matcher pass such tails).
  const auto base = result(repeat(1000, 1.0e-3));
  const auto minority = result(join(repeat(990, 1.0e-3), repeat(10, 4.0e-3)));
  const auto e = gauge::compare_results(base, minority);
  INFO(e.reason);
  CHECK(statistic_of(e, gauge::stats::Statistic::p99).interval.estimate == Approx(1.03).epsilon(1e-12));
  CHECK(statistic_of(e, gauge::stats::Statistic::mean).interval.estimate == Approx(1.03).epsilon(1e-12));
  CHECK(std::find(e.deciding.begin(), e.deciding.end(), gauge::stats::Statistic::p99) != e.deciding.end());
  CHECK(e.verdict == gauge::Verdict::inconclusive);
  CHECK_THAT(e.reason, Catch::Contains("p99 sits at the edge of slow steps only one side has"));
  CHECK_FALSE(gauge::detail::checks::no_slower_than({base}, minority, 0.02, gauge::CompareOptions{}, false).ok);

  SECTION("a slow minority both sides take that grew 1 % -> 3 % is not same") {
    // helper-16 #2: 990/10 against 970/30 steps at 1.0/4.0 ms. NumPy: mean ratio 1090 / 1030 =
    // 1.058252427184466; base p98.5 1.0, p99.5 4.0 ms (its p99 spans), the new side's slowest
    // step 4.0 ms (it takes the base's slow steps): p99 gives way to the mean, whose interval
    // excludes 1 with the estimate beyond 1.02 but reaches below 1.02: inconclusive, not same.
    const auto one = result(join(repeat(990, 1.0e-3), repeat(10, 4.0e-3)));
    const auto three = result(join(repeat(970, 1.0e-3), repeat(30, 4.0e-3)));
    const auto g = gauge::compare_results(one, three);
    INFO(g.reason);
    const auto& mean = statistic_of(g, gauge::stats::Statistic::mean).interval;
    CHECK(mean.estimate == Approx(1.058252427184466).epsilon(1e-12));
    CHECK(std::find(g.deciding.begin(), g.deciding.end(), gauge::stats::Statistic::p99) == g.deciding.end());
    CHECK(g.verdict != gauge::Verdict::same);
    CHECK_FALSE(gauge::detail::checks::no_slower_than({one}, three, 0.02, gauge::CompareOptions{}, false).ok);
  }
}

TEST_CASE("verdict: tails are compared after the body's move, so a step faster in both clock states is not slower by p90", "[compare][trust]") {
  // An adversarial review (helper-14 #5): both clock states 2.5 % faster (1.00/1.10 ms ->
  // 0.975/1.0725 ms) while the slow state's weight drifted 5 % -> 13 % put p90 in the body on one
  // side and the slow state on the other: `slower` by p90 +7 %. NumPy (type 7): medians 1.0 and
  // 0.975 ms (ratio 0.975); base p90 1.0 ms, new p90 1.0725 ms (ratio 1.0725); new p85 0.975,
  // p95 1.0725 (the tail spans); mean ratio (870 * 0.975 + 130 * 1.0725) / (950 * 1.0 + 50 * 1.1)
  // = 0.9827611940298508. After the body's move (x 0.975) the base's p90 is a value the new side
  // takes, and the new side's ends (0.975, 1.0725) / 0.975 = (1.0, 1.1) ms are values the base takes.
  const auto base = result(join(repeat(950, 1.00e-3), repeat(50, 1.10e-3)));
  const auto faster = result(join(repeat(870, 0.975e-3), repeat(130, 1.0725e-3)));
  const auto e = gauge::compare_results(base, faster);
  INFO(e.reason);
  CHECK(statistic_of(e, gauge::stats::Statistic::p90).interval.estimate == Approx(1.0725).epsilon(1e-12));
  CHECK(statistic_of(e, gauge::stats::Statistic::mean).interval.estimate == Approx(0.9827611940298508).epsilon(1e-12));
  CHECK(std::find(e.deciding.begin(), e.deciding.end(), gauge::stats::Statistic::p90) == e.deciding.end());
  CHECK(e.verdict != gauge::Verdict::slower);
  // The matcher passes the faster side against the base.
  const auto check = gauge::detail::checks::no_slower_than({base}, faster, 0.02, gauge::CompareOptions{}, false);
  INFO(check.text);
  CHECK(check.ok);

  SECTION("a slow state that became slower still decides through p90") {
    // The body 2.5 % faster but the slow state at 1.30 ms: 1.30 / 0.975 = 1.333 ms, no base step near.
    const auto worse = gauge::compare_results(base, result(join(repeat(870, 0.975e-3), repeat(130, 1.30e-3))));
    INFO(worse.reason);
    CHECK(std::find(worse.deciding.begin(), worse.deciding.end(), gauge::stats::Statistic::p90) != worse.deciding.end());
    CHECK(worse.verdict == gauge::Verdict::slower);
  }
}

TEST_CASE("verdict: a side whose rounds alternate between two modes equals itself", "[compare][trust]") {
  // An adversarial review of a rule tried and withdrawn (the round effect from the rounds' means
  // for a 50/50 side: identical 50/50 pairs with 16 rounds read `same` 53 of 100 against 96):
  // 16 rounds of 100 steps, each round wholly 1.0 ms or wholly 2.0 ms, alternating, against
  // itself. p90 and p99 lie in the slow mode on both sides (ratio 1 by hand), and the verdict
  // is `same`; the matcher confirms.
  std::vector<double> steps;
  for (int round = 0; round < 16; ++round) {
    const auto r = repeat(100, round % 2 ? 2.0e-3 : 1.0e-3);
    steps.insert(steps.end(), r.begin(), r.end());
  }
  auto side = result(steps);
  side.sampling.round_samples.assign(16, 100);
  const auto e = gauge::compare_results(side, side);
  INFO(e.reason);
  CHECK(statistic_of(e, gauge::stats::Statistic::p90).interval.estimate == Approx(1.0).epsilon(1e-12));
  CHECK(e.verdict == gauge::Verdict::same);
  const auto check = gauge::detail::checks::no_slower_than({side}, side, 0.02, gauge::CompareOptions{}, false);
  INFO(check.text);
  CHECK(check.ok);
}

TEST_CASE("verdict: a mean that overflowed decides nothing, and the matcher does not pass on it", "[compare][trust]") {
  // An adversarial review: 900 steps at 1e300 s and 100 at 1.7e308 s a side; the mean's sum
  // overflows (inf / inf: NaN), so it may not take the place of p90, and a NaN bound never passes.
  const auto side = result(join(repeat(900, 1e300), repeat(100, 1.7e308)));
  const auto e = gauge::compare_results(side, side);
  INFO(e.reason);
  const auto check = gauge::detail::checks::no_slower_than({side}, side, 0.02, gauge::CompareOptions{}, false);
  INFO(check.text);
  for (const auto& s : e.statistics)
    if (std::find(e.deciding.begin(), e.deciding.end(), s.statistic) != e.deciding.end() && !std::isfinite(s.interval.high))
      CHECK_FALSE(check.ok);
  CHECK(std::find(e.deciding.begin(), e.deciding.end(), gauge::stats::Statistic::mean) == e.deciding.end());
}

TEST_CASE("verdict: a real shift smaller than the threshold stays same, a larger one is slower", "[compare][trust]") {
  // 2,000 evenly spread values in [1.000, 1.010) ms; new = base x 1.01 (+1 %), then x 1.05 (+5 %).
  std::vector<double> base, small, large;
  for (int i = 0; i < 2000; ++i) {
    const double v = 1.0e-3 * (1.0 + 0.01 * (i + 0.5) / 2000.0);
    base.push_back(v);
    small.push_back(v * 1.01);
    large.push_back(v * 1.05);
  }
  auto e = gauge::compare_results(result(base), result(small));
  INFO(e.reason);
  CHECK(e.mann_whitney->p_value < 1e-10);  // the U test rejects: the shift is real...
  CHECK(e.verdict == gauge::Verdict::same);  // ...but below the 2 % threshold
  // The reason says what the small p beside "same" means (a new user read it as a contradiction).
  CHECK_THAT(e.reason, Catch::Contains("< 0.05: the distributions differ, by less than the 2 % that counts"));
  CHECK(statistic_of(e, gauge::stats::Statistic::mean).interval.estimate == Approx(1.01).epsilon(1e-12));
  // Identical sides: p = 1, nothing to explain.
  CHECK_THAT(gauge::compare_results(result(base), result(base)).reason, !Catch::Contains("the distributions differ"));
  e = gauge::compare_results(result(base), result(large));
  CHECK(e.verdict == gauge::Verdict::slower);
  for (const auto& s : e.statistics) CHECK(s.interval.low > 1.02);
  e = gauge::compare_results(result(large), result(base));
  CHECK(e.verdict == gauge::Verdict::faster);
}

TEST_CASE("verdict: a moved body of the distribution vetoes same", "[compare][trust]") {
  // Base: 1,000 values evenly spread over [1.0, 1.1] ms (u_i = (i + 0.5) / 1000, base_i =
  // 1 + 0.1 u_i); new_i = base_i (1 - 0.04 (1 - u_i)^2): the fast half got up to 4 % faster, the
  // slow end unchanged; one broad mode on both sides. NumPy: mean ratio 0.98698413, median ratio
  // 0.99, p90 0.9995967900660575, p10 0.9676287906415588 (the largest decile shift, -3.24 %);
  // scipy.stats.mannwhitneyu(base, new, method="asymptotic") -> (589854.0, 3.4444519203949165e-12).
  // Median, mean and p90 are within 1 +- 2 %, but p10 moved beyond it: not "same".
  std::vector<double> base, candidate;
  for (int i = 0; i < 1000; ++i) {
    const double u = (i + 0.5) / 1000;
    base.push_back(1e-3 * (1 + 0.1 * u));
    candidate.push_back(base.back() * (1 - 0.04 * (1 - u) * (1 - u)));
  }
  const auto e = gauge::compare_results(result(base), result(candidate));
  INFO(e.reason);
  CHECK_FALSE(e.bimodal);
  CHECK(statistic_of(e, gauge::stats::Statistic::mean).interval.estimate == Approx(0.98698413).epsilon(1e-8));
  CHECK(statistic_of(e, gauge::stats::Statistic::median).interval.estimate == Approx(0.9899999909523809).epsilon(1e-12));
  CHECK(e.largest_decile_shift->first == 10);
  CHECK(e.largest_decile_shift->second == Approx(0.9676287906415588 - 1).epsilon(1e-10));
  CHECK(e.mann_whitney->u == 589854.0);
  CHECK(e.mann_whitney->p_value == Approx(3.4444519203949165e-12).epsilon(1e-6));
  CHECK(e.verdict == gauge::Verdict::inconclusive);
  CHECK(e.reason.find("p10 moved -3.24 %") != std::string::npos);
  // Two values only (200 x 0.95 ms, 800 x 1.00 ms against 1,000 x 1.00 ms): a new mode appeared
  // on one side; the same veto, named so. mannwhitneyu -> p = 3.1361053807143556e-50.
  const auto two = gauge::compare_results(result(repeat(1000, 1.0e-3)), result(join(repeat(200, 0.95e-3), repeat(800, 1.0e-3))));
  CHECK(two.candidate_modes->bimodal);
  CHECK(two.mann_whitney->p_value == Approx(3.1361053807143556e-50).epsilon(1e-6));
  CHECK(two.verdict == gauge::Verdict::inconclusive);
  CHECK(two.reason.find("a mode appeared, vanished or moved") != std::string::npos);
}

TEST_CASE("verdict: without stored samples, the summaries' median intervals decide", "[compare][trust]") {
  gauge::Result base, candidate;
  base.name = candidate.name = "step";
  base.gpu_time.n = 1000;  // a summary of 1,000 samples that were not stored (n = 0 would be no median at all)
  base.gpu_time.p50 = 1.0e-3;
  base.gpu_time.median_ci = gauge::stats::ConfidenceInterval{};
  base.gpu_time.median_ci->low = 0.999e-3;
  base.gpu_time.median_ci->high = 1.001e-3;
  base.gpu_time.median_ci->level = 0.95;
  candidate.gpu_time = base.gpu_time;
  // Same summaries: [0.999 / 1.001, 1.001 / 0.999] = [0.998002, 1.002002], within 1 +- 2 %.
  auto e = gauge::compare_results(base, candidate);
  INFO(e.reason);
  CHECK(e.from_summary);
  CHECK(e.verdict == gauge::Verdict::same);
  CHECK(e.ratio->low == Approx(0.999 / 1.001).epsilon(1e-12));
  CHECK(e.ratio->high == Approx(1.001 / 0.999).epsilon(1e-12));
  CHECK(e.ratio->level == Approx(0.90).epsilon(1e-12));  // >= 1 - 2 x 5 %
  // New median 1.1 ms [1.099, 1.101]: low 1.099 / 1.001 > 1.02: slower.
  candidate.gpu_time.p50 = 1.1e-3;
  candidate.gpu_time.median_ci->low = 1.099e-3;
  candidate.gpu_time.median_ci->high = 1.101e-3;
  e = gauge::compare_results(base, candidate);
  CHECK(e.verdict == gauge::Verdict::slower);
  gauge::Comparison written;
  written.experiments = {e};
  CHECK(nlohmann::json(written)["experiments"][0]["ratio"]["method"].get<std::string>().rfind("from the stored summaries", 0) == 0);
  // At 99 % asked, intervals stored at 95 % cannot decide: inconclusive, saying so.
  gauge::CompareOptions strict;
  strict.confidence_level = 0.99;
  e = gauge::compare_results(base, candidate, strict);
  INFO(e.reason);
  CHECK(e.verdict == gauge::Verdict::inconclusive);
  // [1.099 / 1.001, 1.101 / 0.999] = [1.0979, 1.1021] at >= 90 %: above 1 + 2 % there, said, not claimed.
  CHECK(e.reason.find("[1.0979, 1.1021] at >= 90 % (at that level it lies above 1 + 2 %: slower): both sides' stored "
                      "intervals of the median are at 95 % and 95 %, below the 99 % asked; measure at the level asked") !=
        std::string::npos);
  // One side short: only that side is named.
  candidate.gpu_time.median_ci->level = 0.99;
  e = gauge::compare_results(base, candidate, strict);
  CHECK(e.verdict == gauge::Verdict::inconclusive);
  CHECK(e.reason.find(": the base side's stored interval of the median is at 95 %, below the 99 % asked") != std::string::npos);
  // Stored at 99 % each, they decide at 99 % (the interval at >= 98 %).
  base.gpu_time.median_ci->level = candidate.gpu_time.median_ci->level = 0.99;
  e = gauge::compare_results(base, candidate, strict);
  CHECK(e.verdict == gauge::Verdict::slower);
  CHECK(e.ratio->level == Approx(0.98).epsilon(1e-12));
  base.gpu_time.median_ci->level = 0.95;
  // Same medians, but the new p99 is 3x the base's: no interval without samples, so not "same".
  candidate.gpu_time = base.gpu_time;
  base.gpu_time.p99 = 1.1e-3;
  candidate.gpu_time.p99 = 3.3e-3;
  e = gauge::compare_results(base, candidate);
  CHECK(e.verdict == gauge::Verdict::inconclusive);
  CHECK(e.reason.find("p99 3.0000") != std::string::npos);
  // No samples and no summary interval: inconclusive, and the gate fails unless allowed.
  base.gpu_time = candidate.gpu_time = gauge::Summary{};
  e = gauge::compare_results(base, candidate);
  CHECK(e.verdict == gauge::Verdict::inconclusive);
  CHECK(e.reason.find("too few samples: n = 0 (base) and 0 (new)") != std::string::npos);
  gauge::Comparison c;
  c.experiments.push_back(e);
  CHECK(gauge::compare::gate(c) == gauge::compare::GateOutcome::inconclusive);
  // Zero samples: not a time, inconclusive.
  e = gauge::compare_results(result(repeat(50, 0.0)), result(repeat(50, 0.0)));
  CHECK(e.verdict == gauge::Verdict::inconclusive);
  // Nothing compared at all is inconclusive too.
  CHECK(gauge::compare::gate(gauge::Comparison{}) == gauge::compare::GateOutcome::inconclusive);
}

TEST_CASE("gate: not comparable fails unless allowed, and a regression wins over everything", "[compare][trust]") {
  std::vector<double> a;
  for (int i = 0; i < 200; ++i) a.push_back(1.0e-3 * (1 + 0.001 * (i % 10)));
  gauge::Comparison c;
  c.experiments.push_back(gauge::compare_results(result(a), result(a)));
  REQUIRE(c.experiments[0].verdict == gauge::Verdict::same);
  CHECK(gauge::compare::gate(c) == gauge::compare::GateOutcome::pass);
  c.environment_differences.push_back({"GPU 0 name", "NVIDIA H200", "NVIDIA H100", true});
  CHECK_FALSE(c.comparable());
  CHECK(gauge::compare::gate(c) == gauge::compare::GateOutcome::not_comparable);
  CHECK(gauge::compare::gate(c, true) == gauge::compare::GateOutcome::pass);
  c.only_in_base.push_back("gone");
  CHECK(gauge::compare::gate(c) == gauge::compare::GateOutcome::regression);
  CHECK(std::string(gauge::to_string(gauge::compare::GateOutcome::not_comparable)) == "not_comparable");
}

TEST_CASE("two-sample: the joint bootstrap's median equals bootstrap_median_ratio, mean and p90 by hand", "[compare]") {
  const std::vector<double> x = {1.021, 0.987, 1.112, 0.953, 1.045, 1.003, 0.972, 1.088, 1.015, 0.995, 1.061};
  const std::vector<double> y = {1.102, 1.075, 1.160, 1.051, 1.133, 1.089, 1.121, 1.067, 1.098, 1.145, 1.083, 1.110, 1.058};
  const auto joint = gauge::stats::bootstrap_ratios(x, y, {gauge::stats::Statistic::mean, gauge::stats::Statistic::median}, 0.9, 5000, 3);
  const auto alone = gauge::stats::bootstrap_median_ratio(x, y, 0.9, 5000, 3);
  CHECK(joint[1].interval.low == alone.low);
  CHECK(joint[1].interval.high == alone.high);
  // np.mean(y) / np.mean(x) = 1.0747627772156745 (sum(y) = 14.292, sum(x) = 11.252).
  CHECK(joint[0].interval.estimate == Approx(1.0747627772156745).epsilon(1e-12));
  // By hand: base {1, 1, 1, 1} is constant; a resample of {1, 2} has mean 1, 1.5 or 2 and p90
  // (type 7: 1 + 0.9 (x(2) - x(1))) 1, 1.9 or 2, with probabilities 1/4, 1/2, 1/4: the 0.3 and
  // 0.7 quantiles of the ratios are 1.5 (mean) and 1.9 (p90); 0.2 and 0.8 quantiles: 1 and 2.
  auto r = gauge::stats::bootstrap_ratios({1, 1, 1, 1}, {1, 2}, {gauge::stats::Statistic::mean, gauge::stats::Statistic::p90}, 0.4, 20000, 4);
  CHECK(r[0].interval.estimate == 1.5);
  CHECK(r[0].interval.low == 1.5);
  CHECK(r[0].interval.high == 1.5);
  CHECK(r[1].interval.estimate == Approx(1.9).epsilon(1e-15));
  CHECK(r[1].interval.low == Approx(1.9).epsilon(1e-15));
  CHECK(r[1].interval.high == Approx(1.9).epsilon(1e-15));
  r = gauge::stats::bootstrap_ratios({1, 1, 1, 1}, {2, 1}, {gauge::stats::Statistic::mean, gauge::stats::Statistic::p90}, 0.6, 20000, 5);
  CHECK(r[0].interval.low == 1.0);
  CHECK(r[0].interval.high == 2.0);
  CHECK(r[1].interval.low == 1.0);
  CHECK(r[1].interval.high == 2.0);
  CHECK_THROWS_AS(gauge::stats::bootstrap_ratios(x, y, {}), gauge::ConfigError);
  try {
    gauge::stats::bootstrap_median_ratio({}, y);
    FAIL("no exception");
  } catch (const gauge::ConfigError& e) {
    CHECK(std::string(e.what()).find("bootstrap_median_ratio: base is empty") != std::string::npos);
  }
}

TEST_CASE("two-sample: find_modes splits two modes and leaves one broad mode alone", "[compare]") {
  // Unimodal: 1,000 quantiles of a normal (scipy.stats.norm.ppf((i + 0.5) / 1000)) — the Otsu
  // split is at the mean and 26 % of the values lie in the middle half between the halves'
  // medians; a uniform grid: 25 %; an exponential's quantiles: ~23 %. None is bimodal.
  std::vector<double> normal, uniform, expo;
  for (int i = 0; i < 1000; ++i) {
    const double p = (i + 0.5) / 1000;
    // Inverse normal CDF by bisection on std::erfc (independent of the code under test).
    double lo = -10, hi = 10;
    for (int k = 0; k < 200; ++k) {
      const double mid = (lo + hi) / 2;
      (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
    }
    normal.push_back(10 + lo);
    uniform.push_back(1 + p);
    expo.push_back(1 - std::log(1 - p));
  }
  for (const auto* v : {&normal, &uniform, &expo}) {
    const auto m = gauge::stats::find_modes(*v);
    INFO("middle fraction " << m.middle_fraction);
    CHECK_FALSE(m.bimodal);
    CHECK(m.middle_fraction > 0.2);
  }
  // Two tight modes: 700 values around 1.0 and 300 around 2.0 (+-1 %): bimodal, weights 0.7 / 0.3.
  std::vector<double> two;
  for (int i = 0; i < 700; ++i) two.push_back(1.0 + 0.01 * (i - 350) / 350.0);
  for (int i = 0; i < 300; ++i) two.push_back(2.0 + 0.01 * (i - 150) / 150.0);
  auto m = gauge::stats::find_modes(two);
  CHECK(m.bimodal);
  CHECK(m.lower.n == 700);
  CHECK(m.upper.n == 300);
  CHECK(m.lower.median == Approx(1.0).margin(1e-4));
  CHECK(m.upper.median == Approx(2.0).margin(1e-4));
  CHECK(m.middle_fraction == 0);
  // Outliers are a tail, not a mode: 1 % at 5.0.
  auto tail = join(repeat(990, 1.0), repeat(10, 5.0));
  CHECK_FALSE(gauge::stats::find_modes(tail).bimodal);
  // Quantization: 90 % at 10 us and 10 % at 11 us with a 1 us clock are one mode seen through
  // the clock (medians 1 us apart, not more than two ticks); without the clock, two modes.
  auto quantized = join(repeat(900, 10e-6), repeat(100, 11e-6));
  CHECK_FALSE(gauge::stats::find_modes(quantized, 2e-6).bimodal);
  CHECK(gauge::stats::find_modes(quantized).bimodal);
  // Fewer than 20 values: never bimodal.
  CHECK_FALSE(gauge::stats::find_modes(join(repeat(10, 1.0), repeat(9, 2.0))).bimodal);
  CHECK_THROWS_AS(gauge::stats::find_modes({2.0, 1.0}), gauge::ConfigError);
}

TEST_CASE("verdict: a result whose diagnosis says its time is wrong gets no verdict", "[compare][trust]") {
  // The step launched its work on another stream: the events timed nothing (0.05 us per step).
  const auto base = result(repeat(100, 1.0e-3));
  auto candidate = result(repeat(100, 0.05e-6));
  gauge::Warning w;
  w.code = "work_not_on_stream";
  w.severity = gauge::Severity::error;
  candidate.warnings.push_back(w);
  const auto e = gauge::compare_results(base, candidate);
  CHECK(e.verdict == gauge::Verdict::inconclusive);  // not "faster" by 20,000x
  CHECK(e.reason.find("the new result carries an error warning (work_not_on_stream)") != std::string::npos);
}

TEST_CASE("verdict: one descheduled sample does not make a report differ from itself", "[compare][trust]") {
  // 200 samples of 3.3 us and one of 3.3 ms (the thread was descheduled): the bootstrap interval
  // of the mean's ratio is wide (a resample holds the outlier 0 to 4 times), but its estimate is
  // exactly 1: the report compared with itself is "same", and a slower copy is still "slower".
  std::vector<double> x(200, 3.3e-6);
  x.push_back(3.3e-3);
  const auto e = gauge::compare_results(result(x), result(x));
  INFO(e.reason);
  CHECK(statistic_of(e, gauge::stats::Statistic::mean).interval.high > 1.5);
  CHECK(statistic_of(e, gauge::stats::Statistic::mean).interval.estimate == 1.0);
  CHECK(e.verdict == gauge::Verdict::same);
  std::vector<double> slower = x;
  for (auto& v : slower) v *= 1.1;
  CHECK(gauge::compare_results(result(x), result(slower)).verdict == gauge::Verdict::slower);
}

TEST_CASE("compare_reports: Timers are compared per step and per region from their window summaries", "[compare][timer]") {
  // Base window: 100 steps of 1.000..1.009 ms; new: the same x 1.10 for the step, unchanged for
  // "forward"; "backward" only in the base. A Timer keeps no per-step samples, so the summaries'
  // median intervals decide: [lo_new / hi_base, hi_new / lo_base], computed here from the summaries.
  std::vector<double> x;
  for (int i = 0; i < 100; ++i) x.push_back(1.0e-3 * (1 + 0.001 * (i % 10)));
  std::vector<double> y = x;
  for (auto& v : y) v *= 1.10;
  auto timer = [](const std::vector<double>& step, const std::vector<double>& forward, bool backward) {
    gauge::TimerSummary t;
    t.name = "train";
    t.backend = "cuda";
    t.window.gpu_time_s = gauge::stats::summarize(step);
    gauge::records::TimerRegionSummary r;
    r.name = "forward";
    r.window.time_per_step_s = gauge::stats::summarize(forward);
    t.regions.push_back(r);
    if (backward) {
      r.name = "backward";
      t.regions.push_back(r);
    }
    return t;
  };
  gauge::StoredReport base, candidate;
  base.timers.push_back(timer(x, x, true));
  candidate.timers.push_back(timer(y, x, false));
  const auto c = gauge::compare_reports(base, candidate);
  REQUIRE(c.experiments.size() == 2);
  const auto& step = c.experiments[0];
  INFO(step.reason);
  CHECK(step.label == "timer:train/step");
  CHECK(step.from_summary);
  const auto& cb = *base.timers[0].window.gpu_time_s.median_ci;
  const auto& cn = *candidate.timers[0].window.gpu_time_s.median_ci;
  CHECK(step.ratio->low == Approx(cn.low / cb.high).epsilon(1e-12));
  CHECK(step.ratio->high == Approx(cn.high / cb.low).epsilon(1e-12));
  CHECK(step.ratio->low > 1.02);
  CHECK(step.verdict == gauge::Verdict::slower);
  CHECK(c.experiments[1].label == "timer:train/forward");
  CHECK(c.experiments[1].verdict == gauge::Verdict::same);
  REQUIRE(c.only_in_base.size() == 1);
  CHECK(c.only_in_base[0] == "timer:train/backward");
  CHECK(c.any_regression());
  CHECK(gauge::compare::to_text(c).find("timer:train/step") != std::string::npos);
  CHECK(c.experiments[1].reason.find("tails not tested") != std::string::npos);  // not "store samples"
  CHECK(c.experiments[1].reason.find("store samples") == std::string::npos);

  // What a Timer cannot give says so, instead of an experiment's advice (helper-20): the step's
  // wall time decides --metric wall (a region has none), there is no CPU time, and a window of 3
  // steps has no 95 % interval of its median (6 needed: the distribution-free interval).
  base.timers[0].window.wall_time_s = base.timers[0].window.gpu_time_s;
  candidate.timers[0].window.wall_time_s = candidate.timers[0].window.gpu_time_s;
  gauge::CompareOptions wall;
  wall.metric = gauge::Metric::wall_time;
  const auto w = gauge::compare_reports(base, candidate, wall);
  CHECK(w.experiments[0].verdict == gauge::Verdict::slower);
  CHECK(w.experiments[0].ratio->low == Approx(cn.low / cb.high).epsilon(1e-12));
  CHECK(w.experiments[1].verdict == gauge::Verdict::inconclusive);
  CHECK(w.experiments[1].reason == "a Timer region has no wall time of its own: the step row has the Timer's wall time per step");
  gauge::CompareOptions cpu;
  cpu.metric = gauge::Metric::cpu_time;
  for (const auto& e : gauge::compare_reports(base, candidate, cpu).experiments) {
    CHECK(e.verdict == gauge::Verdict::inconclusive);
    CHECK(e.reason.rfind("a Timer records no process CPU time", 0) == 0);
  }
  {  // several reports per side: the Timers of the first of each are compared, and a note says so
    gauge::StoredReport b2 = base, c2 = candidate;
    base.source = "b1.json", b2.source = "b2.json", candidate.source = "n1.json", c2.source = "n2.json";
    const auto runs = gauge::compare_reports(std::vector<gauge::StoredReport>{base, b2}, std::vector<gauge::StoredReport>{candidate, c2});
    CHECK(runs.experiments.size() == 2);
    CHECK(std::find(runs.notes.begin(), runs.notes.end(),
                    "Timers: compared from the first report of each side (b1.json, n1.json); a Timer's runs are not pooled") !=
          runs.notes.end());
    CHECK(std::none_of(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.rfind("Timers:", 0) == 0; }));
  }
  gauge::StoredReport few_a, few_b;
  few_a.timers.push_back(timer({1e-3, 1.1e-3, 1.2e-3}, {1e-3, 1.1e-3, 1.2e-3}, false));
  few_b.timers.push_back(timer({1e-3, 1.1e-3, 1.2e-3}, {1e-3, 1.1e-3, 1.2e-3}, false));
  for (const auto& e : gauge::compare_reports(few_a, few_b).experiments) {
    CHECK(e.verdict == gauge::Verdict::inconclusive);
    CHECK(e.reason == "the Timers' windows hold 3 (base) and 3 (new) steps after warm-up; 6 or more per side give a "
                      "95 % interval of the median: run more steps");
  }
}

}  // namespace gauge_test_compare_verdict
