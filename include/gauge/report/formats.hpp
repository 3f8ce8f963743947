#pragma once
/// \file gauge/report/formats.hpp
/// Every export format gauge-export offers: one include per format (each registers itself; see
/// gauge/report/export_format.hpp). A new format is a new header and a line here.

#include "gauge/report/export.hpp"          // gbench, csv, markdown (rows: export_rows.hpp)
#include "gauge/report/export_console.hpp"  // console
#include "gauge/report/export_bencher.hpp"  // bencher (Bencher Metric Format)
#include "gauge/report/export_github.hpp"   // github_benchmark (github-action-benchmark)
#include "gauge/report/export_json.hpp"     // json (gauge's own report)
