#!/usr/bin/env bash
# The main loops of ResNet-50's convolutions, forward, data gradient and weight
# gradient, measured as issue 19 asks: `rocke build` of each catalog for gfx942,
# gfx950 and gfx1201 (catalog/resnet50.json, each conv_fwd problem turned into
# the op; a gradient drops the epilogue's bias, activation, residual and scale,
# which it has no use for), then `rocke isa --catalog DIR --json` of it, tabulated
# by catalog_loops.py. Writes docs/figures/catalog-loops.md (whole, atomically),
# headed by this command and the date, or FIGURE where given.
#
#   tools/bench/catalog_loops.sh [FIGURE]
#
# The catalogs are built under .loops/ in the checkout (the only place the pinned
# root's outputs reach the host); it is removed when the bench ends.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tools/bench/figure.sh
fig=${1:-docs/figures/catalog-loops.md}
work=.loops
rm -rf "$work" && mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

isa=()
for op in conv_fwd conv_dgrad conv_wgrad; do
  toolchains/sysroot/root.sh exec python3 - "$op" >"$work/$op.json" <<'EOF'
import json, sys
op = sys.argv[1]
d = json.load(open("catalog/resnet50.json"))
d["problems"] = [p for p in d["problems"] if p["op"] == "conv_fwd"]
for p in d["problems"]:
    p["op"] = op
    if op != "conv_fwd":
        for field in ("bias", "activation", "residual", "scale"):
            p.pop(field, None)
json.dump(d, sys.stdout)
EOF
  echo "catalog_loops: building the $op catalog..." >&2
  ./bazel run //tools:rocke -- build --problems "$PWD/$work/$op.json" --arch gfx942,gfx950,gfx1201 --out "$PWD/$work/$op" \
    >"$work/$op.build.log" 2>&1 || { tail -20 "$work/$op.build.log" >&2; echo "catalog_loops: rocke build of $op failed (above)" >&2; exit 1; }
  ./bazel run //tools:rocke -- isa --catalog "$PWD/$work/$op" --json >"$work/$op.isa.json" 2>"$work/$op.isa.log" ||
    { tail -20 "$work/$op.isa.log" >&2; echo "catalog_loops: rocke isa of $op failed (above)" >&2; exit 1; }
  isa+=("$work/$op.isa.json")
done
flavor=$(toolchains/sysroot/root.sh exec python3 -c 'import json, sys; print(" ".join(sorted({c["flavor"] for c in json.load(open(sys.argv[1]))["code_objects"]})))' "${isa[0]}")
body=$(toolchains/sysroot/root.sh exec python3 tools/bench/catalog_loops.py "${isa[@]}")

{
  echo "# The conv catalogs' main loops"
  echo
  echo "\`tools/bench/catalog_loops.sh\`, measured $(date -u +%F) at $(git rev-parse --short=12 HEAD) ($flavor)."
  echo "ResNet-50's convolutions (catalog/resnet50.json, batch 1) as forward, data-gradient and weight-gradient"
  echo "catalogs for gfx942, gfx950 and gfx1201, each code object's main loop measured by \`rocke isa\`. Per family and"
  echo "arch: the code objects whose main loop holds matrix ops (measured) of all; how many give every global load at"
  echo "least a quarter of the loop's matrix ops (cover); the worst cover and its layer; the median non-matrix"
  echo "instructions per 4096 MACs of a wave against issue 19's goal; code objects that spill; VGPRs and occupancy."
  echo "A family's conv1 (7x7, C = 3: the stem) is a row of its own."
  echo
  echo "$body"
} | figure_write "$fig"
cat "$fig"
echo "catalog_loops: wrote $fig" >&2
