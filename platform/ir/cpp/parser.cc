#include "platform/ir/cpp/parser.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <ranges>
#include <vector>

#include "platform/cpp/json/json.h"
#include "platform/ir/cpp/literals.h"
#include "platform/ir/cpp/types.h"
#include "platform/ir/cpp/types_data.h"

namespace rocke::ir {

namespace {

enum class Kind { kValue, kSymbol, kFloat, kDecimalFloat, kInt, kString, kIdent, kPunct, kEof };

// The kind names parser.py's errors print ("expected value, got ...").
const char* kind_name(Kind kind) {
  static const char* const kNames[] = {"value", "symbol", "float", "decimal_float", "int", "string",
                                       "ident", "punct",  "eof"};
  return kNames[static_cast<int>(kind)];
}

struct Token {
  Kind kind;
  std::string text;
  int line;
  int column;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }

// The code points Python's \s matches in a str pattern (str.isspace()).
constexpr char32_t kSpaces[] = {0x09,   0x0A,   0x0B,   0x0C,   0x0D,   0x1C,   0x1D,   0x1E,   0x1F,   0x20,
                                0x85,   0xA0,   0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
                                0x2007, 0x2008, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000};

// The tokenizer: parser.py's _TOKEN alternatives, tried in the same order,
// each matching what its regular expression matches.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    int line = 1;
    size_t line_start = 0;
    while (pos_ < s_.size()) {
      size_t start = pos_;
      int column = this->column(line_start, start);
      Kind kind = kWs;
      size_t end = match(kind);
      if (end == start) {
        const std::string c(s_.substr(start, char_length(start)));
        throw ParseError("unexpected character " + json::quote(c), line, column, c);
      }
      std::string_view text = s_.substr(start, end - start);
      if (kind == Kind::kInt) {
        size_t digits = text.size() - (text[0] == '-');
        if (digits > static_cast<size_t>(kMaxIntDigits)) {
          throw ParseError("expected an integer of at most " + std::to_string(kMaxIntDigits) + " digits, got one of " +
                               std::to_string(digits),
                           line, column, std::string(text));
        }
      }
      if (kind != kWs) out.push_back({kind, std::string(text), line, column});
      for (size_t i = start; i < end; ++i) {
        if (s_[i] == '\n') ++line, line_start = i + 1;
      }
      pos_ = end;
    }
    out.push_back({Kind::kEof, "end of input", line, column(line_start, pos_)});
    return out;
  }

 private:
  static constexpr Kind kWs = Kind::kEof;  // whitespace is dropped, never returned as a token

  char at(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }

  static bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

