#pragma once
/// \file gauge/report/schema_pattern.hpp
/// The `pattern` keyword of the report schema (gauge/report/schema_check.hpp): a regular
/// expression compiled to a Thompson NFA (Thompson, "Regular expression search algorithm", CACM
/// 11(6), 1968) and run as a Pike VM, in lock step over the string: time linear in its length, no
/// recursion over it, so a 25 KB or 4 MB string cannot overflow the stack as std::regex does.
/// Internal (gauge::detail).

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace gauge {
namespace detail {
namespace schema_check {

// ---- pattern: a regular expression compiled to a Pike VM program ---------------------------------

/// A compiled `pattern` of the subset ECMA 262 syntax the schema uses: literals, `.`, classes
/// `[a-z0-9_.-]` (no negation), escapes `\.` `\d`, groups `( )` with `|`, the quantifiers `* + ?`
/// and `{n}` `{n,}` `{n,m}`, and the anchors `^` and `$` at the ends. Matching is a search (as
/// JSON Schema specifies) unless anchored.
class Pattern {
 public:
  /// \throws std::logic_error naming the pattern for syntax outside the subset.
  explicit Pattern(const std::string& source) : source_(source) {
    std::size_t at = 0;
    anchored_start_ = !source.empty() && source[0] == '^';
    if (anchored_start_) at = 1;
    std::size_t end = source.size();
    anchored_end_ = end > at && source[end - 1] == '$' && (end < 2 || source[end - 2] != '\\');
    if (anchored_end_) --end;
    text_ = source.substr(at, end - at);
    pos_ = 0;
    Node root = parse_alternation();
    if (pos_ != text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    emit(root);
    program_.push_back({Op::match, 0, 0, 0});
  }

  /// Whether `s` matches (bytes; the schema's patterns are ASCII).
  bool matches(const std::string& s) const {
    const std::size_t n = program_.size();
    std::vector<std::size_t> current, next;
    std::vector<std::size_t> seen(n, static_cast<std::size_t>(-1));
    std::vector<std::size_t> stack;
    auto add = [&](std::vector<std::size_t>& list, std::size_t pc, std::size_t step) {
      stack.assign(1, pc);
      while (!stack.empty()) {
        const std::size_t p = stack.back();
        stack.pop_back();
        if (seen[p] == step) continue;
        seen[p] = step;
        const Instruction& in = program_[p];
        if (in.op == Op::jump) stack.push_back(in.x);
        else if (in.op == Op::split) stack.push_back(in.y), stack.push_back(in.x);
        else list.push_back(p);
      }
    };
    std::size_t step = 0;
    add(current, 0, step);
    for (std::size_t i = 0;; ++i) {
      for (std::size_t p : current)
        if (program_[p].op == Op::match && (!anchored_end_ || i == s.size())) return true;
      if (i == s.size()) return false;
      ++step;
      next.clear();
      const auto c = static_cast<unsigned char>(s[i]);
      for (std::size_t p : current)
        if (program_[p].op == Op::byte && classes_[program_[p].cls][c]) add(next, p + 1, step);
      if (!anchored_start_) add(next, 0, step);  // a search: a match may start at any byte
      current.swap(next);
      if (current.empty()) return false;
    }
  }

  /// The pattern as written in the schema.
  const std::string& source() const { return source_; }

 private:
  enum class Op { byte, split, jump, match };
  struct Instruction {
    Op op;
    std::size_t x, y, cls;
  };
  struct Node {
    enum Kind { cls, cat, alt, rep } kind = cat;
    std::size_t cls_index = 0;
    std::vector<Node> children;
    std::size_t min = 1, max = 1;  // rep; max == npos: unbounded
  };
  static constexpr std::size_t unbounded = static_cast<std::size_t>(-1);

  [[noreturn]] void fail(const std::string& what) const {
    throw std::logic_error("schema pattern \"" + source_ + "\": " + what + " (outside the subset gauge checks)");
  }
  std::size_t add_class(const std::array<bool, 256>& c) {
    classes_.push_back(c);
    return classes_.size() - 1;
  }
  Node class_node(const std::array<bool, 256>& c) {
    Node n;
    n.kind = Node::cls;
    n.cls_index = add_class(c);
    return n;
  }
  Node parse_alternation() {
    Node alt;
    alt.kind = Node::alt;
    alt.children.push_back(parse_concatenation());
    while (pos_ < text_.size() && text_[pos_] == '|') {
      ++pos_;
      alt.children.push_back(parse_concatenation());
    }
    return alt.children.size() == 1 ? alt.children[0] : alt;
  }
  Node parse_concatenation() {
    Node cat;
    cat.kind = Node::cat;
    while (pos_ < text_.size() && text_[pos_] != '|' && text_[pos_] != ')') cat.children.push_back(parse_repeat());
    return cat;
  }
  std::size_t parse_number() {
    std::size_t v = 0, digits = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9' && digits < 6)
      v = v * 10 + static_cast<std::size_t>(text_[pos_++] - '0'), ++digits;
    if (digits == 0) fail("a count in { } is not a number");
    return v;
  }
  Node parse_repeat() {
    Node atom = parse_atom();
    if (pos_ >= text_.size()) return atom;
    std::size_t lo = 1, hi = 1;
    const char q = text_[pos_];
    if (q == '*') lo = 0, hi = unbounded, ++pos_;
    else if (q == '+') lo = 1, hi = unbounded, ++pos_;
    else if (q == '?') lo = 0, hi = 1, ++pos_;
    else if (q == '{') {
      ++pos_;
      lo = hi = parse_number();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        hi = pos_ < text_.size() && text_[pos_] == '}' ? unbounded : parse_number();
      }
      if (pos_ >= text_.size() || text_[pos_] != '}' || hi < lo) fail("a malformed { } count");
      ++pos_;
    } else {
      return atom;
    }
    if (pos_ < text_.size() && (text_[pos_] == '?' || text_[pos_] == '+')) fail("lazy or possessive quantifiers");
    Node r;
    r.kind = Node::rep;
    r.min = lo, r.max = hi;
    r.children.push_back(std::move(atom));
    return r;
  }
  Node parse_atom() {
    const char ch = text_[pos_++];
    std::array<bool, 256> c{};
    if (ch == '(') {
      if (pos_ < text_.size() && text_[pos_] == '?') fail("(? groups");
      Node inner = parse_alternation();
      if (pos_ >= text_.size() || text_[pos_] != ')') fail("an unclosed '('");
      ++pos_;
      return inner;
    }
    if (ch == '[') {
      if (pos_ < text_.size() && text_[pos_] == '^') fail("negated classes");
      bool any = false;
      while (pos_ < text_.size() && text_[pos_] != ']') {
        unsigned char a = static_cast<unsigned char>(text_[pos_++]);
        if (a == '\\') {
          if (pos_ >= text_.size()) fail("a trailing '\\'");
          a = static_cast<unsigned char>(text_[pos_++]);
          if (a == 'd') {
            for (int d = '0'; d <= '9'; ++d) c[static_cast<std::size_t>(d)] = true;
            any = true;
            continue;
          }
        }
        unsigned char b = a;
        if (pos_ + 1 < text_.size() && text_[pos_] == '-' && text_[pos_ + 1] != ']') {
          b = static_cast<unsigned char>(text_[pos_ + 1]);
          pos_ += 2;
          if (b < a) fail("a reversed range");
        }
        for (unsigned v = a; v <= b; ++v) c[v] = true;
        any = true;
      }
      if (pos_ >= text_.size() || !any) fail("an unclosed or empty '['");
      ++pos_;
      return class_node(c);
    }
    if (ch == '\\') {
      if (pos_ >= text_.size()) fail("a trailing '\\'");
      const char e = text_[pos_++];
      if (e == 'd') {
        for (int d = '0'; d <= '9'; ++d) c[static_cast<std::size_t>(d)] = true;
      } else if (std::string(".\\/-+*?()[]{}|^$").find(e) != std::string::npos) {
        c[static_cast<unsigned char>(e)] = true;
      } else {
        fail(std::string("the escape \\") + e);
      }
      return class_node(c);
    }
    if (ch == '.') {
      c.fill(true);
      c['\n'] = c['\r'] = false;
      return class_node(c);
    }
    if (std::string("*+?{}|)^$").find(ch) != std::string::npos) fail(std::string("a bare '") + ch + "'");
    c[static_cast<unsigned char>(ch)] = true;
    return class_node(c);
  }
  void emit(const Node& n) {
    switch (n.kind) {
      case Node::cls:
        program_.push_back({Op::byte, 0, 0, n.cls_index});
        return;
      case Node::cat:
        for (const Node& c : n.children) emit(c);
        return;
      case Node::alt: {
        std::vector<std::size_t> jumps;
        for (std::size_t i = 0; i < n.children.size(); ++i) {
          if (i + 1 < n.children.size()) {
            const std::size_t split = program_.size();
            program_.push_back({Op::split, split + 1, 0, 0});
            emit(n.children[i]);
            jumps.push_back(program_.size());
            program_.push_back({Op::jump, 0, 0, 0});
            program_[split].y = program_.size();
          } else {
            emit(n.children[i]);
          }
        }
        for (std::size_t j : jumps) program_[j].x = program_.size();
        return;
      }
      case Node::rep: {
        if (n.max != unbounded && n.max > 1000) fail("a count over 1000");
        for (std::size_t i = 0; i < n.min; ++i) emit(n.children[0]);
        if (n.max == unbounded) {
          const std::size_t split = program_.size();
          program_.push_back({Op::split, split + 1, 0, 0});
          emit(n.children[0]);
          program_.push_back({Op::jump, split, 0, 0});
          program_[split].y = program_.size();
        } else {
          std::vector<std::size_t> splits;
          for (std::size_t i = n.min; i < n.max; ++i) {
            splits.push_back(program_.size());
            program_.push_back({Op::split, program_.size() + 1, 0, 0});
            emit(n.children[0]);
          }
          for (std::size_t s : splits) program_[s].y = program_.size();
        }
        return;
      }
    }
  }

  std::string source_, text_;
  std::size_t pos_ = 0;
  bool anchored_start_ = false, anchored_end_ = false;
  std::vector<std::array<bool, 256>> classes_;
  std::vector<Instruction> program_;
};

}  // namespace schema_check
}  // namespace detail
}  // namespace gauge
