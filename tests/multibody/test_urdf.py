"""URDF reader: the same file in satdyn and Pinocchio gives the same dynamics (oracle: Pinocchio).

The file (written by the test, seeded) has revolute, continuous, prismatic and fixed joints,
joint origins with rpy, inertial frames with rpy, a branching tree whose joint names are not
in file order (Pinocchio visits children in joint-name order) and a massless link.
Pinocchio stores a continuous joint as (cos, sin); the test maps q accordingly.
"""

import numpy as np
import pinocchio as pin
import pytest

import satdyn.multibody as mb


def _inertial(rng, massless=False):
    if massless:
        return ""
    A = rng.normal(size=(3, 3))
    J = A @ A.T + 0.2 * np.eye(3)
    xyz = " ".join(f"{x:.6f}" for x in rng.normal(size=3) * 0.2)
    rpy = " ".join(f"{x:.6f}" for x in rng.uniform(-1, 1, 3))
    return (f'<inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{rng.uniform(0.5, 3):.6f}"/>'
            f'<inertia ixx="{J[0, 0]:.6f}" ixy="{J[0, 1]:.6f}" ixz="{J[0, 2]:.6f}" iyy="{J[1, 1]:.6f}" '
            f'iyz="{J[1, 2]:.6f}" izz="{J[2, 2]:.6f}"/></inertial>')


