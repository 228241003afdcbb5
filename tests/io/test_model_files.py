"""Model files: shipped examples equal satdyn.titop's Python models; round trip; bad files."""

from __future__ import annotations


import numpy as np
import pytest
import yaml

from satdyn.io import ModelFileError, build_model, example_path, load_model, loads_model, save_model
from satdyn.io.modal import read_modal_table
from satdyn.lfr import ureal, vreal
from satdyn.titop import connect, flexible_body, revolute_joint, rigid_body
from satdyn.titop.models import assembly_spacecraft, hub_two_arrays, robotic_arm


def _random_values(lfr, rng):
    """Physical values drawn uniformly inside every parameter's range."""
    return {n: float(rng.uniform(*p.range)) for n, p in lfr.parameters.items()}


def _compare(a, b, values, omega):
    """Frequency responses (or static gains) of two LFRs at the same parameter values.

    Both are the same block matrices assembled in a different order, so they differ by
    rounding amplified by the conditioning of the Delta loop: with the loop condition numbers
    of these models (< 1e4) the relative difference stays below 1e-8.
    """
    if a.nstates:
        ra, rb = a.freqresp(omega, values), b.freqresp(omega, values)
    else:
        ra, rb = np.asarray(a.evaluate(values)), np.asarray(b.evaluate(values))
    assert ra.shape == rb.shape
    assert np.abs(ra - rb).max() <= 1e-8 * np.abs(rb).max()


OMEGA = np.array([0.05, 0.9, 3.3, 11.0, 40.0])


@pytest.mark.parametrize("name, factory", [
    ("hub_two_arrays", hub_two_arrays),
    ("robotic_arm", lambda: robotic_arm("R")),
    ("assembly_spacecraft", lambda: assembly_spacecraft(structure="table")),   # the file holds Table 2
])
def test_example_file_equals_python_model(name, factory):
    # oracle: the model satdyn.titop builds in Python from its own data files
    built = build_model(load_model(example_path(name)))
    ref = factory().lfr
    assert built.lfr.shape == ref.shape and built.lfr.nstates == ref.nstates
    assert set(built.lfr.parameters) == set(ref.parameters)
    assert built.lfr.ndelta == ref.ndelta
    rng = np.random.default_rng(20)
    for _ in range(3):
        _compare(built.lfr, ref, _random_values(ref, rng), OMEGA)


def _telecom_in_python():
    """The telecom example built directly with satdyn.titop (numbers typed from the file's sources)."""
    from satdyn.titop.data import load_hub_two_arrays

    d = load_hub_two_arrays()
    am = d.array_modes
    hub_J = np.array([[3200.0, -40.0, 25.0], [-40.0, 2900.0, 15.0], [25.0, 15.0, 2100.0]])
    m = ureal("hub.mass", 2800.0, percent=5.0)
    sada = vreal("sada_angle", 0.0, range=(-np.pi, np.pi), transform="tan_quarter")
    blocks = [rigid_body("hub", m, hub_J, {"north": [0, 1.2, 0], "south": [0, -1.2, 0], "earth": [0, 0, 1.0]},
                         frame="b")]
    wires = []
    for k, wing in enumerate(("north", "south")):
        w = list(0.7 * am.omega)
        w[0] = ureal(f"{wing}.omega1", 0.7 * am.omega[0], percent=20.0)
        blocks += [revolute_joint(f"{wing}_sada", [0, 1, 0], sada, offset=d.P_a_b_at_zero[k],
                                  frames=("b", f"{wing}.a")),
                   flexible_body(wing, 2.0 * d.array_D_P, w, am.damping, np.sqrt(2.0) * am.L_P, frame=f"{wing}.a")]
        wires += [(f"hub.{wing}", f"{wing}_sada.parent"), (f"{wing}_sada.child", f"{wing}.P")]
    table = read_modal_table(example_path("telecom").parent / "telecom_antenna_modes.csv")
    spec = load_model(example_path("telecom"))
    D_P = np.array(next(b for b in spec.document["bodies"] if b["name"] == "antenna")["D_P"])
    blocks += [revolute_joint("boom_hinge", [1, 0, 0], 0.0, frames=("b", "ant")),
               flexible_body("antenna", D_P, table.frequencies, table.damping, table.L_P, frame="ant")]
    wires += [("hub.earth", "boom_hinge.parent"), ("boom_hinge.child", "antenna.P")]
    return connect(blocks, wires, external=["hub.G"], name="telecom")


