"""Real robot descriptions (example-robot-data) load as in Pinocchio and have Pinocchio's dynamics.

Oracle: Pinocchio reading the same file (urdfdom). Compared: inverse dynamics (RNEA), the mass
matrix (CRBA), and forward dynamics through its torque residual ``rnea_pin(q, v, a_ours) - tau``
-- the residual is independent of the conditioning of M (finger links of 1e-6 kg m^2 next to a
40 kg torso give cond(M) ~ 1e8, which would amplify rounding in a comparison of accelerations).
Tolerance 1e-11 relative to the largest effort: both sides run an O(n) recursion in double
precision over at most ~60 bodies; each body adds a few ulps (2.2e-16) of its spatial
quantities, times the depth (<= 15) and the ratio of the largest to the typical effort (<= 100
with gravity), so 2.2e-16 x 60 x 15 x 100 ~ 2e-11 is a conservative rounding envelope; the
observed errors are ~1e-14.

Mimic joints: by default independent (as ``buildModelFromUrdf``), with a warning; with
``mimic="coupled"`` against ``buildModelFromUrdf(..., mimic=True)``.
Inertias projected onto the PSD cone (Tiago's antennas: eigenvalue -3.5e-8 kg m^2, 4e-8 of
the largest link inertia): Pinocchio reads a copy of the file with the projected inertia
written in, so both sides model the same bodies. Inertias far from PSD (Romeo's body, -0.021
kg m^2) are read as written by both.
"""

import re
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pinocchio as pin
import pytest

import satdyn.multibody as mb

from example_robots import ROBOTS, SKIP_REASON, robot_file  # tests/freefloating, on sys.path (conftest)

pytestmark = pytest.mark.skipif(ROBOTS is None, reason=SKIP_REASON)

GRAVITY = np.array([0.0, 0.0, -9.81])
TOL = 1e-11

# The files the issue named (mimic grippers, non-PSD by rounding, zero mass with inertia) and
# plain arms / legged robots; the whole collection runs under -m slow.
DEFAULT = ["panda_description/urdf/panda.urdf", "tiago_description/robots/tiago_no_hand.urdf",
           "bolt_description/robots/bolt.urdf", "talos_data/robots/talos_left_arm.urdf",
           "ur_description/urdf/ur5_robot.urdf", "kinova_description/robots/kinova.urdf",
           "baxter_description/urdf/baxter.urdf"]


def _all_files():
    if ROBOTS is None:
        return []
    skip = {"ur_description/urdf/ur3.urdf",                 # urdfdom refuses it (no robot name, no link)
            "romeo_description/urdf/romeo_laas_small.urdf"}  # non-physical inertias: separate test
    files = sorted(str(p.relative_to(ROBOTS)) for p in ROBOTS.rglob("*.urdf"))
    return [f for f in files if f not in skip and f not in DEFAULT]


