// The comparison's verdicts on simulated pairs (bench/verdict_mc.py builds and drives this).
// stdin, per pair: "backend n_base n_new threshold tolerance", then the base's samples, then the
// new side's (seconds). stdout, one line per pair: the verdict base→new, the verdict new→base,
// and whether `catch2::no_slower_than` (its check, gauge/report/checks.hpp) passes each way.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "gauge/report/checks.hpp"
#include "gauge/report/compare.hpp"

int main() {
  std::ios::sync_with_stdio(false);
  std::string backend;
  std::size_t na = 0, nb = 0;
  double threshold = 0, tolerance = 0;
  while (std::cin >> backend >> na >> nb >> threshold >> tolerance) {
    std::vector<double> a(na), b(nb);
    for (auto& x : a) std::cin >> x;
    for (auto& x : b) std::cin >> x;
    gauge::Result ra, rb;
    ra.name = rb.name = "step";
    ra.backend = rb.backend = backend;
    ra.gpu_samples_s = a;
    rb.gpu_samples_s = b;
    gauge::CompareOptions o;
    o.threshold = threshold;
    std::string line;
    for (int swap = 0; swap < 2; ++swap) {
      const gauge::Result& base = swap ? rb : ra;
      const gauge::Result& candidate = swap ? ra : rb;
      try {
        const auto e = gauge::compare_results(base, candidate, o);
        const auto m = gauge::detail::checks::no_slower_than({base}, candidate, tolerance, gauge::CompareOptions{}, false);
        line += std::string(gauge::to_string(e.verdict)) + (m.ok ? " pass " : " fail ");
      } catch (const std::exception&) {
        line += "error error ";
      }
    }
    std::cout << line << "\n" << std::flush;
  }
}