def test_telecom_file_equals_python_build():
    # oracle: the same spacecraft assembled by hand with satdyn.titop blocks
    built = build_model(load_model(example_path("telecom")))
    ref = _telecom_in_python().lfr
    rng = np.random.default_rng(21)
    for _ in range(3):
        _compare(built.lfr, ref, _random_values(ref, rng), OMEGA)
    assert built.lfr.input_names == ref.input_names and built.lfr.output_names == ref.output_names


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
@pytest.mark.parametrize("name", ["hub_two_arrays", "telecom"])
def test_round_trip(tmp_path, name, suffix):
    # model -> file -> model: the document is identical and so is the LFR it builds
    spec = load_model(example_path(name))
    out = tmp_path / f"copy{suffix}"
    if name == "telecom":   # the modal table file is referenced relative to the model file
        (tmp_path / "telecom_antenna_modes.csv").write_text(
            (example_path(name).parent / "telecom_antenna_modes.csv").read_text())
    save_model(spec, out)
    again = load_model(out)
    assert again.document == spec.document
    a, b = build_model(spec).lfr, build_model(again).lfr
    assert np.array_equal(a.A, b.A) and np.array_equal(a.D, b.D)


# ---------------------------------------------------------------------------- bad files
BASE = """\
satdyn_model: 1
name: sc
parameters:
  - {name: m, kind: uncertain, nominal: 100.0, percent: 10}
  - {name: a, kind: varying, nominal: 0.0, range: [-3.0, 3.0], transform: tan_quarter}
bodies:
  - name: hub
    type: rigid
    mass: m
    inertia: [[10, 0, 0], [0, 12, 0], [0, 0, 14]]
    ports: {P1: [0.0, 1.0, 0.0]}
  - name: arr
    type: flexible
    D_P: [[20, 0, 0, 0, 0, 0], [0, 20, 0, 0, 0, 0], [0, 0, 20, 0, 0, 0], [0, 0, 0, 30, 0, 0], [0, 0, 0, 0, 30, 0], [0, 0, 0, 0, 0, 30]]
    modes:
      frequencies_hz: [0.5]
      damping: 0.01
      L_P: [[0, 0, 3.0, 2.0, 0, 0]]
joints:
  - {name: drive, type: revolute, axis: [0, 1, 0], angle: a, frames: [hub, arr]}
connections:
  - [hub.P1, drive.parent]
  - [drive.child, arr.P]
external: [hub.G]
"""  # noqa: E501 (one matrix per line: errors name YAML line numbers)


def _mutate(edit):
    doc = yaml.safe_load(BASE)
    edit(doc)
    return yaml.safe_dump(doc, sort_keys=False)


def _set(path, value):
    def edit(doc):
        node = doc
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    return edit


def _delete(path):
    def edit(doc):
        node = doc
        for k in path[:-1]:
            node = node[k]
        del node[path[-1]]
    return edit


