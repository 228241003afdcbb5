"""satdyn.results save/load on every kind of value, hypothesis-generated nested dataclasses,
and the refusals (foreign classes, damaged files, values with no stored form).

Oracle: the value itself, compared bit for bit by test_roundtrip.assert_identical (no
tolerance: the format claims to lose nothing). Hypothesis runs derandomized (fixed examples).
"""

from __future__ import annotations

import enum
import json
import struct
import sys
from dataclasses import dataclass, field

import control
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from satdyn import results as R

from .test_roundtrip import assert_identical, roundtrip


class Colour(enum.Enum):
    RED = "red"
    BLUE = 2


@dataclass(frozen=True)
class Leaf:
    value: object
    label: str = "leaf"


@dataclass
class Node:
    children: list
    payload: object
    meta: dict = field(default_factory=dict)
    derived: object = field(init=False, default=None)


@dataclass(frozen=True)
class Frozen:
    x: np.ndarray
    total: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "total", float(np.sum(self.x)))


MINE = (Leaf, Node, Frozen, Colour)


def test_every_kind_of_value(tmp_path):
    rng = np.random.default_rng(7)
    floats = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 5e-324, 1.7976931348623157e308, 0.1])
    ro = rng.standard_normal((2, 3))
    ro.setflags(write=False)
    node = Node(
        children=[Leaf(np.float32(1.5)), Leaf(np.complex128(1 - 2j)), Leaf(np.bool_(True)), Leaf(np.int64(-3))],
        payload={
            "floats": floats, "complex": rng.standard_normal((2, 2)) + 1j * rng.standard_normal((2, 2)),
            "bool": rng.random((3, 1, 2)) > 0.5, "int8": np.arange(-4, 4, dtype=np.int8), "empty": np.zeros((0, 3)),
            "scalar_array": np.array(2.5), "fortran": np.asfortranarray(rng.standard_normal((3, 2))), "ro": ro,
            "strings": np.array(["a", "bc"]), "objects": np.array([Leaf(1), None], dtype=object),
            "python": [0.1, float("nan"), float("-inf"), -0.0, 1 + 2j, 10**30, True, None, "é"],
            "tuple": (1, (2.0, "x")), "set": {3, 1, 2}, "frozenset": frozenset({"a"}),
            "int keys": {1: "a", (2, "b"): [3]}, "__satdyn__": "a key that looks like a tag",
            "enum": Colour.BLUE, "tf": control.tf([[[1.0, 2.0]], [[3.0]]], [[[1.0, 2.0, 3.0]], [[1.0, 1.0]]],
                                                   inputs=["u"], outputs=["y1", "y2"], name="G"),
            "ss_discrete": control.ss([[0.5]], [[1.0]], [[2.0]], [[0.0]], 0.1, inputs="f", outputs="z", states="s"),
            "frozen": Frozen(np.arange(3.0)),
        },
        meta={"nested": {"deep": [Leaf(np.eye(2))]}},
    )
    node.derived = Colour.RED   # an init=False field set after construction
    back = roundtrip(node, tmp_path, classes=MINE)
    assert back.payload["frozen"].total == 3.0 and back.derived is Colour.RED
    assert not back.payload["ro"].flags.writeable and back.payload["fortran"].dtype == np.float64


def test_nan_payloads_and_signs_survive(tmp_path):
    quiet_negative = struct.unpack(">d", bytes.fromhex("fff8000000000001"))[0]
    array = np.frombuffer(bytes.fromhex("7ff0000000000123" "fff8000000000000"), dtype=">f8").astype("<f8")
    back = roundtrip(Leaf([quiet_negative, array]), tmp_path, classes=MINE)
    assert struct.pack(">d", back.value[0]).hex() == "fff8000000000001"


# --- hypothesis ------------------------------------------------------------------------------------

_DTYPES = st.sampled_from([np.float64, np.float32, np.complex128, np.complex64, np.bool_, np.int32, np.uint8, np.int64])
_arrays = _DTYPES.flatmap(lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=3, max_side=4)))
_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(allow_nan=True), st.text(max_size=8), _arrays,
    _arrays.filter(lambda a: a.ndim == 0).map(lambda a: a[()]),   # numpy scalars
    st.sampled_from(list(Colour)),
)


def _extend(children):
    return st.one_of(
        st.lists(children, max_size=3), st.tuples(children, children),
        st.dictionaries(st.text(max_size=5), children, max_size=3),
        st.dictionaries(st.integers(-5, 5), children, max_size=2),
        st.builds(Leaf, children, st.text(max_size=4)),
        st.builds(Node, st.lists(children, max_size=2), children, st.dictionaries(st.text(max_size=3), children,
                                                                                    max_size=2)),
    )


_values = st.recursive(_leaves, _extend, max_leaves=12)


@settings(derandomize=True, max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.builds(Node, st.lists(_values, max_size=3), _values))
def test_generated_nested_dataclasses_round_trip(tmp_path, node):
    assert_identical(node, R.from_dict(R.to_dict(node, classes=MINE), classes=MINE))
    assert_identical(node, R.load(R.save(node, tmp_path / "h.json", classes=MINE), classes=MINE))


