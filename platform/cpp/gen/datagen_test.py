"""datagen: exact output on a small input, same bytes under any hash seed,
and one clear line naming the file and the entry on bad input."""

import json
import os
import subprocess

import pytest

DATAGEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "datagen")

DATA = {
    "max_lanes": 64,
    "zoo": {
        "b": {"legs": 2, "tags": ["x", 'q"uote'], "sizes": []},
        "a": {"legs": 4, "tags": [], "sizes": [1, -2]},
    },
    "list": [{"n": "z"}, {"n": "y"}],
}
ARGS = [
    "--namespace", "rocke::data::zoo",
    "--table", "animals=zoo/*",
    "--field", "name=@0:str",
    "--field", "legs=legs:int",
    "--field", "tags=tags:strs",
    "--field", "sizes=sizes:ints",
    "--field", "lanes=../../max_lanes:int",
    "--table", "in_order=list/*",
    "--field", "index=@0:int",
    "--field", "n=n:str",
    "--const", "kMaxLanes=max_lanes:int",
]  # fmt: skip

# Written by hand from the spec in datagen.py's docstring: rows of an object
# sorted by key, of a list in order; empty lists are `{}`.
EXPECTED = r"""// Generated from SRC by //platform/cpp/gen:datagen. Do not edit.
#pragma once

#include <span>
#include <string_view>

namespace rocke::data::zoo {

struct AnimalsRow {
  std::string_view name;
  int legs;
  std::span<const std::string_view> tags;
  std::span<const int> sizes;
  int lanes;
};

inline constexpr int kAnimals_0_sizes[] = {1, -2};
inline constexpr std::string_view kAnimals_1_tags[] = {"x", "q\"uote"};

inline constexpr AnimalsRow kAnimals[] = {
    {"a", 4, {}, kAnimals_0_sizes, 64},
    {"b", 2, kAnimals_1_tags, {}, 64},
};

struct InOrderRow {
  int index;
  std::string_view n;
};

inline constexpr InOrderRow kInOrder[] = {
    {0, "z"},
    {1, "y"},
};

inline constexpr int kMaxLanes = 64;

}  // namespace rocke::data::zoo
"""


def run(tmp_path, text, args=ARGS, seed="0"):
    src = tmp_path / "in.json"
    src.write_text(text)
    out = tmp_path / "out.h"
    if out.exists():
        out.unlink()
    env = dict(os.environ, PYTHONHASHSEED=seed)
    proc = subprocess.run(
        [DATAGEN, "--src", str(src), "--out", str(out), *args], capture_output=True, text=True, env=env
    )
    return proc, (out.read_text() if out.exists() else None), str(src)


def test_exact_output(tmp_path):
    proc, header, src = run(tmp_path, json.dumps(DATA))
    assert proc.returncode == 0, proc.stderr
    assert header == EXPECTED.replace("SRC", src)


def test_same_bytes_whatever_hash_seed_or_key_order(tmp_path):
    outputs = {run(tmp_path, json.dumps(DATA), seed=seed)[1] for seed in ("0", "1", "12345", "random")}
    reordered = json.dumps(
        {"list": DATA["list"], "zoo": {"a": DATA["zoo"]["a"], "b": DATA["zoo"]["b"]}, "max_lanes": 64}
    )
    outputs.add(run(tmp_path, reordered)[1])
    assert len(outputs) == 1 and None not in outputs


@pytest.mark.parametrize(
    "mutate, message",
    [
        (
            lambda d: d["zoo"]["b"].update(legs="two"),
            ': zoo/b: legs (legs): expected a 32-bit integer, got "two"; fix the entry',
        ),
        (lambda d: d["zoo"]["a"].update(legs=True), ": zoo/a: legs (legs): expected a 32-bit integer, got true"),
        (lambda d: d["zoo"]["a"].update(legs=1 << 40), ": zoo/a: legs (legs): expected a 32-bit integer"),
        (lambda d: d["zoo"]["a"].pop("tags"), ": zoo/a: tags (tags): expected a key 'tags' at zoo/a, got {"),
        (
            lambda d: d["zoo"]["b"].update(tags=["ok", "tab\t"]),
            ": zoo/b: tags (tags): expected a list of printable ASCII strings",
        ),
        (lambda d: d.update(zoo=3), ": zoo: expected an object or a list for '*', got 3"),
    ],
)
def test_bad_entry_named_and_nothing_written(tmp_path, mutate, message):
    data = json.loads(json.dumps(DATA))
    mutate(data)
    proc, header, src = run(tmp_path, json.dumps(data))
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"datagen: {src}{message}"), proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert header is None


