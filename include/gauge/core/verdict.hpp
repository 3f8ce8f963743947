#pragma once
// The four answers of every comparison gauge makes: two reports (gauge/report/compare.hpp, whose
// `Verdict` documentation states the rule), an interleaved A/B run (gauge/core/interleaved.hpp),
// and the Catch2 matchers. A light header, so that the interleaved types need not include the
// comparison.

namespace gauge {

/// A comparison's outcome on new / base (below 1 is faster): `faster` or `slower` by more than
/// the noise threshold, `same` within it, `inconclusive` when none of these can be shown (the
/// comparison's reason says why). The rules: `Verdict` in gauge/report/compare.hpp (two reports)
/// and `records::InterleavedOutcome::rule` (an interleaved run).
enum class Verdict { faster, slower, same, inconclusive };

/// Text name of a Verdict ("faster", "slower", "same", "inconclusive").
inline const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::same: return "same";
    case Verdict::inconclusive: return "inconclusive";
  }
  return "?";
}

}  // namespace gauge
