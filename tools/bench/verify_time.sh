#!/usr/bin/env bash
# How long issue 21's acceptance command takes: ResNet-50's catalog built for
# gfx942 into a fresh folder, every distinct kernel verified in the emulator
# and modelled. Appends a row to docs/figures/verify-resnet50.md (written
# whole, atomically; the rows of earlier runs are kept, so the file holds the
# figure at several loads and commits), headed by this command and the date as
# tools/bench/figures.py heads the other benches' files.
#
#   tools/bench/verify_time.sh
#
# //tools:rocke is built first and not timed: the row is the command's own
# wall time on a warm Bazel, what a user waits for after the first build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tools/bench/figure.sh
if ! git diff --quiet HEAD --; then
  echo "verify_time: the checkout has uncommitted changes; the row names a commit, so commit or stash them first" >&2
  exit 2
fi
# ./bazel runs in the pinned root, which writes to the host only inside the checkout.
out=$(mktemp -d "$PWD/.verify-time-XXXXXX")
trap 'rm -rf "$out"' EXIT
./bazel build //tools:rocke >/dev/null 2>&1 || { echo "verify_time: ./bazel build //tools:rocke failed; run it to see why" >&2; exit 1; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s.%N)
./bazel run //tools:rocke -- build --problems catalog/resnet50.json --arch gfx942 --out "$out/catalog" --verify \
  >"$out/log" 2>&1 || { tail -5 "$out/log" >&2; echo "verify_time: the build failed (above)" >&2; exit 1; }
seconds=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t0" "$(date +%s.%N)")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
summary=$(grep -E '^[0-9]+ kernels \(' "$out/log" | tail -1)
[[ -n $summary ]] || { tail -5 "$out/log" >&2; echo "verify_time: the build printed no summary line (its log's end above)" >&2; exit 1; }
summary=${summary%; wrote *} # the folder is this run's scratch
row="| $(git rev-parse --short=12 HEAD) | $(date -u +%F) | $seconds s | $load_before | $load_after | $summary |"
echo "$row"

fig=docs/figures/verify-resnet50.md
{
  echo "# rocke build --verify: ResNet-50 for gfx942"
  echo
  echo "\`tools/bench/verify_time.sh\`, last run $(date -u +%F) ($(nproc) cores). Each row times"
  echo "\`./bazel run //tools:rocke -- build --problems catalog/resnet50.json --arch gfx942 --out DIR --verify\` into a fresh"
  echo "DIR once //tools:rocke is built: issue 21's acceptance asks for under 5 minutes on this machine. The build, the"
  echo "verification and the modelled times are the command's (its last line, quoted); the load averages (1, 5, 15"
  echo "minutes) say what else ran."
  echo
  echo "| commit | date | wall time | load before | load after | the command's summary |"
  echo "|---|---|---|---|---|---|"
  [[ -f $fig ]] && grep -E '^\| [0-9a-f]{12} \|' "$fig" || true
  echo "$row"
} | figure_write "$fig"
echo "verify_time: wrote $fig" >&2
