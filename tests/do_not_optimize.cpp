// gauge::do_not_optimize and gauge::clobber_memory (gauge/core/do_not_optimize.hpp), compiled at -O2
// as a user's benchmark is: a step that sums 4096 integers and hands the sum to do_not_optimize is
// timed at no less than the physical floor of 4096 additions (at most 16 per cycle, at most 6 GHz:
// 42.7 ns); a step that fills a buffer, with clobber_memory after it, likewise for its 4096 stores
// of 4 bytes (at most 64 bytes per cycle: 42.7 ns). The same sum with its result unused is timed
// too and printed (the optimizer may delete it: the hazard the functions exist for). A double and a
// struct (passed through memory) are kept likewise. Under GCC 13.3 at -O2 the earlier
// multi-alternative constraints ("+m,r") crashed this program on the H200 host (3 runs of 3).
#include <cstdio>
#include <cstdint>
#include <vector>

#include <gauge/gauge.hpp>

namespace {

double median_ns(gauge::Result r) {
  if (r.status != gauge::Status::ok || !r.gpu_time.p50) {
    std::fprintf(stderr, "do_not_optimize: %s failed: %s\n", r.name.c_str(), r.error.value_or("no median").c_str());
    return -1;
  }
  return *r.gpu_time.p50 * 1e9;
}

gauge::Config short_config() {
  gauge::Config c;
  c.warmup.max_time = std::chrono::milliseconds(100);
  c.measure.max_time = std::chrono::milliseconds(300);
  return c;
}

}  // namespace

int step_function() { return 1; }

int main() {
  // A function (clang could not compile this before) and a volatile (read, never written back).
  gauge::do_not_optimize(step_function);
  volatile int device_register = 7;
  gauge::do_not_optimize(device_register);
  if (device_register != 7) return 1;

  constexpr std::size_t n = 4096;
  std::vector<std::uint32_t> data(n);
  for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<std::uint32_t>(i * 2654435761u);
  const double floor_ns = 4096.0 / 16 / 6.0;  // 4096 adds, 16 per cycle, 6 GHz

  auto kept = gauge::make_experiment<gauge::HostBackend>("sum, do_not_optimize", [&](gauge::HostStream) {
    std::uint32_t s = 0;
    for (std::uint32_t v : data) s += v;
    gauge::do_not_optimize(s);
  });
  kept.config(short_config());
  const double kept_ns = median_ns(kept.run());

  // A double and a struct go through memory ("m"), integers and pointers through a register ("r"):
  // both paths are timed. Floor as above (4096 additions).
  std::vector<double> real(n, 1.5);
  struct Pair {
    double sum;
    std::uint64_t count;
  };
  auto kept_double = gauge::make_experiment<gauge::HostBackend>("double sum and a struct, do_not_optimize", [&](gauge::HostStream) {
    Pair pair{0, 0};
    for (double v : real) pair.sum += v, ++pair.count;
    gauge::do_not_optimize(pair);
    const double total = pair.sum;
    gauge::do_not_optimize(total);
  });
  kept_double.config(short_config());
  const double kept_double_ns = median_ns(kept_double.run());

  std::vector<std::uint32_t> out(n);
  auto stored = gauge::make_experiment<gauge::HostBackend>("fill, clobber_memory", [&](gauge::HostStream) {
    std::uint32_t* p = out.data();
    gauge::do_not_optimize(p);  // the compiler no longer knows where p points
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::uint32_t>(i);
    gauge::clobber_memory();
  });
  stored.config(short_config());
  const double stored_ns = median_ns(stored.run());

  auto unused = gauge::make_experiment<gauge::HostBackend>("sum, result unused", [&](gauge::HostStream) {
    std::uint32_t s = 0;
    for (std::uint32_t v : data) s += v;
    (void)s;
  });
  unused.config(short_config());
  const double unused_ns = median_ns(unused.run());

  std::printf("sum with do_not_optimize: %.1f ns; double sum and struct: %.1f ns; fill with clobber_memory: %.1f ns; "
              "sum unused: %.1f ns; floor %.1f ns\n", kept_ns, kept_double_ns, stored_ns, unused_ns, floor_ns);
  int failed = 0;
  if (!(kept_double_ns >= floor_ns)) {
    std::fprintf(stderr, "FAIL: the double sum handed to do_not_optimize took %.1f ns, below the %.1f ns floor\n", kept_double_ns, floor_ns);
    failed = 1;
  }
  if (!(kept_ns >= floor_ns)) {
    std::fprintf(stderr, "FAIL: the sum handed to do_not_optimize took %.1f ns, below the %.1f ns floor of its additions\n", kept_ns, floor_ns);
    failed = 1;
  }
  if (!(stored_ns >= floor_ns)) {
    std::fprintf(stderr, "FAIL: the fill before clobber_memory took %.1f ns, below the %.1f ns floor of its stores\n", stored_ns, floor_ns);
    failed = 1;
  }
  return failed;
}
