#!/usr/bin/env bash
# //tools:affected on real diffs. A scratch clone of this checkout gets real
# commits (one branch each); the tool diffs them there (--repo) and maps the
# changed files to tests with bazel query in this checkout, which holds the
# same files. (A Bazel test cannot do this: no bazel runs inside a test.)
#
#   tools/checks/affected_check.sh [BAZEL_FLAG...]     flags go to `bazel run`
#
# Prints "PASS name" or "FAIL name: ..." per check, then "checks: P passed, F failed".
# Exit status: the number of failed checks (0 when all hold).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# sort, comm and the tool's Python sort must agree on order, whatever the host's locale.
export LC_ALL=C
flags=("$@")

# The tool runs inside the pinned root, which mounts only the checkout and
# /var/cache/rocke: the clone lives under the latter.
mkdir -p /var/cache/rocke/tmp
scratch=$(mktemp -d /var/cache/rocke/tmp/affected-check.XXXXXX) || exit 1
trap 'rm -rf "$scratch"' EXIT
repo=$scratch/repo
git clone --quiet --no-hardlinks . "$repo" || { echo "checks: 0 passed, 1 failed (cannot clone the checkout)"; exit 1; }
base=$(git -C "$repo" rev-parse HEAD)

# branch NAME FILE...: a branch off base with one commit appending a line to each FILE.
branch() {
  local name=$1 file
  shift
  git -C "$repo" checkout --quiet -b "$name" "$base"
  for file in "$@"; do echo "# affected_check: $name" >>"$repo/$file"; done
  git -C "$repo" -c user.name=affected-check -c user.email=affected-check@rocke.invalid commit --quiet -am "$name"
}

# run_tool BASE HEAD [OPTION...]: the tool's stdout in $out, its exit status in
# $status, its stderr in $scratch/stderr and the last line (the tool's own) in $last.
run_tool() {
  out=$(./bazel run "${flags[@]}" //tools:affected -- --repo "$repo" "${@:3}" "$1" "$2" 2>"$scratch/stderr")
  status=$?
  last=$(tail -n 1 "$scratch/stderr")
}

query() { ./bazel query --output=label "$1" 2>/dev/null | sort; }

# Expected sets, asked of bazel query here, independently of the tool.
all=$(comm -23 <(query 'tests(//...)') <(query 'attr(tags, manual, tests(//...))'))
# The conv tests that read direct_fwd.py (the C++ mirror's unit tests do not).
conv=$(comm -23 <(query 'tests(rdeps(//library/conv/..., //library/conv:direct_fwd.py))') <(query 'attr(tags, manual, tests(//library/conv/...))'))
goldens=$(query 'attr(tags, "(^|[\[ ,])golden([\] ,]|$)", tests(//library/...))')

passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() {
  echo "FAIL $1: $2"
  sed 's/^/    /' <<<"$3" | head -n 20
  failed=$((failed + 1))
}
# missing EXPECTED: the lines of EXPECTED that $out lacks.
missing() { comm -23 <(sort <<<"$1") <(sort <<<"$out"); }

check_conv() {
  local name="a conv-only change selects the conv tests that read it and the CLI's, no platform test"
  branch conv library/conv/direct_fwd.py
  run_tool "$base" conv
  if [[ $status -ne 0 ]]; then fail "$name" "exit $status" "$last"
  elif [[ -z $conv ]]; then fail "$name" "bazel query found no conv test to expect" ""
  elif [[ -n $(missing "$conv"$'\n//app/cli:rocke_test\n//app/cli:emit_families_test') ]]; then fail "$name" "tests missing" "$(missing "$conv"$'\n//app/cli:rocke_test\n//app/cli:emit_families_test')"
  elif grep -q '^//\(platform\|toolchains\)/' <<<"$out"; then fail "$name" "platform or toolchain tests selected" "$(grep '^//\(platform\|toolchains\)/' <<<"$out")"
  elif ! sort -uc <<<"$out" 2>/dev/null; then fail "$name" "output not sorted and unique" "$out"
  else pass "$name"; fi
}

check_ir() {
  local name="an ir/ change selects every family's golden tests, not every test"
  branch ir platform/ir/types.py
  run_tool "$base" ir
  if [[ $status -ne 0 ]]; then fail "$name" "exit $status" "$last"
  elif [[ -z $goldens ]]; then fail "$name" "bazel query found no golden test to expect" ""
  elif [[ -n $(missing "$goldens"$'\n//platform/ir:ir_test') ]]; then fail "$name" "tests missing" "$(missing "$goldens"$'\n//platform/ir:ir_test')"
  elif [[ $out == "$all" ]]; then fail "$name" "selected every test" ""
  else pass "$name"; fi
}

check_module() {
  local name="a MODULE.bazel change selects every test bazel test //... runs"
  branch module MODULE.bazel
  run_tool "$base" module
  if [[ $status -ne 0 ]]; then fail "$name" "exit $status" "$last"
  elif [[ -z $all || $out != "$all" ]]; then fail "$name" "differs from tests(//...) less manual (< expected, > got)" "$(diff <(echo "$all") <(echo "$out"))"
  else pass "$name"; fi
}

check_golden() {
  local name="a golden file selects its package's golden tests only"
  local want=//library/conv:conv_direct_fwd_golden_llvm22
  branch golden goldens/library/conv/conv_direct_fwd.llvm22.golden
  run_tool "$base" golden
  if [[ $status -ne 0 ]]; then fail "$name" "exit $status" "$last"
  elif [[ -n $(missing "$want") ]]; then fail "$name" "missing $want" "$out"
  elif grep -qv '_golden_llvm' <<<"$out"; then fail "$name" "selected other tests" "$(grep -v '_golden_llvm' <<<"$out")"
  else pass "$name"; fi
}

check_readme() {
  local name="a README.md change selects no test"
  branch readme README.md
  run_tool "$base" readme
  if [[ $status -ne 0 || -n $out || $last != "affected: no test is affected" ]]; then fail "$name" "exit $status, output:" "$out"$'\n'"$last"
  else pass "$name"; fi
}

check_explain() {
  local name="--explain accounts for every selected test, file by file"
  branch several library/conv/direct_fwd.py goldens/library/conv/conv_img2col.llvm20.golden README.md
  run_tool "$base" several --explain
  local explained
  explained=$(sed -n 's/^    \(\/\/.*\)$/\1/p' "$scratch/stderr" | sort -u)
  if [[ $status -ne 0 ]]; then fail "$name" "exit $status" "$last"
  elif [[ -z $out || $explained != "$out" ]]; then fail "$name" "explained tests differ from the output (< explained, > output)" "$(diff <(echo "$explained") <(echo "$out"))"
  elif ! grep -q '^affected: M README.md: .* -> nothing$' "$scratch/stderr"; then fail "$name" "README.md not explained as selecting nothing" "$(grep '^affected:' "$scratch/stderr")"
  else pass "$name"; fi
}

check_bad_base() {
  local name="a BASE that is no commit is one clear error"
  run_tool no-such-commit "$base"
  if [[ $status -eq 0 || -n $out || $last != "affected: BASE 'no-such-commit' is not a commit of the git repository $repo."* ]]; then
    fail "$name" "exit $status, last stderr line:" "$last"
  else pass "$name"; fi
}

for check in check_conv check_ir check_module check_golden check_readme check_explain check_bad_base; do
  "$check"
done
echo "checks: $passed passed, $failed failed"
exit "$failed"
