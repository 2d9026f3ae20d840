// Python's repr() of the values error messages quote: attribute values
// (True, 3, 1.5, 'x', [1, 2]) and lists of str. The IR's messages are
// worded as Python's, and Python writes these with repr().
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "platform/ir/cpp/core.h"

namespace rocke::ir {

// repr(x) of a Python float: the shortest digits that read back as `d`
// (std::to_chars, as Python's repr picks them), fixed notation for
// exponents -4..15 with at least one decimal ("1.0"), otherwise d.ddde+XX;
// "inf", "-inf", "nan".
std::string float_repr(double d);

// repr(v) of an attribute value: True/False, 3, float_repr, the str's repr,
// or a list's "[a, b]".
std::string repr(const AttrValue& v);

// repr(list) of a list of str: "['a', 'b']".
std::string str_list_repr(const std::vector<std::string>& items);

// Python's is_int (ops.is_int): an int and not a bool.
inline bool is_int(const AttrValue& v) { return v.is_int(); }

}  // namespace rocke::ir
