// rows::workgroup's shape against platform/tile/rows_test.py's kernels: a
// butterfly of log2(wave) exchanges, and LDS slots with two barriers only
// where there is more than one wave. (Its numbers are checked in Python, and
// its op order by every norm case's byte identity.)
#include "platform/tile/cpp/rows.h"

#include <string>

#include "platform/cpp/testing/check.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/core.h"
#include "platform/ir/cpp/types.h"

using namespace rocke;

namespace {

// How many ops named `name` a kernel of `waves` waves of `wave` lanes has around one workgroup sum.
int count(int wave, int waves, const std::string& name) {
  ir::KernelBuilder b("rows", wave == 64 ? "gfx942" : "gfx1201", {wave * waves, 1, 1}, wave);
  ir::Value* src = b.arg("src", ir::ptr("global"));
  ir::Value* x = b.load(src, ir::scalar("f32"));
  ir::Value* slots = waves > 1 ? b.lds_alloc(tile::rows::slots_bytes(waves)) : nullptr;
  ir::Value* total = tile::rows::workgroup(b, x, &ir::KernelBuilder::add, slots, waves);
  b.store(src, total);
  const auto kernel = b.finish();
  int n = 0;
  for (const ir::Op* op : ir::walk(kernel->body)) n += op->name == name ? 1 : 0;
  return n;
}

}  // namespace

ROCKE_TEST(a_wave_takes_log2_of_its_lanes_exchanges) {
  CHECK_EQ(count(64, 1, "lane.bpermute"), 6);
  CHECK_EQ(count(32, 1, "lane.bpermute"), 5);
  CHECK_EQ(count(64, 1, "gpu.barrier"), 0);
}

ROCKE_TEST(waves_meet_in_lds_between_two_barriers) {
  CHECK_EQ(tile::rows::slots_bytes(1), 0);
  CHECK_EQ(tile::rows::slots_bytes(4), 16);
  CHECK_EQ(count(64, 4, "gpu.barrier"), 2);
  CHECK_EQ(count(32, 8, "mem.load"), 1 + 8);  // the source, then every wave's slot
}

int main() { return rocke::testing::run_all(); }
