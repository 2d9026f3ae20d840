#include "platform/ir/cpp/attrs.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "platform/ir/cpp/literals.h"

namespace rocke::ir {

std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  if (ec != std::errc()) throw std::logic_error("float_repr: to_chars failed");
  std::string s(buf, end);  // [-]d[.ddd]e(+|-)XX, the shortest round trip
  std::string sign;
  if (s[0] == '-') {
    sign = "-";
    s.erase(0, 1);
  }
  const std::size_t e = s.find('e');
  // NOLINTNEXTLINE(bugprone-unchecked-string-to-number-conversion): s is printf's %e, a signed exponent of digits
  const int exponent = std::atoi(s.c_str() + e + 1);
  std::string digits;
  for (char c : s.substr(0, e)) {
    if (c != '.') digits += c;
  }
  const int n = static_cast<int>(digits.size());
  // Python (format_float_short, repr mode): d.ddd x 10^exponent is written
  // in fixed notation unless the point would sit 4+ places left of the first
  // digit or more than 16 places right of it.
  const int decpt = exponent + 1;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return sign + "0." + std::string(-decpt, '0') + digits;
    if (decpt >= n) return sign + digits + std::string(decpt - n, '0') + ".0";
    return sign + digits.substr(0, decpt) + "." + digits.substr(decpt);
  }
  std::string out = sign + digits.substr(0, 1);
  if (n > 1) out += "." + digits.substr(1);
  const int mag = std::abs(exponent);
  return out + (exponent < 0 ? "e-" : "e+") + (mag < 10 ? "0" : "") + std::to_string(mag);
}

// Every piece is appended to one string (no temporaries): the printer runs
// on every kernel the engine emits.
void format_attr(std::string& out, const AttrValue& value) {
  if (value.is_bool()) {
    out += value.as_bool() ? "true" : "false";
  } else if (value.is_int()) {
    out += std::to_string(value.as_int());
  } else if (value.is_float()) {
    out += float_text(value.as_float());
  } else if (value.is_str()) {
    out += string_text(value.as_str());
  } else {
    out += '[';
    const char* sep = "";
    for (const AttrValue& item : value.as_list()) {
      out += sep;
      format_attr(out, item);
      sep = ", ";
    }
    out += ']';
  }
}

std::string attr_text(const AttrValue& value) {
  std::string out;
  format_attr(out, value);
  return out;
}

std::string attr_shown(const AttrValue& value) {
  if (value.is_float()) return float_repr(value.as_float());
  if (!value.is_list()) return attr_text(value);
  std::string out = "[";
  for (const AttrValue& item : value.as_list()) out += (out.size() > 1 ? ", " : "") + attr_shown(item);
  return out + "]";
}

json::Array names_value(const std::vector<std::string>& items) { return {items.begin(), items.end()}; }

}  // namespace rocke::ir
