#pragma once
/// \file gauge/core/skipped.hpp
/// A point of a benchmark sweep that was not run, and why (a skip is not a failure: the point was
/// never measured). Written to the report's `skipped` list (schema 1.3).

#include <string>

#include "gauge/core/dimensions.hpp"

namespace gauge {
namespace records {
/// A skipped point: the experiment it would have been (name and dimensions) and the reason.
struct SkippedPoint {
  std::string name;       ///< the benchmark's name (the experiment's name had it run)
  Dimensions dimensions;  ///< the point's axis values (its dimensions had it run)
  std::string reason;     ///< why, as the benchmark said, e.g. "does not fit in device memory"
};
}  // namespace records

}  // namespace gauge
