// rocke-emit: the C++ emitter, the twin of platform/family/emit.py. Linked
// with family libraries (which register themselves), it builds every case of
// a family's case list, prints each kernel (.rk) and lowers it for one
// flavor, and writes the same three files as the Python emitter, byte for
// byte:
//
//   rocke-emit --family conv_direct_fwd --flavor llvm22 --cases conv_direct_fwd.cases.json
//              --irs OUT.irs.json --rk OUT.rk.json --manifest OUT.manifest --bless-target LABEL
//
// --family is the registered name (the Python emitter takes the module).
// --perturb-case ID is for tests only: it changes one byte of that case's
// .rk text, so a test can prove the byte-identity gate fails naming it.
// Any error is one line on stderr and exit status 1 (2 for bad flags).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "platform/cpp/json/json.h"
#include "platform/family/cpp/family.h"
#include "platform/family/cpp/manifest.h"
#include "platform/files/cpp/atomic.h"
#include "platform/ir/cpp/printer.h"
#include "platform/lower/cpp/lower.h"

namespace rocke::family {
namespace {

// Python's type(e).__name__ for the rejection the manifest records.
constexpr const char* kArchDomainError = "ArchDomainError";

const std::vector<std::string> kFlags = {"--family", "--flavor",   "--cases",       "--irs",
                                         "--rk",     "--manifest", "--bless-target"};
constexpr const char* kPerturb = "--perturb-case";

struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

std::string flag_list() {
  std::string out;
  for (const std::string& f : kFlags) out += (out.empty() ? "" : ", ") + f;
  return out;
}

// --flag VALUE or --flag=VALUE for each known flag; every one of kFlags once.
std::map<std::string, std::string> parse_flags(int argc, char** argv) {
  std::map<std::string, std::string> got;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    const auto eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      throw UsageError(arg + ": expected a value after it");
    }
    if (arg != kPerturb && std::find(kFlags.begin(), kFlags.end(), arg) == kFlags.end()) {
      throw UsageError("unknown flag " + arg + ": expected " + flag_list() + " (and the test-only " + kPerturb + ")");
    }
    if (!got.emplace(arg, value).second) throw UsageError(arg + ": expected it once, got it twice");
  }
  std::string missing;
  for (const std::string& f : kFlags) {
    if (!got.contains(f)) missing += (missing.empty() ? "" : ", ") + f;
  }
  if (!missing.empty()) throw UsageError("expected all of " + flag_list() + " (missing " + missing + ")");
  return got;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read the case list " + path + ": " + std::strerror(errno) +
                             "; pass the family's NAME.cases.json");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// An id -> text map as emit.py writes it: canonical JSON and one newline.
std::string text_map(const std::map<std::string, std::string>& texts) {
  json::Object o;
  for (const auto& [id, text] : texts) o.emplace(id, text);
  return json::canonical(o) + "\n";
}

// A case that failed, worded as emit.py words it: the error's Python class
// name when it has one.
std::string failed(const Family& fam, const Case& c, std::string_view error_class, const std::exception& e) {
  return "family " + fam.name + ", case " + c.id + ": " + (error_class.empty() ? "" : std::string(error_class) + ": ") +
         e.what();
}

// emit.emit: build, print and lower every case in the list's order; the
// cases the family refuses (Refusal) or the flavor cannot express are
// rejections, the rest are covered by size and digest, representatives marked.
int emit(const std::map<std::string, std::string>& flags) {
  const Family& fam = get(flags.at("--family"));
  const std::string flavor = flags.at("--flavor");
  std::vector<Case> cases = read_cases(read_file(flags.at("--cases")), fam);
  std::map<std::string, std::string> irs, rks;
  std::vector<manifest::Entry> entries;
  std::vector<std::pair<const Case*, std::string>> emitted;  // case, kernel name
  for (Case& c : cases) {
    try {
      std::unique_ptr<ir::Kernel> kernel;
      try {
        kernel = fam.build(c);
      } catch (const Refusal& e) {
        entries.push_back(manifest::Entry{c.id, c.arch, "", 0, "", e.class_name(), false});
        continue;
      }
      rks[c.id] = ir::print_kernel(*kernel);
      try {
        irs[c.id] = lower::lower_verified(*kernel, flavor);  // fam.build's kernel, verified by finish()
      } catch (const lower::ArchDomainError&) {
        entries.push_back(manifest::Entry{c.id, c.arch, "", 0, "", kArchDomainError, false});
        continue;
      }
      emitted.emplace_back(&c, kernel->name);
    } catch (const SpecError& e) {
      throw std::runtime_error(failed(fam, c, e.class_name(), e));
    } catch (const ir::VerifyError& e) {
      throw std::runtime_error(failed(fam, c, "VerifyError", e));
    } catch (const std::exception& e) {
      throw std::runtime_error(failed(fam, c, "", e));
    }
  }
  if (const auto it = flags.find(kPerturb); it != flags.end()) {
    const auto rk = rks.find(it->second);
    if (rk == rks.end())
      throw UsageError(std::string(kPerturb) + " " + it->second + ": expected a case id of the list");
    rk->second[0] = rk->second[0] == '#' ? '$' : '#';
  }
  std::vector<const Case*> emitted_cases;
  for (const auto& e : emitted) emitted_cases.push_back(e.first);
  const std::vector<std::string> kept = representatives(emitted_cases);
  for (const auto& [c, kernel_name] : emitted) {
    const bool keep = std::find(kept.begin(), kept.end(), c->id) != kept.end();
    entries.push_back(manifest::entry_for(c->id, c->arch, kernel_name, irs.at(c->id), keep));
  }
  files::write_atomic(flags.at("--irs"), text_map(irs));
  files::write_atomic(flags.at("--rk"), text_map(rks));
  files::write_atomic(flags.at("--manifest"),
                      manifest::render(entries, manifest::header(fam.name, flavor, flags.at("--bless-target"))));
  return 0;
}

}  // namespace
}  // namespace rocke::family

int main(int argc, char** argv) {
  try {
    return rocke::family::emit(rocke::family::parse_flags(argc, argv));
  } catch (const rocke::family::UsageError& e) {
    std::cerr << "rocke-emit: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "rocke-emit: error: " << e.what() << "\n";
    return 1;
  }
}