BAD = [
    # (id, edit, key path the message must name)
    ("version", _set(("satdyn_model",), 2), "satdyn_model"),
    ("no-bodies", _delete(("bodies",)), "<root>"),
    ("bad-name", _set(("name",), "sc 1"), "name"),
    ("unknown-key", _set(("colour",), "red"), "colour"),
    ("body-type", _set(("bodies", 0, "type"), "elastic"), "bodies[0].type"),
    ("mass-negative", _set(("bodies", 0, "mass"), -5.0), "bodies[0].mass"),
    ("mass-unknown-param", _set(("bodies", 0, "mass"), "m_hub"), "bodies[0].mass"),
    ("inertia-shape", _set(("bodies", 0, "inertia"), [[1, 0], [0, 1]]), "bodies[0].inertia"),
    ("port-vector", _set(("bodies", 0, "ports", "P1"), [0, 1]), "bodies[0].ports.P1"),
    ("direct-not-a-port", _set(("bodies", 0, "direct"), "Q"), "bodies[0].direct"),
    ("flex-no-modes", _delete(("bodies", 1, "modes")), "bodies[1]"),
    ("L_P-rows", _set(("bodies", 1, "modes", "L_P"), [[0, 0, 3, 2, 0, 0], [0] * 6]), "bodies[1].modes.L_P"),
    ("L_P-width", _set(("bodies", 1, "modes", "L_P"), [[0, 0, 3, 2, 0]]), "bodies[1].modes.L_P[0]"),
    ("damping-negative", _set(("bodies", 1, "modes", "damping"), -0.1), "bodies[1].modes.damping"),
    ("freq-zero", _set(("bodies", 1, "modes", "frequencies_hz"), [0.0]), "bodies[1].modes.frequencies_hz[0]"),
    ("D_P-shape", _set(("bodies", 1, "D_P"), [[1] * 6] * 5), "bodies[1].D_P"),
    ("modal-file-suffix", lambda d: (d["bodies"][1].pop("modes"), d["bodies"][1].update(modal_file="x.txt")),
     "bodies[1].modal_file"),
    ("joint-type", _set(("joints", 0, "type"), "hinge"), "joints[0].type"),
    ("joint-axis", _set(("joints", 0, "axis"), [0, 1]), "joints[0].axis"),
    ("angle-no-transform", lambda d: d["parameters"][1].pop("transform"), "joints[0].angle"),
    ("angle-unknown", _set(("joints", 0, "angle"), "beta"), "joints[0].angle"),
    ("locked-param", _set(("joints", 0, "type"), "locked"), "joints[0].angle"),
    ("param-kind", _set(("parameters", 0, "kind"), "random"), "parameters[0].kind"),
    ("param-two-ranges", _set(("parameters", 0, "range"), [90.0, 110.0]), "parameters[0]"),
    ("param-range-order", _set(("parameters", 1, "range"), [1.0, 3.0]), "parameters[1].range"),
    ("param-duplicate", _set(("parameters", 1, "name"), "m"), "parameters[1].name"),
    ("block-duplicate", _set(("joints", 0, "name"), "hub"), "joints[0].name"),
    ("connection-unknown-block", _set(("connections", 1), ["drive.child", "array.P"]), "connections[1][1]"),
    ("connection-bad-key", _set(("connections", 0), ["hubP1", "drive.parent"]), "connections[0][0]"),
    ("connection-unknown-port", _set(("connections", 0), ["hub.P9", "drive.parent"]), "connections[0][0]"),
    ("connection-acc-to-wrench", _set(("connections", 1), ["arr.P", "drive.child"]), "connections[1]"),
    ("dangling", _delete(("external",)), "connections"),
    ("frame-mismatch", _set(("joints", 0, "frames"), ["hub", "wing"]), "connections[1]"),
    ("controller-port", _set(("controller",), {"type": "attitude_pid", "port": "arr.P", "kp": [1, 1, 1],
                                               "kd": [1, 1, 1]}), "controller.port"),
]