def _load(path, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = mb.load_urdf(path, **kwargs)
    return model, [str(w.message) for w in caught]


def _pinocchio_file(path, model, messages, tmp_path):
    """The file itself, or a copy with the inertias satdyn projected written in (see module doc)."""
    projected = {m.group(1) for m in (re.search(r"URDF link '([^']+)': inertia not positive", s) for s in messages)
                 if m}
    if not projected:
        return str(path)
    tree = ET.parse(path)
    for link in tree.getroot().findall("link"):
        if link.get("name") in projected:
            bd = model.bodies[model.body_index(link.get("name"))]
            inertial = link.find("inertial")
            origin = inertial.find("origin")
            if origin is None:
                origin = ET.SubElement(inertial, "origin")
            origin.set("xyz", " ".join(repr(float(x)) for x in bd.com))
            origin.set("rpy", "0 0 0")
            J = bd.inertia
            for key, (a, b) in {"ixx": (0, 0), "ixy": (0, 1), "ixz": (0, 2), "iyy": (1, 1), "iyz": (1, 2),
                                "izz": (2, 2)}.items():
                inertial.find("inertia").set(key, repr(float(J[a, b])))
    out = tmp_path / path.name
    tree.write(out)
    return str(out)


def pin_configuration(model, pm, q):
    """satdyn q -> Pinocchio q (continuous joints as cos, sin; free-flyer as is)."""
    out = []
    for i, joint in enumerate(model.joints):
        qj = q[model.q_slice(i)]
        if joint.nq == 1 and pm.joints[pm.getJointId(joint.name)].nq == 2:
            out.extend([np.cos(qj[0]), np.sin(qj[0])])
        else:
            out.extend(qj)
    return np.array(out)


def random_state(model, rng):
    q = rng.uniform(-1.0, 1.0, model.nq)
    if model.is_floating:
        quat = rng.normal(size=4)
        q[3:7] = quat / np.linalg.norm(quat)
    return q, rng.normal(size=model.nv), rng.normal(size=model.nv)


def check_against_pinocchio(relative, floating, tmp_path, seed):
    path = robot_file(relative)
    model, messages = _load(path, floating=floating, gravity=GRAVITY)
    pm = pin.buildModelFromUrdf(_pinocchio_file(path, model, messages, tmp_path),
                                *([pin.JointModelFreeFlyer()] if floating else []))
    pm.gravity = pin.Motion(GRAVITY, np.zeros(3))
    pd = pm.createData()
    assert model.nv == pm.nv
    assert [j.name for j in model.joints[1:] if j.nv] == list(pm.names)[1 + floating:]
    rng = np.random.default_rng(seed)
    for _ in range(2):
        q, v, a = random_state(model, rng)
        qp = pin_configuration(model, pm, q)
        tau_pin = pin.rnea(pm, pd, qp, v, a).copy()
        scale = max(1.0, np.abs(tau_pin).max())
        assert np.abs(mb.inverse_dynamics(model, q, v, a) - tau_pin).max() < TOL * scale
        M = pin.crba(pm, pd, qp).copy()
        M = np.triu(M) + np.triu(M, 1).T
        assert np.abs(mb.mass_matrix(model, q) - M).max() < TOL * np.abs(M).max()
        if np.linalg.eigvalsh(M).min() <= 0.0:
            # Romeo's fingers end in massless links: M is singular, forward dynamics undefined
            # (Pinocchio's aba divides by zero too); inverse dynamics and M are still compared.
            continue
        a_ours = mb.forward_dynamics(model, q, v, tau_pin)
        residual = pin.rnea(pm, pd, qp, v, a_ours) - tau_pin
        assert np.abs(residual).max() < TOL * scale
    return messages


@pytest.mark.parametrize("relative", DEFAULT)
@pytest.mark.parametrize("floating", [False, True])
def test_named_robots_match_pinocchio(relative, floating, tmp_path):
    messages = check_against_pinocchio(relative, floating, tmp_path, seed=len(relative))
    text = " ".join(messages)
    if relative.startswith(("panda", "baxter")):
        assert "mimic joints" in text   # read as independent joints, with a warning
    if relative.startswith("tiago"):
        assert "base_antenna_left_link" in text and "projected" in text
    if relative.startswith("bolt"):
        assert "zero mass with a non-zero inertia" in text


@pytest.mark.slow
@pytest.mark.parametrize("relative", _all_files())
def test_every_robot_matches_pinocchio(relative, tmp_path):
    check_against_pinocchio(relative, True, tmp_path, seed=len(relative))


def test_zero_mass_root_link_on_a_fixed_base_is_exact_and_silent():
    """Bolt's feet warn; a fixed base's massless root with an inertia moves with nothing: no warning."""
    _, messages = _load(robot_file("bolt_description/robots/bolt.urdf"), floating=False)
    assert all("base_link" not in m for m in messages)


@pytest.mark.parametrize("relative", ["panda_description/urdf/panda.urdf",
                                      "tiago_pro_description/robots/tiago_pro.urdf",
                                      "pr2_description/urdf/pr2.urdf"])
def test_coupled_mimic_joints_match_pinocchio(relative):
    """mimic='coupled' against Pinocchio's mimic=True (its rnea and crba are G^T tau and G^T M G)."""
    path = robot_file(relative)
    coupled = mb.load_urdf(path, gravity=GRAVITY, mimic="coupled")
    assert isinstance(coupled, mb.CoupledModel)
    pm = pin.buildModelFromUrdf(str(path), mimic=True)
    pm.gravity = pin.Motion(GRAVITY, np.zeros(3))
    pd = pm.createData()
    assert coupled.nv == pm.nv and coupled.v_names == [n for n in pm.names[1:] if pm.joints[pm.getJointId(n)].nv]
    rng = np.random.default_rng(3)
    for _ in range(2):
        y = rng.uniform(-1.0, 1.0, coupled.nq)
        w, dw = rng.normal(size=(2, coupled.nv))
        q_full = coupled.expand(y)
        qp = []
        for name, value in zip(coupled.q_names, y):
            qp.extend([np.cos(value), np.sin(value)] if pm.joints[pm.getJointId(name)].nq == 2 else [value])
        qp = np.array(qp)
        tau_pin = pin.rnea(pm, pd, qp, w, dw).copy()
        scale = max(1.0, np.abs(tau_pin).max())
        assert np.abs(coupled.inverse_dynamics(y, w, dw) - tau_pin).max() < TOL * scale
        M = pin.crba(pm, pd, qp).copy()
        M = np.triu(M) + np.triu(M, 1).T
        assert np.abs(coupled.mass_matrix(y) - M).max() < TOL * np.abs(M).max()
        residual = pin.rnea(pm, pd, qp, w, coupled.forward_dynamics(y, w, tau_pin)) - tau_pin
        assert np.abs(residual).max() < TOL * scale
        # The mimic joints follow their masters in the expanded tree coordinates.
        for name, (master, multiplier, offset) in coupled.mimics.items():
            i, k = coupled.model.joint_index(name), coupled.model.joint_index(master)
            assert q_full[coupled.model.idx_q[i]] == pytest.approx(multiplier * q_full[coupled.model.idx_q[k]] + offset,
                                                                   rel=1e-15, abs=1e-15)


def _small_masses_on_massless_links(path, out):
    """A copy of the file in which every link without mass gets 0.01 kg and 1e-5 kg m^2 (see below)."""
    tree = ET.parse(path)
    for link in tree.getroot().findall("link"):
        inertial = link.find("inertial")
        if inertial is None or float(inertial.find("mass").get("value")) == 0.0:
            for old in link.findall("inertial"):
                link.remove(old)
            link.append(ET.fromstring('<inertial><mass value="0.01"/><inertia ixx="1e-5" iyy="1e-5" izz="1e-5" '
                                      'ixy="0" ixz="0" iyz="0"/></inertial>'))
    tree.write(out)
    return out


def test_non_physical_inertia_is_read_as_pinocchio_reads_it(tmp_path):
    """Romeo's 'body' (romeo_laas_small) has a principal moment of -0.021 kg m^2, 22 % of its largest,
    and its hip pitch links -0.0027 and -0.0028: not rounding, not a rigid body's inertia. Pinocchio
    reads them as written; so does satdyn by default, with a warning naming each link and its
    principal moments. strict=True refuses the file; a larger tolerance projects them.

    Oracle: Pinocchio on the same file -- RNEA, CRBA and ABA at random states (tolerance: see the
    module doc). Romeo's fingers and sensors are massless leaves, so its M is singular and both ABAs
    divide by zero; ABA is compared on a copy whose massless links carry 0.01 kg (read by both
    sides, the three non-physical inertias untouched): cond(M) ~ 5e6, so the accelerations are
    compared through the torque residual as above, and directly to 1e-11 x cond(M)."""
    path = robot_file("romeo_description/urdf/romeo_laas_small.urdf")
    model, messages = _load(path, floating=True, gravity=GRAVITY)
    for link, lowest in (("body", "-0.02135"), ("LHipPitch_link", "-0.00272"), ("RHipPitch_link", "-0.002817")):
        assert any(f"'{link}'" in m and "principal moments [" + lowest in m and "as Pinocchio" in m
                   for m in messages), link
    J = model.bodies[model.body_index("body")].inertia
    assert np.linalg.eigvalsh(J).min() == pytest.approx(-0.02135, abs=1e-5)   # kept as written
    check_against_pinocchio("romeo_description/urdf/romeo_laas_small.urdf", True, tmp_path, seed=7)

    copy = _small_masses_on_massless_links(path, tmp_path / "romeo_massive.urdf")
    model, _ = _load(copy, floating=True, gravity=GRAVITY)
    pm = pin.buildModelFromUrdf(str(copy), pin.JointModelFreeFlyer())
    pm.gravity = pin.Motion(GRAVITY, np.zeros(3))
    pd = pm.createData()
    rng = np.random.default_rng(8)
    for _ in range(3):
        q, v, a = random_state(model, rng)
        tau = pin.rnea(pm, pd, q, v, a).copy()
        a_pin = pin.aba(pm, pd, q, v, tau).copy()
        a_ours = mb.forward_dynamics(model, q, v, tau)
        M = pin.crba(pm, pd, q).copy()
        M = np.triu(M) + np.triu(M, 1).T
        scale = max(1.0, np.abs(tau).max())
        assert np.abs(pin.rnea(pm, pd, q, v, a_ours) - tau).max() < TOL * scale
        assert np.abs(a_ours - a_pin).max() < TOL * np.linalg.cond(M) * np.abs(a_pin).max()

    with pytest.raises(ValueError, match=r"'body'.*principal moments \[-0.02135.*strict=True"):
        mb.load_urdf(path, strict=True)
    model, messages = _load(path, inertia_tolerance=0.5)
    assert any("'body'" in m and "projected" in m for m in messages)
    assert np.linalg.eigvalsh(model.bodies[model.body_index("body")].inertia).min() >= -1e-15


def test_every_description_loads():
    """Every URDF of example-robot-data that urdfdom reads loads (68 of 69 files; ur3.urdf has no link)."""
    files = sorted(ROBOTS.rglob("*.urdf"))
    refused = []
    for path in files:
        try:
            _load(path, floating=True)
        except ValueError as exc:
            refused.append((path.name, str(exc)))
    assert [name for name, _ in refused] == ["ur3.urdf"] and "has no <link>" in refused[0][1]
    assert len(files) - len(refused) == 68
