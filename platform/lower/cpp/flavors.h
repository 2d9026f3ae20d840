// The flavor and intrinsic tables the lowering emits from, mirroring
// platform/lower/flavors.py and intrinsics.py. Every row comes from
// platform/arch/flavor_facts.json and mma_forms.json through the generated
// headers (BUILD.bazel), never from this code.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rocke::lower {

struct Flavor {
  std::string_view name;
  std::string_view datalayout;
  std::string_view triple_kind;  // "amdgcn" or "subarch"
  int code_object_version;
  std::string_view rsrc_intrinsic;
  std::string_view rsrc_count_type;  // i32 or i64
  std::span<const std::string_view> cpus;

  // The target triple for `arch` (flavor_facts.Flavor.triple).
  std::string triple(std::string_view arch) const;
  bool knows(std::string_view arch) const;
};

// Every flavor, oldest LLVM first (flavor_facts.FLAVORS's order).
std::span<const Flavor> flavors();
// The flavor called `name`, or nullptr.
const Flavor* find_flavor(std::string_view name);
// The flavors that know `arch`, oldest first (flavors.supporting).
std::vector<std::string_view> supporting(std::string_view arch);

struct Generation {
  int buffer_flags;    // word 3 of a buffer resource
  bool split_barrier;  // s.barrier.signal + s.barrier.wait instead of s.barrier
};
// The generation's facts; std::out_of_range for a generation the file lacks.
Generation generation(std::string_view name);

// The integer type a buffer access of `bytes` bytes moves, and its
// intrinsic suffix (intrinsics.BUFFER_TYPES, BUFFER_SUFFIX); nullopt if none.
struct Access {
  std::string_view type;
  std::string_view suffix;
};
std::optional<Access> buffer_access(int bytes);

// The id intrinsics of axis `dim` (0..2): "workitem" or "workgroup" (intrinsics.IDS).
std::string_view id_intrinsic(std::string_view kind, int dim);

// The called name of intrinsic `key` (flavor_facts.json "intrinsics";
// intrinsics.spell): its name, plus "." + `suffix` (the overload's type, e.g.
// f32, v2i32) exactly when it is overloaded. std::logic_error for a key the
// file lacks, or a suffix given to a plain name or missing for an overloaded one.
std::string intrinsic(std::string_view key, std::string_view suffix = {});

// One matrix op's LLVM lowering as flavor `flavor` declares it
// (mma_forms.Llvm.for_flavor).
struct MmaLowering {
  std::string_view intrinsic;
  std::string_view ab;
  std::string_view c;
  std::string_view form;  // mfma, wmma, wmma6, wmma8
  std::string_view cast;  // "" or "bitcast"
};
std::optional<MmaLowering> mma(std::string_view op, std::string_view generation, std::string_view flavor);
// The generations that have op id `op`, sorted.
std::vector<std::string_view> mma_generations(std::string_view op);

}  // namespace rocke::lower