@pytest.mark.parametrize("edit, key_path", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_file_names_file_and_key_path(tmp_path, edit, key_path):
    path = tmp_path / "bad_model.yaml"
    path.write_text(_mutate(edit))
    with pytest.raises(ModelFileError) as info:
        build_model(load_model(path))
    err = info.value
    assert isinstance(err, ValueError)
    assert str(path) in str(err) and err.file == str(path)
    assert err.key_path.startswith(key_path), (err.key_path, str(err))
    assert f"at {err.key_path}:" in str(err)


def test_error_gives_the_line():
    # the line of the offending key in the YAML text (line 10: "    inertia: ...")
    text = BASE.replace("inertia: [[10, 0, 0], [0, 12, 0], [0, 0, 14]]", "inertia: [[10, 0, 0], [0, 12, 0]]")
    with pytest.raises(ModelFileError) as info:
        loads_model(text, file="inline.yaml")
    assert info.value.line == 10 and "inline.yaml, line 10" in str(info.value)


def test_yaml_syntax_error_has_line():
    with pytest.raises(ModelFileError, match="broken.yaml, line 4"):
        loads_model("satdyn_model: 1\nname: sc\nbodies: [\n  - x: : y\n", file="broken.yaml")


def test_base_document_builds():
    # the mutations above start from a valid file
    built = build_model(loads_model(BASE))
    assert set(built.parameters) == {"m", "a"} and built.lfr.shape == (6, 6)


def test_modal_tables_report_parameter_nominals():
    # a frequency given as a parameter appears in the built model's modal table at its nominal
    built = build_model(load_model(example_path("hub_two_arrays")))
    w = built.modal["array_plus_y"].frequencies
    assert np.isclose(w[0], built.parameters["array_plus_y.omega1"].nominal) and np.all(np.isfinite(w))


JOINTS_FILE = """\
satdyn_model: 1
name: joints
bodies:
  - {name: hub, type: rigid, mass: 200.0, inertia: [[50, 0, 0], [0, 60, 0], [0, 0, 70]],
     ports: {A: [0.5, 0, 0], B: [-0.5, 0, 0], C: [0, 0, 0.5]}}
  - {name: arm, type: rigid, mass: 5.0, inertia: [[0.1, 0, 0], [0, 0.4, 0], [0, 0, 0.4]],
     ports: {P: [-0.3, 0, 0]}, direct: P, com_port: null, frame: arm}
  - {name: sled, type: rigid, mass: 8.0, inertia: [[0.2, 0, 0], [0, 0.2, 0], [0, 0, 0.2]],
     ports: {P: [0, 0, -0.1]}, direct: P, com_port: null, frame: sled}
  - {name: box, type: rigid, mass: 3.0, inertia: [[0.05, 0, 0], [0, 0.05, 0], [0, 0, 0.05]],
     ports: {P: [0, 0, 0.2]}, direct: P, com_port: null, frame: box}
joints:
  - {name: motor, type: actuated_revolute, axis: [0, 0, 1], angle: 0.3, rotor_inertia: 0.02,
     stiffness: 4.0, damping: 0.5, frames: [hub, arm]}
  - {name: slide, type: prismatic, axis: [1, 0, 0], slider_mass: 0.5, stiffness: 30.0, damping: 2.0,
     frames: [hub, sled]}
  - {name: tilt, type: frame_change, P_cp: [[0, -1, 0], [1, 0, 0], [0, 0, 1]], frames: [hub, box]}
connections:
  - [hub.A, motor.parent]
  - [motor.child, arm.P]
  - [hub.B, slide.parent]
  - [slide.child, sled.P]
  - [hub.C, tilt.parent]
  - [tilt.child, box.P]
external: [hub.G]
inputs: ["motor:Tm", "slide:Tm"]
outputs: ["motor:q", "slide:q"]
"""


def test_joint_types_equal_python_build():
    # oracle: the same blocks built and connected with satdyn.titop directly
    from satdyn.titop import actuated_revolute_joint, frame_change, prismatic_joint

    built = build_model(loads_model(JOINTS_FILE))
    J = lambda *d: np.diag(d)  # noqa: E731
    blocks = [rigid_body("hub", 200.0, J(50, 60, 70), {"A": [0.5, 0, 0], "B": [-0.5, 0, 0], "C": [0, 0, 0.5]}),
              rigid_body("arm", 5.0, J(0.1, 0.4, 0.4), {"P": [-0.3, 0, 0]}, direct="P", com_port=None, frame="arm"),
              rigid_body("sled", 8.0, J(0.2, 0.2, 0.2), {"P": [0, 0, -0.1]}, direct="P", com_port=None, frame="sled"),
              rigid_body("box", 3.0, J(0.05, 0.05, 0.05), {"P": [0, 0, 0.2]}, direct="P", com_port=None, frame="box"),
              actuated_revolute_joint("motor", [0, 0, 1], 0.3, rotor_inertia=0.02, stiffness=4.0, damping=0.5,
                                      frames=("hub", "arm")),
              prismatic_joint("slide", [1, 0, 0], slider_mass=0.5, stiffness=30.0, damping=2.0, frames=("hub", "sled")),
              frame_change("tilt", np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1.0]]), frames=("hub", "box"))]
    ref = connect(blocks, [("hub.A", "motor.parent"), ("motor.child", "arm.P"), ("hub.B", "slide.parent"),
                           ("slide.child", "sled.P"), ("hub.C", "tilt.parent"), ("tilt.child", "box.P")],
                  external=["hub.G"], inputs=["motor:Tm", "slide:Tm"], outputs=["motor:q", "slide:q"]).lfr
    assert built.lfr.input_names == ref.input_names and built.lfr.output_names == ref.output_names
    _compare(built.lfr, ref, {}, OMEGA)
    assert built.lfr.nstates == 4          # the revolute and the prismatic DOF, two states each


