// The spellings of the values the IR's error messages quote: attribute
// values as the .rk text spells them (the printer's too), lists of names,
// and Python numbers a builder call was given.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "platform/cpp/json/json.h"
#include "platform/ir/cpp/core.h"

namespace rocke::ir {

// repr(x) of a Python float: the shortest digits that read back as `d`
// (std::to_chars, as Python's repr picks them), fixed notation for
// exponents -4..15 with at least one decimal ("1.0"), otherwise d.ddde+XX;
// "inf", "-inf", "nan".
std::string float_repr(double d);

// Appends `value` as the .rk text spells it (printer.format_attr,
// SPELLING.md): true, 3, 0x3FF8000000000000, "eq", [1, 2].
void format_attr(std::string& out, const AttrValue& value);

// format_attr's text alone: what a VerifyError about an attribute value
// holds as its value, in both engines (core.attr_fact).
std::string attr_text(const AttrValue& value);

// What a VerifyError's message shows of an attribute value: attr_text, but
// each float as float_repr spells it (1.5, not its bits), for people.
std::string attr_shown(const AttrValue& value);

// A list of names as a VerifyError's value: a JSON list, as Python's.
json::Array names_value(const std::vector<std::string>& items);

// Python's is_int (ops.is_int): an int and not a bool.
inline bool is_int(const AttrValue& v) { return v.is_int(); }

}  // namespace rocke::ir
