# Sourced by the shell benches: how they write their figure file, as
# tools/bench/figures.py's benches write theirs (platform/files/atomic.py).
#
#   { echo "# TITLE"; ...; } | figure_write docs/figures/NAME.md
#
# figure_write FILE: standard input, whole, into FILE (mode 0644): written to a
# temporary file beside it and renamed over it, so a reader never sees half a
# figure and a failed or killed bench leaves the last complete one (a kill
# mid-write can leave a .rocke-tmp-* file, never a cut FILE).
figure_write() {
  local out=$1 tmp
  tmp=$(mktemp "$(dirname "$out")/.rocke-tmp-XXXXXX") || return 1
  if cat >"$tmp" && chmod 0644 "$tmp" && mv -f "$tmp" "$out"; then return 0; fi
  rm -f "$tmp"
  return 1
}