from hypothesis import given, strategies as st  # noqa: E402


def _physical_inertia(second_moments):
    a, b, c = second_moments
    return np.diag([b + c, a + c, a + b]).tolist()


@st.composite
def _chain_documents(draw):
    """Random valid descriptions: a rigid hub and a chain of k flexible/rigid appendages on revolute
    or locked joints, random masses, physical inertias (diagonal), modes and parameters."""
    k = draw(st.integers(1, 3))
    pos = st.floats(0.5, 50.0)
    coord = st.floats(-2.0, 2.0)
    vec = st.lists(coord, min_size=3, max_size=3)
    doc = {"satdyn_model": 1, "name": "rand", "parameters": [], "joints": [], "connections": [],
           "bodies": [{"name": "hub", "type": "rigid", "mass": draw(pos),
                       # principal moments from second moments a, b, c > 0: the triangle
                       # inequality I1 + I2 >= I3 of a physical body holds by construction
                       "inertia": _physical_inertia([draw(pos) for _ in range(3)]),
                       "ports": {f"P{i}": draw(vec) for i in range(k)}}], "external": ["hub.G"]}
    for i in range(k):
        joint = {"name": f"j{i}", "type": "revolute", "axis": draw(st.sampled_from([[1, 0, 0], [0, 1, 0], [0, 0, 1]])),
                 "angle": draw(st.floats(-3.0, 3.0)), "frames": ["hub", f"f{i}"]}
        if draw(st.booleans()):
            doc["parameters"].append({"name": f"a{i}", "kind": "varying", "nominal": 0.0, "range": [-3.0, 3.0],
                                      "transform": "tan_quarter"})
            joint["angle"] = f"a{i}"
        doc["joints"].append(joint)
        m = draw(st.floats(1.0, 20.0))
        body = {"name": f"b{i}", "frame": f"f{i}"}
        if draw(st.booleans()):
            # one mode whose effective masses are a fraction of the body's mass: positive residual mass
            frac = draw(st.floats(0.1, 0.8))
            body.update(type="flexible", mass_properties={"mass": m, "r_P_com": [0.0, 0.0, 0.0],
                                                          "inertia_at_com": np.diag([m, m, m]).tolist()},
                        modes={"frequencies_hz": [draw(st.floats(0.1, 5.0))], "damping": 0.01,
                               "L_P": [[float(np.sqrt(frac * m)), 0, 0, 0, 0, 0]]})
            port = "P"
        else:
            body.update(type="rigid", mass=m, inertia=np.diag([m, m, m]).tolist(), ports={"P": draw(vec)},
                        direct="P", com_port=None)
            port = "P"
        doc["bodies"].append(body)
        doc["connections"] += [[f"hub.P{i}", f"j{i}.parent"], [f"j{i}.child", f"b{i}.{port}"]]
    return doc


@given(_chain_documents())
def test_round_trip_random_models(tmp_path_factory, doc):
    # model -> YAML file -> model: the same document and the same LFR (matrices bit for bit)
    from satdyn.io import model_from_dict

    spec = model_from_dict(doc)
    path = tmp_path_factory.mktemp("rt") / "m.yaml"
    save_model(spec, path)
    again = load_model(path)
    assert again.document == spec.document
    a, b = build_model(spec).lfr, build_model(again).lfr
    assert np.array_equal(a.D, b.D) and np.array_equal(a.A, b.A) and a.input_names == b.input_names


# ---------------------------------------------------------------------------- hostile files
# Each file is written to tmp_path and read by load_model; the error must name the file, the line
# and the key path, and say what was expected (a one-line message), before any block is built.

