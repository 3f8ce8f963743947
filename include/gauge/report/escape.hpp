#pragma once
/// \file gauge/report/escape.hpp
/// Text from a report (names, dimension values, error messages) made safe for line- and
/// cell-based outputs: a NUL would end a C string (and cut the output there), a CR or LF would
/// end a CSV record or a Markdown row, a '|' would split a Markdown cell. Used by the console
/// summary, the CSV export and gauge-export's Markdown; markdown_cell is the escaping a Markdown
/// cell needs (detail::comparing::md_cell, used by every Markdown table, is this).

#include <cstddef>
#include <string>
#include <string_view>

namespace gauge::detail::escape {

/// The code point of the Unicode bidirectional control (U+200E, U+200F, U+202A..U+202E,
/// U+2066..U+2069) whose UTF-8 form starts at s[i], or 0: such a character reorders the text
/// around it as displayed ("Trojan Source", CVE-2021-42574), so a report's text shows it escaped.
inline unsigned bidi_control_at(std::string_view s, std::size_t i) {
  if (i + 2 >= s.size() || static_cast<unsigned char>(s[i]) != 0xe2) return 0;
  const auto b1 = static_cast<unsigned char>(s[i + 1]), b2 = static_cast<unsigned char>(s[i + 2]);
  const unsigned cp = 0x2000u | ((b1 & 0x3fu) << 6) | (b2 & 0x3fu);
  if ((b1 & 0xc0) != 0x80 || (b2 & 0xc0) != 0x80) return 0;
  const bool bidi = cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
  return bidi ? cp : 0;
}

/// "\u202e" for code point 0x202e.
inline std::string escaped_code_point(unsigned cp) {
  static const char hex[] = "0123456789abcdef";
  std::string out = "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += hex[(cp >> shift) & 0xf];
  return out;
}

/// `s` with every control character visible: NUL → `\0`, TAB → `\t`, LF → `\n`, CR → `\r`, other
/// C0 characters and DEL → `\xHH` (two hex digits), the bidirectional controls (bidi_control_at)
/// → `\uHHHH`. Other bytes (UTF-8 included) are kept.
inline std::string visible(std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    if (const unsigned cp = bidi_control_at(s, i)) {
      out += escaped_code_point(cp);
      i += 2;
    } else if (u >= 0x20 && u != 0x7f) {
      out += c;
    } else if (u == 0) {
      out += "\\0";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 0xf];
    }
  }
  return out;
}

/// `s` for a terminal: LF, CR and TAB are kept (lines, tables, and the CR of a CSV field that
/// RFC 4180 quoting carries; gauge's own console text makes CR visible already), every other C0 control character
/// and DEL is visible() — ESC above all, which starts the terminal's escape sequences (clear the
/// screen, retitle the window, rewrite earlier lines) — and so are the C1 controls U+0080..U+009F
/// (UTF-8 C2 80..C2 9F: CSI is C2 9B), as `\u0080`..`\u009f`, and the bidirectional controls
/// (bidi_control_at) as `\uHHHH`. Used where a report's text
/// (names, dimension values, errors) reaches standard output or standard error: the tools' output
/// and error lines, the suite runner's lines.
inline std::string terminal_text(std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 || u == 0x7f) && c != '\n' && c != '\r' && c != '\t') {
      out += visible(std::string_view(&c, 1));
    } else if (const unsigned cp = bidi_control_at(s, i)) {
      out += escaped_code_point(cp);
      i += 2;
    } else if (u == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
      const auto v = static_cast<unsigned char>(s[++i]);
      out += "\\u00";
      out += hex[v >> 4];
      out += hex[v & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

/// `s` for a CSV field: CR, LF and TAB are kept (RFC 4180 quoting carries them), every other
/// control character is visible() (a NUL byte breaks most CSV readers).
inline std::string csv_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 || u == 0x7f) && c != '\r' && c != '\n' && c != '\t') out += visible(std::string_view(&c, 1));
    else out += c;
  }
  return out;
}

/// `s` for one cell of a GitHub-flavoured Markdown table row: control characters visible(),
/// '\' → `\\` and '|' → `\|`, so the text can neither end the row nor split the cell.
inline std::string markdown_cell(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : visible(s)) {
    if (c == '|' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

/// A user's name (an experiment's label) for Markdown: markdown_cell, and the characters that
/// would start emphasis, code, a link or HTML (`*`, `` ` ``, `[`, `]`, `<`, `>`) backslash-escaped,
/// so the name renders as written (GFM spec, "Backslash escapes"). '_' is kept: GitHub does not
/// emphasize inside a word, and names such as `copy_16MiB_hot` stay readable. Not for text
/// inside a code span (there a backslash is shown as typed).
inline std::string markdown_name(std::string_view s) {
  std::string out;
  for (const char c : markdown_cell(s)) {
    if (c == '*' || c == '`' || c == '[' || c == ']' || c == '<' || c == '>') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace gauge::detail::escape
