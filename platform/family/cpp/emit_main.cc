// rocke-emit: the C++ emitter, the twin of platform/family/emit.py. Linked
// with family libraries (which register themselves), it builds every case of
// a family's case list once, prints each kernel (.rk) and lowers it for each
// flavor asked, and writes per flavor the same three files as the Python
// emitter, byte for byte:
//
//   rocke-emit --family conv_direct_fwd --cases conv_direct_fwd.cases.json
//              --flavor llvm22 --irs OUT.irs.json --rk OUT.rk.json --manifest OUT.manifest --bless-target LABEL
//              [--flavor llvm23 --irs ... --rk ... --manifest ... --bless-target ...]...
//
// The n-th --flavor goes with the n-th --irs, --rk, --manifest and
// --bless-target. --family is the registered name (the Python emitter takes
// the module). --perturb-case ID is for tests only: it changes one byte of
// that case's .rk text, so a test can prove the byte-identity gate fails
// naming it. Any error is one line on stderr and exit status 1 (2 for bad
// flags).
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "platform/cpp/json/json.h"
#include "platform/family/cpp/family.h"
#include "platform/family/cpp/manifest.h"
#include "platform/files/cpp/atomic.h"
#include "platform/ir/cpp/printer.h"
#include "platform/lower/cpp/flavors.h"
#include "platform/lower/cpp/lower.h"

namespace rocke::family {
namespace {

// Python's type(e).__name__ for the rejection the manifest records.
constexpr const char* kArchDomainError = "ArchDomainError";

const std::vector<std::string> kFlags = {"--family", "--flavor",   "--cases",       "--irs",
                                         "--rk",     "--manifest", "--bless-target"};
// Given once per flavor, in the same order; --family and --cases once.
const std::vector<std::string> kPerFlavor = [] {
  std::vector<std::string> out;
  for (const std::string& f : kFlags) {
    if (f != "--family" && f != "--cases") out.push_back(f);
  }
  return out;
}();
constexpr const char* kPerturb = "--perturb-case";

struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& f : items) out += (out.empty() ? "" : ", ") + f;
  return out;
}

// Every value of each flag, in order: --flag VALUE or --flag=VALUE.
using Flags = std::map<std::string, std::vector<std::string>>;

bool per_flavor(const std::string& flag) {
  return std::find(kPerFlavor.begin(), kPerFlavor.end(), flag) != kPerFlavor.end();
}

// Each of kFlags given (the per-flavor ones once per flavor, each flavor
// once), the others and --perturb-case at most once.
Flags parse_flags(int argc, char** argv) {
  Flags got;
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
      throw UsageError("unknown flag " + arg + ": expected " + joined(kFlags) + " (and the test-only " + kPerturb +
                       ")");
    }
    std::vector<std::string>& values = got[arg];
    if (!values.empty() && !per_flavor(arg)) throw UsageError(arg + ": expected it once, got it twice");
    values.push_back(value);
  }
  std::vector<std::string> missing;
  for (const std::string& f : kFlags) {
    if (!got.contains(f)) missing.push_back(f);
  }
  if (!missing.empty()) throw UsageError("expected all of " + joined(kFlags) + " (missing " + joined(missing) + ")");
  std::vector<std::string> counts;
  bool uneven = false;
  for (const std::string& f : kPerFlavor) {
    counts.push_back(std::to_string(got.at(f).size()) + " " + f);
    uneven = uneven || got.at(f).size() != got.at("--flavor").size();
  }
  if (uneven) throw UsageError("expected " + joined(kPerFlavor) + " once per flavor, got " + joined(counts));
  std::vector<std::string> twice;
  const std::vector<std::string>& flavors = got.at("--flavor");
  for (auto it = flavors.begin(); it != flavors.end(); ++it) {
    if (std::find(flavors.begin(), it, *it) == it && std::count(flavors.begin(), flavors.end(), *it) > 1)
      twice.push_back(*it);
  }
  std::sort(twice.begin(), twice.end());
  if (!twice.empty()) throw UsageError("expected each flavor once, got " + joined(twice) + " more than once");
  std::vector<std::string> known;
  for (const lower::Flavor& f : lower::flavors()) known.emplace_back(f.name);
  for (const std::string& f : flavors) {
    if (std::find(known.begin(), known.end(), f) == known.end())
      throw UsageError("--flavor: expected one of " + joined(known) + ", got " + f);
  }
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