def _write(tmp_path, text, name="hostile.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _refused(path, key_path, line, *fragments):
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    err, message = info.value, str(info.value)
    assert err.file == str(path) and err.key_path == key_path and err.line == line, message
    assert message.startswith(f"{path}, line {line}: at {key_path}: ") and "\n" not in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return err


def _line(text, fragment, occurrence=1):
    """1-based line of the n-th line containing ``fragment``."""
    hits = [k + 1 for k, line in enumerate(text.splitlines()) if fragment in line]
    return hits[occurrence - 1]


def test_repeated_key_is_refused_naming_both_lines(tmp_path):
    # before: the second `mass:` silently replaced the uncertain mass `m` by a number
    text = BASE.replace("    mass: m\n", "    mass: m\n    mass: 100.0\n")
    second = _line(text, "mass: 100.0")
    _refused(_write(tmp_path, text), "bodies[0].mass", second,
             f"'mass' is given on line {second - 1} and again on line {second}")


def test_repeated_port_name_is_refused_naming_both_lines(tmp_path):
    text = BASE.replace("    ports: {P1: [0.0, 1.0, 0.0]}\n", "    ports:\n      P1: [0.0, 1.0, 0.0]\n"
                                                             "      P1: [0.0, 2.0, 0.0]\n")
    second = _line(text, "P1: [0.0, 2.0")
    _refused(_write(tmp_path, text), "bodies[0].ports.P1", second, f"line {second - 1} and again on line {second}")


def test_repeated_key_in_json_is_refused(tmp_path):
    # JSON readers keep the last value too; a tab-indented JSON file is read (tabs are JSON whitespace)
    import json

    text = json.dumps(yaml.safe_load(BASE), indent="\t")
    good = _write(tmp_path, text, "good.json")
    assert load_model(good).document == loads_model(BASE).document
    bad = text.replace('"name": "sc",', '"name": "sc",\n\t"name": "sc2",', 1)
    second = _line(bad, '"name": "sc2"')
    _refused(_write(tmp_path, bad, "bad.json"), "name", second, f"line {second - 1} and again on line {second}")


def test_repeated_parameter_and_block_names_name_both_places(tmp_path):
    text = BASE.replace("  - {name: a, kind: varying", "  - {name: m, kind: varying")
    _refused(_write(tmp_path, text), "parameters[1].name", _line(text, "name: m, kind: varying"),
             f"also the name of parameters[0].name (line {_line(text, 'name: m, kind: uncertain')})")
    text = BASE.replace("{name: drive, type: revolute", "{name: hub, type: revolute")
    _refused(_write(tmp_path, text), "joints[0].name", _line(text, "{name: hub, type: revolute"),
             f"also the name of bodies[0].name (line {_line(text, 'name: hub')})")


def test_alias_bomb_is_refused(tmp_path):
    # "billion laughs": 1 KB, 9 levels of 9 aliases = 9^9 values. Before, the line map walked every
    # expanded value (hours); now the expanded size is counted once per node and the file refused.
    text = 'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
    for k in range(1, 10):
        prev, cur = chr(ord("a") + k - 1), chr(ord("a") + k)
        text += f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]\n"
    assert len(text) < 1100
    # expanded count by hand: list a holds 9 strings (10 values with itself); each next list holds 9
    # copies of the previous one (1 + 9 size); plus the root mapping and its 10 keys. The error points
    # at the first list whose own expansion passes 100 000 values: f, 9^6 strings, line 6.
    sizes = [10]
    for _ in range(9):
        sizes.append(1 + 9 * sizes[-1])
    _refused(_write(tmp_path, text), "<root>", 6, "aliases that add at most 100000 values",
             f"expand it to {1 + 10 + sum(sizes)} values", "alias bomb")
    _refused(_write(tmp_path, "a: &x [1, *x]\n", "recursive.yaml"), "<root>", 1, "recursive alias")
    # an alias chain 300 deep nests the document 300 deep although each line is shallow
    chain = "k0: &a0 [1]\n" + "".join(f"k{i}: &a{i} [*a{i - 1}]\n" for i in range(1, 300))
    _refused(_write(tmp_path, chain, "chain.yaml"), "<root>", 65, "nested at most 64 deep")


def test_ordinary_aliases_still_load(tmp_path):
    # an anchor reused for a matrix is legitimate YAML: same document as the file without it
    text = BASE.replace("    inertia: [[10, 0, 0], [0, 12, 0], [0, 0, 14]]",
                        "    inertia: &J [[10, 0, 0], [0, 12, 0], [0, 0, 14]]")
    text = text.replace("satdyn_model: 1\n", "satdyn_model: 1\ndescription: hub inertia reused below\n")
    doc = load_model(_write(tmp_path, text)).document
    assert doc["bodies"][0]["inertia"] == [[10, 0, 0], [0, 12, 0], [0, 0, 14]]


