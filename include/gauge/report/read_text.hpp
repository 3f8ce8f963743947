#pragma once
/// \file gauge/report/read_text.hpp
/// Checks of a report's JSON text before (and beside) parsing it, for the reader
/// (gauge/report/read.hpp, parse_report): how deep it nests, and integer literals beyond 64 bits,
/// which the parser would turn into rounded doubles, and a key twice in one object. Each is one
/// linear pass over the text, safe on any input (the key check runs after the depth check).

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace gauge::detail::read {
/// The byte offset where `text` (JSON) first nests deeper than `max_depth` arrays/objects,
/// outside strings; npos if it never does. Linear, without recursion: safe on any input.
inline std::size_t json_too_deep_at(const std::string& text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      if (ch == '\\') ++i;
      else if (ch == '"') in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > max_depth) return i;
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string::npos;
}

/// An integer literal of `text` (valid JSON) beyond 64 bits, outside [-2^63, 2^64 - 1], with its
/// key path ("experiments[0].dimensions.M"), as "<path>: <what>"; "" when there is none. The JSON
/// parser reads such a literal as a double, which rounds it (18446744073709551617 becomes
/// 1.8446744073709552e19) and makes it a real number where an integer was written: once parsed,
/// it cannot be told from a float, so it is found in the text. Linear, without recursion.
inline std::string integer_beyond_64_bits(const std::string& text) {
  struct Frame {
    bool object = false;
    bool expect_key = false;
    std::string key;        // the object's current key, as written (escapes kept)
    std::size_t index = 0;  // the array's current index
  };
  std::vector<Frame> stack;
  auto path = [&stack] {
    std::string p;
    for (const Frame& f : stack) p += f.object ? (p.empty() ? "" : ".") + f.key : "[" + std::to_string(f.index) + "]";
    return p.empty() ? std::string("the document") : p;
  };
  // Digits (no sign, no leading zeros) above `limit` (both of the same length or longer).
  auto above = [](const std::string& digits, const std::string& limit) {
    return digits.size() != limit.size() ? digits.size() > limit.size() : digits > limit;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '"') {
      std::size_t j = i + 1;
      while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      if (!stack.empty() && stack.back().object && stack.back().expect_key) {
        stack.back().key = text.substr(i + 1, j - i - 1);
        stack.back().expect_key = false;
      }
      i = j;
    } else if (ch == '{' || ch == '[') {
      stack.push_back(Frame{ch == '{', ch == '{', std::string(), 0});
    } else if (ch == '}' || ch == ']') {
      if (!stack.empty()) stack.pop_back();
    } else if (ch == ',') {
      if (!stack.empty()) {
        if (stack.back().object) stack.back().expect_key = true;
        else ++stack.back().index;
      }
    } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
      std::size_t j = i;
      const auto in_number = [](char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; };
      while (j < text.size() && in_number(text[j])) ++j;
      const std::string token = text.substr(i, j - i);
      i = j - 1;
      if (token.find_first_of(".eE") != std::string::npos) continue;  // a float as written
      const bool negative = token[0] == '-';
      std::string digits = token.substr(negative ? 1 : 0);
      digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
      if (negative ? above(digits, "9223372036854775808") : above(digits, "18446744073709551615")) {
        const std::string shown = token.size() > 60 ? token.substr(0, 57) + "..." : token;
        return path() + ": integer " + shown + " is beyond 64 bits: gauge reads integers from -9223372036854775808 to " +
               "18446744073709551615 exactly, and would read this one rounded to a double (write a real number with a " +
               "fraction or an exponent, e.g. 1.8e19, where a rounded value is meant)";
      }
    }
  }
  return {};
}

/// The first key that appears twice in one object of the JSON `text` (already parsed without
/// error), with where: `duplicate key "p50" in experiments[0].gpu_time_s`; "" when every object's
/// keys are distinct. JSON (RFC 8259, section 4) says names "SHOULD be unique" and leaves a
/// repeated name's value to the reader; nlohmann keeps the last, so a report with two values would
/// be read as one of them silently. One pass over the bytes, as the checks above: numbers and
/// strings are skipped, only keys are kept (a key with an escape is compared decoded).
inline std::string duplicate_key(const std::string& text) {
  struct Frame {
    bool object;
    bool in_array;       // sits in an array (name "[i]"), else under the key `name`
    std::string name;
    std::size_t index;   // arrays: the element being read
    std::string key;     // objects: the member being read
    bool expect_key;     // objects: the next string is a key
    std::set<std::string> keys;
  };
  std::vector<Frame> stack;
  // A key as JSON writes it ("q\"]}"), so that any key reads back unambiguously.
  auto quoted = [](const std::string& k) { return nlohmann::json(k).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); };
  auto path = [&stack, &quoted] {
    std::string p;
    for (std::size_t i = 1; i < stack.size(); ++i) {
      const std::string& n = stack[i].name;
      if (stack[i].in_array) p += n;
      else if (!n.empty() && n.find_first_of(".[]\"\\ ") == std::string::npos && (unsigned char)n.front() > 0x20)
        p += (p.empty() ? "" : ".") + n;
      else p += "[" + quoted(n) + "]";  // a key with '.', brackets, quotes or spaces: ["a.b"]
    }
    return p;
  };
  auto open = [&stack](bool object) {
    const bool in_array = !stack.empty() && !stack.back().object;
    std::string name;
    if (!stack.empty()) name = in_array ? "[" + std::to_string(stack.back().index) + "]" : stack.back().key;
    stack.push_back(Frame{object, in_array, name, 0, {}, object, {}});
  };
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t start = ++i;
      bool escaped = false;
      while (i < n && text[i] != '"') {
        if (text[i] == '\\') escaped = true, ++i;
        ++i;
      }
      if (stack.empty() || !stack.back().object || !stack.back().expect_key) continue;
      Frame& f = stack.back();
      std::string k = text.substr(start, i - start);
      if (escaped) {
        try {
          k = nlohmann::json::parse("\"" + k + "\"").get<std::string>();
        } catch (const nlohmann::json::exception&) {
        }
      }
      if (!f.keys.insert(k).second) {
        const std::string where = path();
        return "duplicate key " + quoted(k) + (where.empty() ? std::string(" at the top level") : " in " + where);
      }
      f.key = std::move(k);
      f.expect_key = false;
    } else if (c == '{' || c == '[') {
      open(c == '{');
    } else if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
    } else if (c == ',' && !stack.empty()) {
      if (stack.back().object) stack.back().expect_key = true;
      else ++stack.back().index;
    }
  }
  return "";
}

}  // namespace gauge::detail::read