def test_not_json(tmp_path):
    proc, header, src = run(tmp_path, '{"zoo": {"a": 1,}}')
    assert proc.returncode == 1 and header is None
    # The wording after the position is the json module's and varies by Python version.
    assert proc.stderr.startswith(f"datagen: {src}: expected JSON, got an error at line 1 column 1")
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_bad_spec(tmp_path):
    proc, header, _ = run(
        tmp_path, json.dumps(DATA), args=["--namespace", "n", "--table", "t=zoo/*", "--field", "legs=legs:float"]
    )
    assert proc.returncode == 1 and header is None
    assert (
        proc.stderr
        == "datagen: --field: expected NAME=PATH:TYPE with TYPE in int, str, bool, ints, strs (TYPE? optional), got 'legs=legs:float'\n"
    )


# A count or {"min": count}, a list or a table's name: optional fields split
# each union into one std::optional per kind; an empty list is of either list
# kind, and stays an empty list (written by hand from the spec).
OPT_DATA = {
    "ops": {
        "b": {"n": {"min": 0}, "v": "t", "ok": True},
        "a": {"n": 2, "v": [4, 8], "ok": False},
        "c": {"n": 1, "v": [], "ok": True},
    }
}
OPT_ARGS = [
    "--namespace", "o",
    "--table", "ops=ops/*",
    "--field", "n=n:int?",
    "--field", "min=n/min:int?",
    "--field", "table=v:str?",
    "--field", "ints=v:ints?",
    "--field", "strs=v:strs?",
    "--field", "ok=ok:bool",
]  # fmt: skip
OPT_EXPECTED = """// Generated from SRC by //platform/cpp/gen:datagen. Do not edit.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace o {

struct OpsRow {
  std::optional<int> n;
  std::optional<int> min;
  std::optional<std::string_view> table;
  std::optional<std::span<const int>> ints;
  std::optional<std::span<const std::string_view>> strs;
  bool ok;
};

inline constexpr int kOps_0_ints[] = {4, 8};

inline constexpr OpsRow kOps[] = {
    {2, std::nullopt, std::nullopt, kOps_0_ints, std::nullopt, false},
    {std::nullopt, 0, "t", std::nullopt, std::nullopt, true},
    {1, std::nullopt, std::nullopt, std::span<const int>{}, std::span<const std::string_view>{}, true},
};

}  // namespace o
"""


def test_optional_and_bool_fields(tmp_path):
    proc, header, src = run(tmp_path, json.dumps(OPT_DATA), args=OPT_ARGS)
    assert proc.returncode == 0, proc.stderr
    assert header == OPT_EXPECTED.replace("SRC", src)


@pytest.mark.parametrize(
    "mutate, message",
    [
        # The right kind with a wrong item is an error, not an absent value.
        (
            lambda d: d["ops"]["a"].update(v=[4, "x"]),
            ': ops/a: ints (v): expected a list of 32-bit integers, got [4, "x"]',
        ),
        (lambda d: d["ops"]["a"].update(ok=1), ": ops/a: ok (ok): expected true or false, got 1"),
    ],
)
def test_optional_and_bool_errors(tmp_path, mutate, message):
    data = json.loads(json.dumps(OPT_DATA))
    mutate(data)
    proc, header, src = run(tmp_path, json.dumps(data), args=OPT_ARGS)
    assert proc.returncode == 1 and header is None
    assert proc.stderr.startswith(f"datagen: {src}{message}"), proc.stderr