@pytest.mark.parametrize("text, line", [
    ("a: " + "[" * 500 + "]" * 500 + "\n", 1),                                               # flow style
    ("".join("  " * i + f"k{i}:\n" for i in range(500)) + "  " * 500 + "1\n", 64),           # block style
])
def test_deep_nesting_is_refused(tmp_path, text, line):
    # before: RecursionError out of PyYAML's composer (one Python frame per level)
    _refused(_write(tmp_path, text), "<root>", line, "nested at most 64 deep")


def test_non_utf8_files_are_refused_naming_the_file(tmp_path):
    # before: a bare UnicodeDecodeError (or a locale-dependent reading)
    latin = tmp_path / "latin1.yaml"
    latin.write_bytes(BASE.replace("name: sc", "name: sc  # café").encode("latin-1"))
    _refused(latin, "<root>", 2, "UTF-8 text", "byte 0xe9", "Latin-1")
    binary = tmp_path / "model.json"
    binary.write_bytes(bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + bytes(range(256)))   # a PNG header
    _refused(binary, "<root>", 1, "UTF-8 text", "byte 0x89")
    nul = tmp_path / "nul.yaml"
    nul.write_bytes(b"satdyn_model: 1\nname: sc\x00\n")
    _refused(nul, "<root>", 2, "character #x0000")
    # UTF-8 with a byte-order mark is UTF-8
    bom = tmp_path / "bom.yaml"
    bom.write_bytes(b"\xef\xbb\xbf" + BASE.encode())
    assert load_model(bom).document == loads_model(BASE).document


def _with_parameter(text, entry, use_old, use_new):
    text = text.replace("  - {name: a, kind: varying", f"  - {entry}\n  - {{name: a, kind: varying")
    assert use_old in text
    return text.replace(use_old, use_new)


@pytest.mark.parametrize("entry, low", [
    ("{name: m, kind: uncertain, nominal: 100.0, percent: 150}", "-50"),
    ("{name: m, kind: uncertain, nominal: 100.0, plusminus: 150.0}", "-50"),
    ("{name: m, kind: uncertain, nominal: 100.0, plusminus: [-100.0, 10.0]}", "0"),
    ("{name: m, kind: uncertain, nominal: 100.0, range: [-50.0, 250.0]}", "-50"),
])
def test_mass_range_must_stay_positive(tmp_path, entry, low):
    text = BASE.replace("  - {name: m, kind: uncertain, nominal: 100.0, percent: 10}", f"  - {entry}")
    source = entry.split(",")[3].split(":")[0].strip()
    _refused(_write(tmp_path, text), f"parameters[0].{source}", _line(text, entry),
             "mass > 0 [kg]", f"used at bodies[0].mass (line {_line(text, 'mass: m')})", f"[{low}, ")


def test_frequency_range_must_stay_positive(tmp_path):
    for use_old, use_new, where in [
        ("      frequencies_hz: [0.5]\n", "      frequencies: [w]\n", "bodies[1].modes.frequencies[0]"),
        ("    modes:\n", "    frequency_parameters: {'1': w}\n    modes:\n", "bodies[1].frequency_parameters.1"),
    ]:
        text = _with_parameter(BASE, "{name: w, kind: uncertain, nominal: 3.0, plusminus: [-4.0, 1.0]}",
                               use_old, use_new)
        _refused(_write(tmp_path, text), "parameters[1].plusminus", _line(text, "name: w"),
                 "frequency > 0 [rad/s]", f"used at {where}", "[-1, 4]")
    text = BASE.replace("frequencies_hz: [0.5]", "frequencies: [-3.0]")
    _refused(_write(tmp_path, text), "bodies[1].modes.frequencies[0]", _line(text, "frequencies: [-3.0]"), "> 0")


def test_damping_ratio_given_as_percentage_is_refused(tmp_path):
    text = BASE.replace("damping: 0.01", "damping: 50")
    _refused(_write(tmp_path, text), "bodies[1].modes.damping", _line(text, "damping: 50"),
             "damping ratios in [0, 1)", "got 50", "allow_overdamped_modes")
    # the user says otherwise: an overdamped mode is then accepted and built
    text = text.replace("    type: flexible\n", "    type: flexible\n    allow_overdamped_modes: true\n")
    assert build_model(load_model(_write(tmp_path, text))).lfr.nstates > 0