def write_urdf(path, rng):
    # (joint name, type, parent, child); the file order differs from the name order on purpose.
    tree = [("m_shoulder", "revolute", "base", "l1"), ("c_side", "prismatic", "base", "l2"),
            ("x_elbow", "continuous", "l1", "l3"), ("b_fix", "fixed", "l1", "tool_frame"),
            ("a_wrist", "revolute", "l3", "l4"), ("z_slide", "prismatic", "l2", "l5"),
            ("d_fix", "fixed", "l3", "l6")]
    links = ["base", "l1", "l2", "l3", "l4", "l5", "l6", "tool_frame"]
    parts = ['<?xml version="1.0"?>', '<robot name="test_arm">']
    for ln in links:
        parts.append(f'<link name="{ln}">{_inertial(rng, massless=(ln == "l6"))}</link>')
    for name, kind, parent, child in tree:
        xyz = " ".join(f"{x:.6f}" for x in rng.normal(size=3) * 0.5)
        rpy = " ".join(f"{x:.6f}" for x in rng.uniform(-1.5, 1.5, 3))
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        ax = " ".join(f"{x:.9f}" for x in axis)
        limit = '<limit lower="-2" upper="2" effort="10" velocity="3"/>' if kind in ("revolute", "prismatic") else ""
        parts.append(f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
                     f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{ax}"/>{limit}</joint>')
    parts.append("</robot>")
    path.write_text("\n".join(parts))
    return path


def _pin_q(model, pm, q):
    """satdyn q -> Pinocchio q (continuous joints as cos, sin)."""
    out = []
    for i, joint in enumerate(model.joints):
        qj = q[model.q_slice(i)]
        if joint.kind == "floating" or joint.nq == 0:
            out.extend(qj)
            continue
        jid = pm.getJointId(joint.name)
        if pm.joints[jid].nq == 2:
            out.extend([np.cos(qj[0]), np.sin(qj[0])])
        else:
            out.extend(qj)
    return np.array(out)


@pytest.mark.parametrize("floating", [False, True])
def test_urdf_dynamics_match_pinocchio(tmp_path, floating):
    rng = np.random.default_rng(21 + floating)
    path = write_urdf(tmp_path / "arm.urdf", rng)
    g = np.array([0.0, 0.0, -9.81])
    model = mb.load_urdf(path, floating=floating, gravity=g)
    pm = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(str(path))
    pm.gravity = pin.Motion(g, np.zeros(3))
    pd = pm.createData()
    # Same joint order as Pinocchio (depth-first, children in joint-name order).
    moving = [j.name for j in model.joints[1:] if j.nv]
    assert moving == [n for n in list(pm.names)[1 + floating:]]
    assert model.nv == pm.nv
    for _ in range(3):
        q = model.neutral_configuration()
        q[:] = rng.uniform(-1.5, 1.5, model.nq)
        if floating:
            quat = rng.normal(size=4)
            q[3:7] = quat / np.linalg.norm(quat)
        v = rng.normal(size=model.nv)
        tau = rng.normal(size=model.nv)
        qp = _pin_q(model, pm, q)
        a_pin = pin.aba(pm, pd, qp, v, tau).copy()
        scale = max(1.0, np.abs(a_pin).max())
        assert np.abs(mb.forward_dynamics(model, q, v, tau) - a_pin).max() / scale < 1e-9
        t_pin = pin.rnea(pm, pd, qp, v, a_pin).copy()
        assert np.abs(mb.inverse_dynamics(model, q, v, a_pin) - t_pin).max() / max(1, np.abs(t_pin).max()) < 1e-9
        M = pin.crba(pm, pd, qp).copy()
        M = np.triu(M) + np.triu(M, 1).T
        assert np.abs(mb.mass_matrix(model, q) - M).max() / np.abs(M).max() < 1e-9


def test_urdf_errors(tmp_path):
    head = '<robot name="r"><link name="a"/><link name="b"/><link name="c"/>'
    cases = {
        "two parent joints": head + '<joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint>'
                                    '<joint name="j2" type="fixed"><parent link="c"/><child link="b"/></joint>'
                                    '<joint name="j3" type="fixed"><parent link="a"/><child link="c"/></joint></robot>',
        "not supported": head + '<joint name="j" type="floating"><parent link="a"/><child link="b"/></joint></robot>',
        "exactly one root": head + '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint></robot>',
        "unknown link": head + '<joint name="j" type="fixed"><parent link="a"/><child link="zz"/></joint></robot>',
    }
    for message, text in cases.items():
        p = tmp_path / "bad.urdf"
        p.write_text(text)
        with pytest.raises(ValueError, match=message):
            mb.load_urdf(p)
    # A mimic joint whose master does not exist: independent mode reads it (as Pinocchio), coupling cannot.
    p = tmp_path / "mimic.urdf"
    p.write_text(head + '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><mimic joint="k"/>'
                 '</joint><joint name="k" type="fixed"><parent link="a"/><child link="c"/></joint></robot>')
    with pytest.warns(UserWarning, match="mimic"):
        assert mb.load_urdf(p).nv == 1
    with pytest.raises(ValueError, match="'j' mimics 'k'"):
        mb.load_urdf(p, mimic="coupled")
    with pytest.raises(ValueError, match="no URDF file"):
        mb.load_urdf(tmp_path / "missing.urdf")
    p = tmp_path / "notrobot.urdf"
    p.write_text("<sdf/>")
    with pytest.raises(ValueError, match="expected <robot>"):
        mb.load_urdf(p)


def test_xml_read_as_urdfdom_reads_it(tmp_path):
    """Whitespace and a byte-order mark before the declaration, comments and unknown elements
    (urdfdom accepts them; expat alone refuses the first): the model is the one of the clean file."""
    rng = np.random.default_rng(4)
    clean = write_urdf(tmp_path / "clean.urdf", rng).read_text()
    messy = ("\ufeff\n   \n" + clean.replace("<robot name=\"test_arm\">",
                                               "<robot name=\"test_arm\"><!-- a comment -->"
                                               "<gazebo reference=\"l1\"><material>red</material></gazebo>"
                                               "<transmission name=\"t\"><type>simple</type></transmission>")
             .replace("</robot>", "<!-- trailing <joint> comment --></robot>"))
    (tmp_path / "messy.urdf").write_text(messy, encoding="utf-8")
    a, b = mb.load_urdf(tmp_path / "clean.urdf"), mb.load_urdf(tmp_path / "messy.urdf")
    q = rng.uniform(-1, 1, a.nq)
    assert [j.name for j in a.joints] == [j.name for j in b.joints]
    assert np.array_equal(mb.mass_matrix(a, q), mb.mass_matrix(b, q))
    pm = pin.buildModelFromUrdf(str(tmp_path / "messy.urdf"))
    assert pm.nv == b.nv


def _fixed(name, parent, child):
    return f'<joint name="{name}" type="fixed"><parent link="{parent}"/><child link="{child}"/></joint>'


def test_urdf_structure_errors_name_the_links(tmp_path):
    """Repeated names (both lines), several roots, cycles and unreachable links are refused, naming them
    (urdfdom refuses each of these files too; before, a repeated name was overwritten and the links
    of a cycle next to the root were dropped, leaving a 2-body model)."""
    cases = [
        # (file lines, message pattern)
        (['<robot name="r">', '<link name="a"/>', '<link name="b"/>', '<link name="a"/>', _fixed("j", "a", "b"),
          "</robot>"], r"link name 'a' is given twice \(lines 2 and 4\)"),
        (['<robot name="r">', '<link name="a"/>', '<link name="b"/>', '<link name="c"/>', _fixed("j", "a", "b"),
          _fixed("j", "a", "c"), "</robot>"], r"joint name 'j' is given twice \(lines 5 and 6\)"),
        (['<robot name="r">', '<link name="a"/>', '<link name="b"/>', '<link name="c"/>', '<link name="d"/>',
          _fixed("ab", "a", "b"), _fixed("cd", "c", "d"), _fixed("dc", "d", "c"), "</robot>"],
         r"links \['c', 'd'\] are not reached from the root link 'a'.*cycle (c -> d -> c|d -> c -> d)"),
        (['<robot name="r">', '<link name="a"/>', '<link name="b"/>', _fixed("ab", "a", "b"), _fixed("ba", "b", "a"),
          "</robot>"], r"found none: the joints form a cycle (a -> b -> a|b -> a -> b)"),
        (['<robot name="r">', '<link name="a"/>', '<link name="b"/>', '<link name="c"/>', '<link name="d"/>',
          _fixed("ab", "a", "b"), _fixed("cd", "c", "d"), "</robot>"], r"exactly one root link.*found 2: \['a', 'c'\]"),
        (['<robot name="r">', "</robot>"], "has no <link>"),
        (['<robot name="r">', '<link name="a">', "</robot>"], "not valid XML"),
    ]
    for k, (lines, pattern) in enumerate(cases):
        path = tmp_path / f"bad{k}.urdf"
        path.write_text("\n".join(lines))
        with pytest.raises(ValueError, match=pattern):
            mb.load_urdf(path)


def test_long_chain_loads_without_recursion(tmp_path):
    """A 1500-joint horizontal chain (a recursion would stop near 1000 joints). Oracle: statics by hand --
    at q = 0, v = 0, a = 0 under gravity g along -z, joint j(i-1) (axis y, at x = 0.1 i) holds the
    links l(i)..l(n), whose masses sit at their joints (x = 0.1 k): tau = -m g 0.1 sum_{k=i}^{n} (k - i)
    = -m g 0.1 (n - i)(n - i + 1) / 2. Rounding: ~n additions of terms up to
    m g 0.1 n per joint, relative error ~ n x 1e-16 = 1.5e-13; 1e-10 leaves room."""
    n, mass, g = 1500, 1.0, 9.81
    parts = ['<robot name="chain">']
    parts += [f'<link name="l{i}"><inertial><mass value="{mass}"/><inertia ixx="0.1" iyy="0.1" izz="0.1" '
              'ixy="0" ixz="0" iyz="0"/></inertial></link>' for i in range(n + 1)]
    parts += [f'<joint name="j{i:05d}" type="revolute"><parent link="l{i}"/><child link="l{i + 1}"/>'
              '<origin xyz="0.1 0 0"/><axis xyz="0 1 0"/></joint>' for i in range(n)]
    path = tmp_path / "chain.urdf"
    path.write_text("\n".join(parts + ["</robot>"]))
    model = mb.load_urdf(path, gravity=[0.0, 0.0, -g])
    assert model.nv == n and [j.name for j in model.joints[1:]] == [f"j{i:05d}" for i in range(n)]
    tau = mb.inverse_dynamics(model, np.zeros(n), np.zeros(n), np.zeros(n))
    i = np.arange(1, n + 1)   # joint j{i-1} sits at x = 0.1 i; links l{i}..l{n} beyond it
    # torque about +y of a weight -m g e_z at arm d e_x is +m g d (r x F = d e_x x (-m g e_z) = m g d e_y);
    # inverse dynamics returns the effort that holds it: tau = -(moment of the weights) along +y
    expected = -mass * g * 0.1 * (n - i) * (n - i + 1) / 2.0
    assert np.abs(tau - expected).max() <= 1e-10 * np.abs(expected).max()


def test_non_physical_inertia_read_as_pinocchio(tmp_path):
    """A link inertia with a negative principal moment (here -0.3 kg m^2, beyond any rounding) is read
    as written, as Pinocchio reads it, with a warning naming the link and its principal moments;
    strict=True refuses it. Oracle: Pinocchio's ABA, RNEA and CRBA on the same file (the other
    links keep M positive definite); tolerance 1e-9 as in test_urdf_dynamics_match_pinocchio."""
    rng = np.random.default_rng(5)
    text = write_urdf(tmp_path / "arm.urdf", rng).read_text()
    start = text.index('<link name="l3">')
    end = text.index("</link>", start)
    text = (text[:start] + '<link name="l3"><inertial><origin xyz="0.1 0 0" rpy="0 0 0"/><mass value="1.5"/>'
            '<inertia ixx="0.5" ixy="0" ixz="0" iyy="0.4" iyz="0" izz="-0.3"/></inertial>' + text[end:])
    path = tmp_path / "nonphysical.urdf"
    path.write_text(text)
    g = np.array([0.0, 0.0, -9.81])
    with pytest.warns(UserWarning, match=r"link 'l3'.*principal moments \[-0.3, 0.4, 0.5\].*as Pinocchio"):
        model = mb.load_urdf(path, floating=True, gravity=g)
    with pytest.raises(ValueError, match=r"link 'l3'.*principal moments \[-0.3, 0.4, 0.5\].*strict=True"):
        mb.load_urdf(path, strict=True)
    pm = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    pm.gravity = pin.Motion(g, np.zeros(3))
    pd = pm.createData()
    for _ in range(3):
        q = rng.uniform(-1.5, 1.5, model.nq)
        quat = rng.normal(size=4)
        q[3:7] = quat / np.linalg.norm(quat)
        v, tau = rng.normal(size=(2, model.nv))
        qp = _pin_q(model, pm, q)
        M = pin.crba(pm, pd, qp).copy()
        M = np.triu(M) + np.triu(M, 1).T
        assert np.abs(mb.mass_matrix(model, q) - M).max() / np.abs(M).max() < 1e-9
        a_pin = pin.aba(pm, pd, qp, v, tau).copy()
        assert np.abs(mb.forward_dynamics(model, q, v, tau) - a_pin).max() / max(1, np.abs(a_pin).max()) < 1e-9
        t_pin = pin.rnea(pm, pd, qp, v, a_pin).copy()
        assert np.abs(mb.inverse_dynamics(model, q, v, a_pin) - t_pin).max() / max(1, np.abs(t_pin).max()) < 1e-9


@pytest.mark.skipif(__import__("pyexpat").version_info < (2, 4, 0), reason="expat < 2.4 has no amplification limit")
def test_xml_entity_bomb_is_refused(tmp_path):
    """A "billion laughs" DTD (10^9 characters from 1 KB): expat's amplification limit refuses it,
    and the reader turns that into its one-line 'not valid XML' error."""
    entities = '<!ENTITY l0 "lol">' + "".join(f'<!ENTITY l{k} "{f"&l{k - 1};" * 10}">' for k in range(1, 10))
    path = tmp_path / "bomb.urdf"
    path.write_text(f'<?xml version="1.0"?>\n<!DOCTYPE robot [{entities}]>\n'
                    '<robot name="&l9;"><link name="a"/></robot>')
    with pytest.raises(ValueError, match="not valid XML: limit on input amplification"):
        mb.load_urdf(path)
