// Python's spellings that error messages mirror: repr() of a str, so a C++
// error reads exactly as the Python one.
#pragma once

#include <string>
#include <string_view>

namespace rocke::py {

// repr(s) for a str: single quotes unless s has a ' and no ", backslash
// escapes for \\, the quote, \t \n \r, \xNN for other control bytes.
// Non-ASCII characters (valid UTF-8) Python deems non-printable are escaped
// as \xNN, \uNNNN or \UNNNNNNNN (separators, format and private-use
// characters, C1 controls; not unassigned code points); other bytes >= 0x80
// pass through, which for printable characters is what Python prints.
std::string repr(std::string_view s);

// difflib.get_close_matches(word, candidates, n=1)[0] (cutoff 0.6), or "" if
// none: the candidate with the highest SequenceMatcher ratio, ties to the
// greatest string.
std::string_view close_match(std::string_view word, const std::string_view* begin, const std::string_view* end);

}  // namespace rocke::py
