#pragma once
/// \file tools/cli.hpp
/// The command-line conventions of gauge's tools (gauge-compare, gauge-export), on CLI11:
/// `--opt value` and `--opt=value`; `-h, --help` with every option's description and default and
/// a paragraph on exit codes (exit 0); `--version` printing "gauge X.Y.Z" (exit 0); a usage error
/// (unknown option, bad or missing value, value outside the allowed set) as one line on stderr
/// naming the bad text, "<tool>: error: <reason> (see --help)",
/// and exit status 2. Internal to the tools: not installed.

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "gauge/report/escape.hpp"
#include "gauge/version.hpp"

namespace gauge::tools {

/// Exit status of a usage error or of bad input.
inline constexpr int exit_usage = 2;

/// Exit status when standard output cannot be written (full disk, `> /dev/full`, a closed pipe):
/// sysexits.h's EX_IOERR, apart from the tools' other codes.
inline constexpr int exit_output = 74;

/// An input error (e.g. a report that cannot be read): one line on stderr, exit status 2.
struct BadInput {
  std::string reason;  ///< what was wrong, naming the input
};

/// Runs a tool's `body` (which returns the exit status) and turns an error that escapes it into
/// one line "<tool>: error: <reason>" on stderr and exit status `exit_usage`.
template <class F>
int guarded_main(const char* tool, F&& body) {
  try {
    return body();
  } catch (const BadInput& e) {
    std::fprintf(stderr, "%s: error: %s\n", tool, gauge::detail::escape::terminal_text(e.reason).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", tool, gauge::detail::escape::terminal_text(e.what()).c_str());
  }
  return exit_usage;
}

/// Writes all of `text` to standard output (a NUL in it is written, not an end), flushes, and
/// checks that it all went out. On failure prints "<tool>: error: cannot write standard output:
/// <system error>" on stderr and returns false: exit with `exit_output` then.
inline bool write_stdout(const char* tool, const std::string& raw) {
  // A report's text never drives the terminal (ESC, C1 controls shown as escapes); JSON output
  // holds none raw (its strings escape them), so it is unchanged.
  const std::string text = gauge::detail::escape::terminal_text(raw);
  errno = 0;
  const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  const bool flushed = std::fflush(stdout) == 0;
  if (written && flushed && !std::ferror(stdout)) return true;
  const int err = errno;
  std::fprintf(stderr, "%s: error: cannot write standard output: %s\n", tool,
               err ? std::strerror(err) : "write error");
  return false;
}

/// Flushes standard output and checks that everything printed so far went out (see write_stdout).
inline bool flush_stdout(const char* tool) { return write_stdout(tool, std::string()); }

/// Adds `--version` ("gauge X.Y.Z"), shows defaults in --help and ends --help with `footer`
/// (the exit codes).
inline void configure(CLI::App& app, const std::string& footer) {
  app.set_version_flag("--version", std::string("gauge ") + gauge::version_string,
                       "Print gauge's version (gauge X.Y.Z) and exit");
  app.option_defaults()->always_capture_default();
  app.get_formatter()->column_width(34);
  app.footer(footer);
}

/// "{a,b,c}": the allowed values as --help and errors show them.
inline std::string choices_text(const std::vector<std::string>& choices) {
  std::string out = "{";
  for (std::size_t i = 0; i < choices.size(); ++i) out += (i ? "," : "") + choices[i];
  return out + "}";
}

/// A validator that accepts one of `choices`, or one of `aliases` (accepted, not shown); the
/// error names the value: "'xml' not in {gbench,csv,markdown}".
inline CLI::Validator one_of(std::vector<std::string> choices, std::vector<std::string> aliases = {}) {
  const std::string shown = choices_text(choices);
  choices.insert(choices.end(), aliases.begin(), aliases.end());
  return CLI::Validator(
      [choices, shown](std::string& value) -> std::string {
        for (const auto& c : choices)
          if (value == c) return "";
        return "'" + value + "' not in " + shown;
      },
      shown);
}

/// A transform that accepts a decimal integer in [lo, hi] (digits, an optional '-'; not CLI11's
/// octal "010" or hex "0x10") and hands it on in canonical form; the error names the value.
inline CLI::Validator integer_in(long long lo, long long hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& value) -> std::string {
        const std::string digits = !value.empty() && value[0] == '-' ? value.substr(1) : value;
        const bool decimal = !digits.empty() && digits.size() <= 18 &&
                             digits.find_first_not_of("0123456789") == std::string::npos;
        const long long v = decimal ? std::stoll(value) : 0;
        if (!decimal || v < lo || v > hi) return "'" + value + "' is not an integer in " + range;
        value = std::to_string(v);
        return "";
      },
      "");
}

/// A transform that accepts a non-negative decimal integer up to 2^64 - 1 and hands it on in
/// canonical form; the error names the value.
inline CLI::Validator unsigned_integer() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const bool decimal = !value.empty() && value.size() <= 20 && value.find_first_not_of("0123456789") == std::string::npos;
        errno = 0;
        const unsigned long long v = decimal ? std::strtoull(value.c_str(), nullptr, 10) : 0;
        if (!decimal || errno == ERANGE) return "'" + value + "' is not an integer in [0, 18446744073709551615]";
        value = std::to_string(v);
        return "";
      },
      "");
}

/// Rewraps `text` to lines of at most `width` characters (CLI11 2.1 does not wrap descriptions;
/// it indents the lines after a '\n').
inline std::string wrap(const std::string& text, std::size_t width) {
  std::string out, line, word;
  auto flush_word = [&] {
    if (word.empty()) return;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    word.clear();
  };
  for (char ch : text) {
    if (ch == ' ') flush_word();
    else if (ch == '\n') {
      flush_word();
      out += line + "\n";
      line.clear();
    } else word += ch;
  }
  flush_word();
  return out + line;
}

/// The reason of a usage error as one line: unknown options and unexpected arguments by name,
/// other CLI11 errors in CLI11's words with line breaks replaced.
inline std::string usage_error_reason(const CLI::App& app, const CLI::ParseError& e) {
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    std::vector<std::string> options, arguments;
    for (const auto& a : app.remaining()) (a.size() > 1 && a[0] == '-' ? options : arguments).push_back("'" + a + "'");
    std::string out;
    if (!options.empty()) out = (options.size() > 1 ? "unknown options " : "unknown option ") + CLI::detail::join(options, ", ");
    if (!arguments.empty())
      out += (out.empty() ? "" : "; ") + std::string(arguments.size() > 1 ? "unexpected arguments " : "unexpected argument ") +
             CLI::detail::join(arguments, ", ");
    if (!out.empty()) return out;
  }
  std::string text = e.what();
  for (auto& ch : text)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return text;
}

/// Parses the command line. --help and --version print to stdout and exit 0; a usage error
/// prints the one line "<tool>: error: <reason> (see --help)" to stderr and exits with status 2.
inline void parse_or_exit(CLI::App& app, int argc, char** argv) {
  app.description(wrap(app.get_description(), 100));
  for (CLI::Option* o : app.get_options()) o->description(wrap(o->get_description(), 100 - 34));
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    std::exit(app.exit(e));
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: error: %s (see --help)\n", app.get_name().c_str(),
                 usage_error_reason(app, e).c_str());
    std::exit(exit_usage);
  }
}

}  // namespace gauge::tools