def test_damping_ratio_of_a_modal_table_file(tmp_path):
    csv = (example_path("telecom").parent / "telecom_antenna_modes.csv").read_text().replace("0.003", "3.0")
    (tmp_path / "modes.csv").write_text(csv)
    text = BASE.replace("    modes:\n      frequencies_hz: [0.5]\n      damping: 0.01\n"
                        "      L_P: [[0, 0, 3.0, 2.0, 0, 0]]\n",
                        "    modal_file: modes.csv\n")
    path = _write(tmp_path, text)
    with pytest.raises(ModelFileError) as info:
        build_model(load_model(path))
    assert info.value.key_path == "bodies[1].modal_file" and "damping ratios in [0, 1)" in str(info.value)
    assert f"line {_line(text, 'modal_file')}" in str(info.value)


def test_plate_thicker_than_wide_is_refused(tmp_path):
    plate = ("    fe_plate: {length: 5.0, width: 2.0, thickness: 20.0, youngs_modulus: 5.0e9, poisson_ratio: 0.3,"
             " density: 225.0, element_size: 0.5, n_modes: 4, damping: 0.01}\n")
    text = BASE.replace("    D_P: [[20, 0, 0, 0, 0, 0], [0, 20, 0, 0, 0, 0], [0, 0, 20, 0, 0, 0], [0, 0, 0, 30, 0, 0], "
                        "[0, 0, 0, 0, 30, 0], [0, 0, 0, 0, 0, 30]]\n    modes:\n      frequencies_hz: [0.5]\n"
                        "      damping: 0.01\n      L_P: [[0, 0, 3.0, 2.0, 0, 0]]\n", plate)
    assert plate in text
    _refused(_write(tmp_path, text), "bodies[1].fe_plate.thickness", _line(text, "fe_plate"),
             "below its in-plane dimensions", "got 20.0 m")


def test_unknown_key_is_refused_naming_it(tmp_path):
    # controller.bandwidth was in the schema but nothing read it: now an unknown key like any other
    text = BASE + ("controller:\n  type: attitude_pid\n  port: hub.G\n  kp: [1, 1, 1]\n  kd: [1, 1, 1]\n"
                   "  bandwidth: 0.1\n")
    _refused(_write(tmp_path, text), "controller.bandwidth", _line(text, "bandwidth"),
             "'bandwidth' is not one", "allowed keys: ['kd', 'ki', 'kp', 'port', 'type']")
    text = BASE.replace("    type: rigid\n", "    type: rigid\n    colour: red\n")
    _refused(_write(tmp_path, text), "bodies[0].colour", _line(text, "colour"), "'colour' is not one")


def test_non_finite_numbers_are_refused(tmp_path):
    # JSON-schema bounds let NaN through (nan > 0 and nan <= 0 are both False)
    text = BASE.replace("nominal: 100.0", "nominal: .nan")
    _refused(_write(tmp_path, text), "parameters[0].nominal", _line(text, ".nan"), "a finite number; got nan")
    text = BASE.replace("[[10, 0, 0], [0, 12, 0], [0, 0, 14]]", "[[.inf, 0, 0], [0, 12, 0], [0, 0, 14]]")
    _refused(_write(tmp_path, text), "bodies[0].inertia[0][0]", _line(text, ".inf"), "got inf")


def test_port_wired_twice_names_both_places(tmp_path):
    text = BASE.replace("  - [drive.child, arr.P]\n", "  - [drive.child, arr.P]\n  - [hub.P1, arr.P]\n")
    _refused(_write(tmp_path, text), "connections[2][0]", _line(text, "[hub.P1, arr.P]"),
             f"'hub.P1' is also at connections[0][0] (line {_line(text, '[hub.P1, drive.parent]')})")
    text = BASE.replace("external: [hub.G]", "external: [hub.G]\nfree: [hub.G]")
    _refused(_write(tmp_path, text), "free[0]", _line(text, "free:"), "'hub.G' is also at external[0]")
