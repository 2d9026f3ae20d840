"""networks.depthwise: the depthwise layers of a problems file, at the
full-size tests' batch; MobileNetV2's come from the catalog, their one home.
networks.RESNET50 (its own names, used as test ids) is tied to the catalog's
ResNet-50: the same distinct layers."""

import dataclasses
import json
import os

import pytest

from conv import networks
from conv.spec import ConvSpec

_CATALOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "catalog")
CATALOG = os.path.join(_CATALOGS, "mobilenet_v2.json")
RESNET50_CATALOG = os.path.join(_CATALOGS, "resnet50.json")


def test_only_depthwise_conv_fwd_entries_are_taken_at_the_full_size_batch():
    doc = {
        "problems": [
            {
                "op": "conv_fwd",
                "name": "dw",
                "n": 1,
                "c": 8,
                "k": 8,
                "spatial": [14, 14],
                "filter": [3, 3],
                "pad": [1, 1],
                "groups": 8,
            },
            {
                "op": "conv_fwd",
                "name": "grouped",
                "n": 1,
                "c": 8,
                "k": 16,
                "spatial": [14, 14],
                "filter": [3, 3],
                "groups": 4,
            },
            {"op": "conv_fwd", "name": "dense", "n": 1, "c": 8, "k": 8, "spatial": [14, 14], "filter": [1, 1]},
            {
                "op": "conv_dgrad",
                "name": "dgrad_dw",
                "n": 1,
                "c": 8,
                "k": 8,
                "spatial": [14, 14],
                "filter": [3, 3],
                "groups": 8,
            },
            {"op": "gemm", "name": "g", "m": 8, "n": 8, "k": 8, "dtype": "f16"},
            {
                "op": "conv_fwd",
                "n": 2,
                "c": 4,
                "k": 4,
                "spatial": [7, 7],
                "filter": [3, 3],
                "stride": [2, 2],
                "groups": 4,
                "dtype": "bf16",
            },
        ]
    }
    assert networks.depthwise(doc) == {
        "dw": ConvSpec(networks.BATCH, 8, 8, (14, 14), (3, 3), pad=(1, 1), groups=8),
        "problems[5]": ConvSpec(networks.BATCH, 4, 4, (7, 7), (3, 3), stride=(2, 2), groups=4, dtype="bf16"),
    }


def test_mobilenet_v2s_depthwise_layers_are_the_catalogs_distinct_ones_at_batch_32():
    with open(CATALOG) as f:
        doc = json.load(f)
    layers = networks.depthwise(doc)
    # The catalog's entries with one filter per group, each shape once under its first name, at batch 32.
    first = {}
    for e in doc["problems"]:
        if e.get("groups", 1) > 1:
            key = json.dumps({k: v for k, v in e.items() if k in networks.SHAPE_FIELDS}, sort_keys=True)
            first.setdefault(key, e)
    assert list(layers) == [e["name"] for e in first.values()] and len(layers) == 10
    for e in first.values():
        assert dataclasses.replace(layers[e["name"]], n=e["n"]) == networks.shape(e)
        assert layers[e["name"]].n == networks.BATCH == 32


def test_a_repeated_depthwise_shape_is_taken_once_under_its_first_name():
    dw = {"op": "conv_fwd", "n": 1, "c": 8, "k": 8, "spatial": [14, 14], "filter": [3, 3], "groups": 8}
    doc = {
        "problems": [
            dict(dw, name="first"),
            dict(dw, name="again", bias=True),
            dict(dw, name="other", c=16, k=16, groups=16),
        ]
    }
    assert list(networks.depthwise(doc)) == ["first", "other"]


def test_a_bad_entry_is_the_specs_error():
    with pytest.raises(ValueError, match="stride"):
        networks.depthwise(
            {
                "problems": [
                    {
                        "op": "conv_fwd",
                        "name": "x",
                        "n": 1,
                        "c": 4,
                        "k": 4,
                        "spatial": [7, 7],
                        "filter": [3, 3],
                        "stride": [0, 1],
                        "groups": 4,
                    }
                ]
            }
        )


def test_resnet50s_full_size_layers_are_the_catalogs_distinct_convolutions_at_batch_32():
    with open(RESNET50_CATALOG) as f:
        entries = [e for e in json.load(f)["problems"] if e["op"] == "conv_fwd"]
    catalog = {json.dumps(networks.shape(e | {"n": networks.BATCH}).to_json(), sort_keys=True) for e in entries}
    ours = sorted(json.dumps(spec.to_json(), sort_keys=True) for spec in networks.RESNET50.values())
    # Every layer of the network is in the catalog (53 convolutions), of these 23 distinct shapes.
    assert len(entries) == 53 and ours == sorted(catalog) and len(ours) == 23