  // The bytes of the whitespace character at i (as Python's \s), or 0.
  size_t space_length(size_t i) const {
    size_t n = char_length(i);
    auto lead = static_cast<unsigned char>(s_[i]);
    if (n == 1 && lead >= 0x80) return 0;  // a stray byte, not a character
    char32_t cp = n == 1 ? lead : lead & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) cp = cp << 6 | (static_cast<unsigned char>(s_[i + k]) & 0x3F);
    return std::find(std::begin(kSpaces), std::end(kSpaces), cp) != std::end(kSpaces) ? n : 0;
  }

  // Python counts characters, not bytes: a UTF-8 continuation byte adds none.
  int column(size_t line_start, size_t pos) const {
    int n = 1;
    for (size_t i = line_start; i < pos; ++i) n += !continuation(s_[i]);
    return n;
  }

  // The bytes of the (UTF-8) character at i, as Python's text[pos] takes it.
  size_t char_length(size_t i) const {
    size_t n = 1;
    while (i + n < s_.size() && continuation(s_[i + n])) ++n;
    return n;
  }

  size_t digits(size_t i) const {
    while (is_digit(at(i))) ++i;
    return i;
  }

  // The end of [eE][+-]?\d+ at i, or i if there is none.
  size_t exponent(size_t i) const {
    if (at(i) != 'e' && at(i) != 'E') return i;
    size_t j = i + 1;
    if (at(j) == '+' || at(j) == '-') ++j;
    size_t k = digits(j);
    return k > j ? k : i;
  }

  // The end of the token at pos_ and its kind; pos_ when nothing matches.
  size_t match(Kind& kind) const {
    size_t p = pos_;
    char c = at(p);
    if (p < s_.size() && space_length(p)) {
      kind = kWs;
      while (p < s_.size() && space_length(p)) p += space_length(p);
      return p;
    }
    if (c == '/' && at(p + 1) == '/') {
      kind = kWs;
      while (p < s_.size() && s_[p] != '\n') ++p;
      return p;
    }
    if ((c == '%' && is_alnum(at(p + 1))) || (c == '@' && is_alpha(at(p + 1)))) {
      kind = c == '%' ? Kind::kValue : Kind::kSymbol;
      ++p;
      while (is_alnum(at(p))) ++p;
      return p;
    }
    size_t num = c == '-' ? p + 1 : p;
    if (at(num) == '0' && (at(num + 1) == 'x' || at(num + 1) == 'X')) {
      kind = Kind::kFloat;
      p = num + 2;
      while (is_alnum(at(p)) && at(p) != '_') ++p;
      return p;
    }
    if (is_digit(at(num))) {
      size_t end = digits(num);
      if (at(end) == '.') {
        kind = Kind::kDecimalFloat;
        return exponent(digits(end + 1));
      }
      size_t exp = exponent(end);
      kind = exp > end ? Kind::kDecimalFloat : Kind::kInt;
      return exp;
    }
    if (c == '"') {
      for (size_t i = p + 1; i < s_.size();) {
        if (s_[i] == '"') {
          kind = Kind::kString;
          return i + 1;
        }
        if (s_[i] == '\\') {
          if (i + 1 >= s_.size() || s_[i + 1] == '\n') break;
          i += 2;
        } else {
          ++i;
        }
      }
    }
    if (is_alpha(c)) {
      kind = Kind::kIdent;
      while (is_alnum(at(p)) || at(p) == '.') ++p;
      return p;
    }
    if (std::string_view("(){}[],:=^<>").find(c) != std::string_view::npos && c != '\0') {
      kind = Kind::kPunct;
      return p + 1;
    }
    return p;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

std::string join_scalars() {
  std::string out;
  for (const Type* t : scalars()) out += (out.empty() ? "" : ", ") + t->str();
  return out;
}

const Type* find_scalar(std::string_view name) {
  for (const Type* t : scalars()) {
    if (t->str() == name) return t;
  }
  return nullptr;
}

bool all_digits(std::string_view s) { return !s.empty() && std::ranges::all_of(s, is_digit); }

class Parser {
 public:
  explicit Parser(std::string_view text) : toks_(Lexer(text).run()), kernel_(std::make_unique<Kernel>()) {
    scopes_.emplace_back();
  }

  std::unique_ptr<Kernel> kernel() {
    take(Kind::kIdent, "kernel");
    kernel_->name = take(Kind::kSymbol).text.substr(1);
    take(Kind::kPunct, "(");
    while (!accept(")")) {
      if (!kernel_->args.empty()) take(Kind::kPunct, ",");
      Token tok = take(Kind::kValue);
      if (all_digits(std::string_view(tok.text).substr(1))) error("an argument name that is not a number", &tok);
      take(Kind::kPunct, ":");
      kernel_->args.push_back(define(tok, type()));
    }
    if (starts_attrs()) kernel_->attrs = attrs();
    kernel_->body = block();
    take(Kind::kEof);
    return std::move(kernel_);
  }

 private:
  // -- tokens ---------------------------------------------------------------
  const Token& peek(size_t k = 0) const { return toks_[std::min(i_ + k, toks_.size() - 1)]; }

  [[noreturn]] void error(const std::string& what, const Token* tok = nullptr) const {
    const Token& t = tok ? *tok : peek();
    throw ParseError("expected " + what + ", got " + json::quote(t.text), t.line, t.column, t.text);
  }

  Token take(Kind kind, std::string_view text = {}) {
    const Token& tok = peek();
    if (tok.kind != kind || (!text.empty() && tok.text != text))
      error(!text.empty() ? json::quote(text) : kind_name(kind));
    ++i_;
    return tok;
  }

  bool at(std::string_view text) const {
    return peek().text == text && (peek().kind == Kind::kPunct || peek().kind == Kind::kIdent);
  }

  bool accept(std::string_view text) {
    if (!at(text)) return false;
    ++i_;
    return true;
  }

  void nest(int& open, const char* kind, const Token* tok, int delta) {
    open += delta;
    if (open > kMaxNesting) error(std::string(kind) + " nested at most " + std::to_string(kMaxNesting) + " deep", tok);
  }

  // -- values ---------------------------------------------------------------
  Value* define(const Token& tok, const Type* type) {
    std::string name = tok.text.substr(1);
    for (const auto& scope : scopes_) {
      if (scope.contains(name)) error("a new value name (%" + name + " is already defined)", &tok);
    }
    Value* value = kernel_->new_value(type, all_digits(name) ? "" : name);
    scopes_.back()[name] = value;
    return value;
  }

  Value* use() {
    Token tok = take(Kind::kValue);
    std::string name = tok.text.substr(1);
    for (auto& scope : std::views::reverse(scopes_)) {
      auto it = scope.find(name);
      if (it != scope.end()) return it->second;
    }
    error("a value defined before use (" + tok.text + " is not)", &tok);
  }

  // -- types and attributes -------------------------------------------------
  const Type* type() {
    Token tok = take(Kind::kIdent);
    if (const Type* t = find_scalar(tok.text)) return t;
    if (tok.text == "ptr") {
      take(Kind::kPunct, "<");
      Token space = take(Kind::kIdent);
      take(Kind::kPunct, ">");
      std::string spaces;
      for (const auto& s : data::types::kAddressSpaces) {
        if (s.name == space.text) return ptr(s.name);
        spaces += (spaces.empty() ? "" : ", ") + std::string(s.name);
      }
      error("an address space (" + spaces + ")", &space);
    }
    if (tok.text == "vector") {
      take(Kind::kPunct, "<");
      Token n = take(Kind::kInt);
      Token elem = take(Kind::kIdent);
      take(Kind::kPunct, ">");
      const Type* scalar = elem.text.size() > 1 && elem.text[0] == 'x' ? find_scalar(elem.text.substr(1)) : nullptr;
      long long lanes = -1;  // stays out of range if the 20 digits overflow
      std::from_chars(n.text.data(), n.text.data() + n.text.size(), lanes);
      if (!scalar || lanes < 2 || lanes > 64) error("vector<Nx TYPE> with N in 2..64 and a scalar TYPE", &elem);
      return vector(scalar, static_cast<int>(lanes));
    }
    error("a type (" + join_scalars() + ", vector<NxT>, ptr<SPACE>)", &tok);
  }

  AttrValue attr_value() {
    Token tok = peek();
    ++i_;
    if (tok.kind == Kind::kInt) {
      std::int64_t value = 0;
      auto [end, ec] = std::from_chars(tok.text.data(), tok.text.data() + tok.text.size(), value);
      if (ec != std::errc()) {
        throw ParseError("expected an integer in the 64-bit range, got " + tok.text, tok.line, tok.column, tok.text);
      }
      return {value};
    }
    if (tok.kind == Kind::kFloat || tok.kind == Kind::kString) {
      try {
        if (tok.kind == Kind::kFloat) return {read_float(tok.text)};
        return {read_string(tok.text)};
      } catch (const LiteralError& e) {
        throw ParseError(e.what(), tok.line, tok.column, tok.text);
      }
    }
    if (tok.kind == Kind::kDecimalFloat || (tok.kind == Kind::kIdent && (tok.text == "inf" || tok.text == "nan"))) {
      error(
          "a float spelled as the hex of its IEEE double bits (e.g. 1.0 is 0x3FF0000000000000, inf 0x7FF0000000000000)",
          &tok);
    }
    if (tok.kind == Kind::kIdent && (tok.text == "true" || tok.text == "false")) return {tok.text == "true"};
    if (tok.text == "[") {
      nest(open_lists_, "lists", &tok, 1);
      AttrList items;
      while (!accept("]")) {
        if (!items.empty()) take(Kind::kPunct, ",");
        items.push_back(attr_value());
      }
      nest(open_lists_, "lists", &tok, -1);
      return {std::move(items)};
    }
    error("an attribute value", &tok);
  }

  Attrs attrs() {
    Attrs out;
    take(Kind::kPunct, "{");
    while (!accept("}")) {
      if (!out.empty()) take(Kind::kPunct, ",");
      Token key = take(Kind::kIdent);
      if (out.contains(key.text)) error("a new attribute name (" + key.text + " repeats)", &key);
      take(Kind::kPunct, "=");
      out.emplace(key.text, attr_value());
    }
    return out;
  }

  bool starts_attrs() const { return at("{") && peek(1).kind == Kind::kIdent && peek(2).text == "="; }

  // -- structure ------------------------------------------------------------
  Block block() {
    Token open = take(Kind::kPunct, "{");
    nest(open_regions_, "regions", &open, 1);
    scopes_.emplace_back();
    Block block;
    if (accept("^")) {
      take(Kind::kPunct, "(");
      while (!accept(")")) {
        if (!block.args.empty()) take(Kind::kPunct, ",");
        Token tok = take(Kind::kValue);
        take(Kind::kPunct, ":");
        block.args.push_back(define(tok, type()));
      }
      take(Kind::kPunct, ":");
    }
    while (!accept("}")) block.ops.push_back(op());
    scopes_.pop_back();
    nest(open_regions_, "regions", nullptr, -1);
    return block;
  }

  std::unique_ptr<Op> op() {
    std::vector<Token> result_toks;
    if (peek().kind == Kind::kValue) {
      result_toks.push_back(take(Kind::kValue));
      while (accept(",")) result_toks.push_back(take(Kind::kValue));
      take(Kind::kPunct, "=");
    }
    auto op = std::make_unique<Op>();
    op->name = take(Kind::kIdent).text;
    take(Kind::kPunct, "(");
    while (!accept(")")) {
      if (!op->operands.empty()) take(Kind::kPunct, ",");
      op->operands.push_back(use());
    }
    if (starts_attrs()) op->attrs = attrs();
    std::vector<const Type*> types;
    if (!result_toks.empty()) {
      take(Kind::kPunct, ":");
      types.push_back(type());
      while (accept(",")) types.push_back(type());
      if (types.size() != result_toks.size()) error(std::to_string(result_toks.size()) + " result type(s)");
    }
    while (at("{")) op->regions.push_back(block());
    for (size_t i = 0; i < result_toks.size(); ++i) op->results.push_back(define(result_toks[i], types[i]));
    return op;
  }

  std::vector<Token> toks_;
  size_t i_ = 0;
  std::vector<std::map<std::string, Value*, std::less<>>> scopes_;
  int open_regions_ = 0;
  int open_lists_ = 0;
  std::unique_ptr<Kernel> kernel_;
};

}  // namespace

std::unique_ptr<Kernel> parse(std::string_view text) { return Parser(text).kernel(); }

}  // namespace rocke::ir
