// The C++ twin of toy_family.py, for the emitters' identity test.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "platform/family/cpp/family.h"
#include "platform/ir/cpp/builder.h"

namespace rocke::family::toy {
namespace {

json::Value spec_json(const json::Value& spec) {
  const bool ok = spec.is_object() && spec.as_object().size() == 2 && spec.as_object().contains("lanes") &&
                  spec.as_object().at("lanes").is_int() && spec.as_object().contains("note") &&
                  spec.as_object().at("note").is_str();
  if (!ok) {
    constexpr std::string_view kAllowed = R"(an object {"lanes": int, "note": str})";
    throw SpecError("toy_family.SpecError", "ToySpec", spec, nullptr, errors::worded("ToySpec", kAllowed, spec));
  }
  return spec;
}

constexpr std::int64_t kMaxLanes = 1024;  // toy_family.MAX_LANES

std::unique_ptr<ir::Kernel> build(const Case& c) {
  const std::int64_t wanted = c.spec.as_object().at("lanes").as_int();
  if (wanted > kMaxLanes) {
    throw Refusal(
        "toy_family.ToyRefusal", "ToySpec.lanes", wanted, kMaxLanes,
        errors::worded("ToySpec.lanes", "at most " + std::to_string(kMaxLanes), wanted, "no other family takes it"));
  }
  const int lanes = static_cast<int>(wanted);
  ir::KernelBuilder b("toy_" + c.id, c.arch, {lanes, 1, 1});
  ir::Value* out = b.arg("out", ir::ptr("global"));
  b.barrier();
  ir::Value* r = b.buffer_rsrc(out, 256);
  ir::Value* tid = b.thread_id(0);  // Python's argument order (builder.h, ORDER)
  ir::Value* at = b.mul(tid, 4);
  ir::Value* lane = b.lane_id();
  ir::Value* value = b.convert(lane, ir::scalar("f32"));
  b.buffer_store(r, at, value);
  return b.finish();
}

const Registration kToy({.name = "toy", .build = &build, .spec_json = &spec_json});

}  // namespace
}  // namespace rocke::family::toy