# --- refusals --------------------------------------------------------------------------------------

def _saved(tmp_path):
    from satdyn.robust import HinfNorm
    result = HinfNorm(value=1.5, peak_frequency=np.float64(2.0), stable=True)
    return R.save(Leaf(np.arange(3.0)), tmp_path / "leaf.json", classes=MINE), R.save(result, tmp_path / "h.json")


def _rewrite(path, change):
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))


def test_foreign_classes_are_refused_without_being_imported(tmp_path):
    leaf_file, _ = _saved(tmp_path)
    with pytest.raises(R.ResultsFileError, match=r"leaf\.json.*'result'.*satdyn package"):
        R.load(leaf_file)                     # the test's own class is not trusted unless passed
    for path in ("os:system", "satdyn_evil:X", "satdynx.y:Z", "subprocess:Popen", "satdyn.robust:..__class__"):
        _rewrite(leaf_file, lambda d, path=path: d["result"].update({"class": path}))
        with pytest.raises(R.ResultsFileError, match="refusing|module:qualname"):
            R.load(leaf_file, classes=MINE)
    assert "satdyn_evil" not in sys.modules and "satdynx" not in sys.modules
    with pytest.raises(R.UnsupportedValueError, match="outside the satdyn namespace"):
        R.to_dict(Leaf(1))


def test_damaged_files_give_one_line_errors_naming_file_and_key(tmp_path):
    _, path = _saved(tmp_path)
    _rewrite(path, lambda d: d["result"].update({"class": "satdyn.robust.norms:NoSuchResult"}))
    with pytest.raises(R.ResultsFileError, match=r"h\.json: key 'result'.*unknown class"):
        R.load(path)
    _, path = _saved(tmp_path)
    _rewrite(path, lambda d: d.update({"version": 99}))
    with pytest.raises(R.ResultsFileError, match=r"h\.json: key 'version'.*99"):
        R.load(path)
    _, path = _saved(tmp_path)
    _rewrite(path, lambda d: d["result"]["fields"].update({"bogus": 1}))
    with pytest.raises(R.ResultsFileError, match=r"key 'result'.*no field.*bogus"):
        R.load(path)
    _, path = _saved(tmp_path)
    _rewrite(path, lambda d: d["result"]["fields"]["peak_frequency"].update({"key": "a9"}))
    with pytest.raises(R.ResultsFileError, match=r"h\.json: key 'result\.peak_frequency': array 'a9' missing"):
        R.load(path)
    _, path = _saved(tmp_path)
    _rewrite(path, lambda d: d["result"]["fields"]["peak_frequency"].update({"shape": [2]}))
    with pytest.raises(R.ResultsFileError, match=r"key 'result\.peak_frequency'.*shape"):
        R.load(path)
    _, path = _saved(tmp_path)
    path.with_suffix(".npz").unlink()
    with pytest.raises(R.ResultsFileError, match=r"h\.json: key 'arrays'.*missing"):
        R.load(path)
    with pytest.raises(R.ResultsFileError, match="no such results file"):
        R.load(tmp_path / "absent.json")
    for error in (R.ResultsFileError, R.UnsupportedValueError):
        assert issubclass(error, (ValueError, TypeError))   # the CLI's one-line error path


def test_values_without_a_stored_form_are_refused_naming_the_field(tmp_path):
    with pytest.raises(R.UnsupportedValueError, match=r"result\.payload\.f: field.*function|result\.payload"):
        R.to_dict(Node([], {"f": print}), classes=MINE)
    with pytest.raises(R.UnsupportedValueError, match=r"result\.value: .*function"):
        R.to_dict(Leaf(lambda: 1), classes=MINE)
    with pytest.raises(R.UnsupportedValueError, match=r"result\.children\[0\]: cannot store.*object"):
        R.save(Node([object()], None), tmp_path / "x.json", classes=MINE)
    assert not (tmp_path / "x.json").exists()
    with pytest.raises(TypeError, match="`result` must be a dataclass instance"):
        R.to_dict({"a": 1})


def test_folder_form_and_the_rounded_results_json_are_distinct(tmp_path):
    # save(result, folder) writes result.json + result.npz; the CLI's results.json (to_jsonable,
    # rounded to 12 digits) is untouched by this module's additions.
    value = Leaf(np.array([1 / 3]))
    R.save(value, tmp_path / "out", classes=MINE)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["result.json", "result.npz"]
    assert_identical(value, R.load(tmp_path / "out", classes=MINE))
    assert R.to_jsonable(value) == {"value": [0.333333333333], "label": "leaf"}


def test_docs_page_example_runs(tmp_path, monkeypatch):
    # docs/results.md's first example is executed (in a scratch folder) so it cannot drift.
    import re
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "results.md"
    code = re.search(r"```python\n(.*?)```", page.read_text(), re.DOTALL).group(1)
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(code, str(page), "exec"), namespace)  # noqa: S102 - the page's own example
    assert (tmp_path / "out" / "margin.npz").is_file() and (tmp_path / "out" / "hinf" / "result.json").is_file()
    assert namespace["norm"].value == 1.0     # |1/(s+1)| peaks at 1, at frequency 0
