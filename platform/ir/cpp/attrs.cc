#include "platform/ir/cpp/attrs.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "platform/cpp/py/repr.h"

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

std::string repr(const AttrValue& v) {
  if (v.is_bool()) return v.as_bool() ? "True" : "False";
  if (v.is_int()) return std::to_string(v.as_int());
  if (v.is_float()) return float_repr(v.as_float());
  if (v.is_str()) return py::repr(v.as_str());
  std::string out = "[";
  for (const AttrValue& x : v.as_list()) out += (out.size() > 1 ? ", " : "") + repr(x);
  return out + "]";
}

std::string str_list_repr(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& s : items) out += (out.size() > 1 ? ", " : "") + py::repr(s);
  return out + "]";
}

}  // namespace rocke::ir
