#pragma once
/// \file gauge/report/fields.hpp
/// The description of every type in a gauge report, once (see gauge/report/serial.hpp): writing
/// (`to_json`), reading (`from_json`, gauge/report/read.hpp) and the schema's coverage
/// (schema/gauge-report.schema.json, checked by the tests against `serial::collect_schema`) all
/// come from here. Units are in the key names: seconds (`_s`), bytes, MHz, W, °C; undefined or
/// non-finite numbers are `null`.
///
/// To add a key: add the member to its struct, a line in its part under gauge/report/fields/
/// (with `since_1_N` for the schema version that adds it, and bump `report_schema_version`'s
/// minor version), and the key to the schema; the tests fail until all three agree.

#include "gauge/report/fields/measurement.hpp"  // enums, statistics, work, configuration, telemetry, kernels, peaks
#include "gauge/report/fields/experiment.hpp"   // Result and its records, the environment
#include "gauge/report/fields/timer.hpp"        // a Timer's summary
#include "gauge/report/fields/report.hpp"       // skipped points, ranks, interleaved runs, the report

#include "gauge/core/warmup.hpp"  // not used by the parts; this header has always brought it in