// One flavor's share of emit.emit_flavors: the lowered IR, the manifest's
// entries (rejections in the cases' order, then the emitted cases) and the
// emitted cases with their kernel names.
struct FlavorOut {
  std::map<std::string, std::string> irs;
  std::vector<manifest::Entry> entries;
  std::vector<std::pair<const Case*, std::string>> emitted;
};

// emit.emit_flavors: build and print every case once, in the list's order,
// and lower it for each flavor; the cases the family refuses (Refusal) or a
// flavor cannot express are rejections, the rest are covered by size and
// digest, representatives marked.
int emit(const Flags& flags) {
  const Family& fam = get(flags.at("--family").front());
  const std::vector<std::string>& flavors = flags.at("--flavor");
  std::vector<Case> cases = read_cases(read_file(flags.at("--cases").front()), fam);
  std::map<std::string, std::string> rks;
  std::map<std::string, FlavorOut> out;
  for (Case& c : cases) {
    try {
      std::unique_ptr<ir::Kernel> kernel;
      try {
        kernel = fam.build(c);
      } catch (const Refusal& e) {
        for (const std::string& flavor : flavors)
          out[flavor].entries.push_back(manifest::Entry{c.id, c.arch, "", 0, "", e.class_name(), false});
        continue;
      }
      rks[c.id] = ir::print_kernel(*kernel);
      for (const std::string& flavor : flavors) {
        FlavorOut& f = out[flavor];
        try {
          f.irs[c.id] = lower::lower_verified(*kernel, flavor);  // fam.build's kernel, verified by finish()
        } catch (const lower::ArchDomainError&) {
          f.entries.push_back(manifest::Entry{c.id, c.arch, "", 0, "", kArchDomainError, false});
          continue;
        }
        f.emitted.emplace_back(&c, kernel->name);
      }
    } catch (const SpecError& e) {
      throw std::runtime_error(failed(fam, c, e.class_name(), e));
    } catch (const ir::VerifyError& e) {
      throw std::runtime_error(failed(fam, c, "VerifyError", e));
    } catch (const std::exception& e) {
      throw std::runtime_error(failed(fam, c, "", e));
    }
  }
  if (const auto it = flags.find(kPerturb); it != flags.end()) {
    const auto rk = rks.find(it->second.front());
    if (rk == rks.end())
      throw UsageError(std::string(kPerturb) + " " + it->second.front() + ": expected a case id of the list");
    rk->second[0] = rk->second[0] == '#' ? '$' : '#';
  }
  for (std::size_t i = 0; i < flavors.size(); ++i) {
    FlavorOut& f = out[flavors[i]];
    std::vector<const Case*> emitted_cases;
    for (const auto& e : f.emitted) emitted_cases.push_back(e.first);
    const std::vector<std::string> kept = representatives(emitted_cases);
    for (const auto& [c, kernel_name] : f.emitted) {
      const bool keep = std::find(kept.begin(), kept.end(), c->id) != kept.end();
      f.entries.push_back(manifest::entry_for(c->id, c->arch, kernel_name, f.irs.at(c->id), keep));
    }
    files::write_atomic(flags.at("--irs")[i], text_map(f.irs));
    files::write_atomic(flags.at("--rk")[i], text_map(rks));
    files::write_atomic(
        flags.at("--manifest")[i],
        manifest::render(f.entries, manifest::header(fam.name, flavors[i], flags.at("--bless-target")[i])));
  }
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
