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
    proc = subprocess.run([DATAGEN, "--src", str(src), "--out", str(out), *args], capture_output=True, text=True, env=env)
    return proc, (out.read_text() if out.exists() else None), str(src)


def test_exact_output(tmp_path):
    proc, header, src = run(tmp_path, json.dumps(DATA))
    assert proc.returncode == 0, proc.stderr
    assert header == EXPECTED.replace("SRC", src)


def test_same_bytes_whatever_hash_seed_or_key_order(tmp_path):
    outputs = {run(tmp_path, json.dumps(DATA), seed=seed)[1] for seed in ("0", "1", "12345", "random")}
    reordered = json.dumps({"list": DATA["list"], "zoo": {"a": DATA["zoo"]["a"], "b": DATA["zoo"]["b"]}, "max_lanes": 64})
    outputs.add(run(tmp_path, reordered)[1])
    assert len(outputs) == 1 and None not in outputs


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["zoo"]["b"].update(legs="two"), ": zoo/b: legs (legs): expected a 32-bit integer, got \"two\"; fix the entry"),
        (lambda d: d["zoo"]["a"].update(legs=True), ": zoo/a: legs (legs): expected a 32-bit integer, got true"),
        (lambda d: d["zoo"]["a"].update(legs=1 << 40), ": zoo/a: legs (legs): expected a 32-bit integer"),
        (lambda d: d["zoo"]["a"].pop("tags"), ": zoo/a: tags (tags): expected a key 'tags' at zoo/a, got {"),
        (lambda d: d["zoo"]["b"].update(tags=["ok", "tab\t"]), ": zoo/b: tags (tags): expected a list of printable ASCII strings"),
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
    proc, header, _ = run(tmp_path, json.dumps(DATA), args=["--namespace", "n", "--table", "t=zoo/*", "--field", "legs=legs:float"])
    assert proc.returncode == 1 and header is None
    assert proc.stderr == "datagen: --field: expected NAME=PATH:TYPE with TYPE in int, str, ints, strs, got 'legs=legs:float'\n"
