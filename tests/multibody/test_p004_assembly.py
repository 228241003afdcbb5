"""Hand-assembled block diagrams (arXiv:2505.03248 §3.6) against satdyn's whole-tree forward dynamics and Pinocchio.

The helpers here assemble a diagram block by block, the way a user would, from the same data
as a satdyn ``Model`` (and, through ``pin_oracle``, the same tree in Pinocchio); other p004
tests import them.
"""

import numpy as np
import pinocchio as pin
import pytest

import satdyn.multibody as mb
from satdyn.multibody.blocks import (
    FloatingBodyBlock, GroundBlock, PrismaticBlock, RevoluteBlock, WeldBlock,
)
from satdyn.multibody.diagram import BlockDiagram
from satdyn.spatial import dcm_from_euler_sequence, dcm_from_quaternion, euler_sequence_from_dcm

from .pin_oracle import random_state, random_tree


def assemble_by_hand(model, sequence="ZYX"):
    """One block per body of ``model``: child ports named after the child bodies."""
    d = BlockDiagram(model.name)
    g = model.gravity
    for i, (bd, joint) in enumerate(zip(model.bodies, model.joints)):
        ports = {**bd.ports, **{model.bodies[c].name: model.joints[c].position for c in model.children[i]}}
        kw = dict(com=bd.com, inertia=bd.inertia, ports=ports)
        if joint.kind in ("floating", "floating_euler"):
            d.add(bd.name, FloatingBodyBlock(bd.mass, gravity=g, sequence=sequence, **kw))
        elif joint.kind == "fixed":
            d.add(bd.name, GroundBlock(position=joint.position, rotation=joint.rotation, ports=ports,
                                       sequence=sequence))
        else:
            common = dict(gravity=g, sequence=sequence, rotation=joint.rotation, **kw)
            if joint.kind == "weld":
                blk = WeldBlock(bd.mass, **common)
            else:
                cls = RevoluteBlock if joint.kind == "revolute" else PrismaticBlock
                blk = cls(joint.axis, bd.mass, stiffness=joint.stiffness, damping=joint.damping,
                          rest=joint.rest, **common)
            parent = model.bodies[model.parents[i]].name
            d.add(bd.name, blk, parent=parent, port=bd.name)
    return d


def diagram_state(model, q, v, sequence="ZYX"):
    """Diagram state from a satdyn / Pinocchio (q, v) with a quaternion or Euler 3-2-1 floating root."""
    q, v = np.asarray(q, float), np.asarray(v, float)
    kind = model.joints[0].kind
    if kind == "floating":
        P = dcm_from_quaternion(q[3:7])
        root = np.concatenate([v[:6], P.T @ q[:3], euler_sequence_from_dcm(P, sequence)])
        qj, vj = q[7:], v[6:]
    elif kind == "floating_euler":
        P = dcm_from_euler_sequence(q[3:6][::-1], "ZYX")
        root = np.concatenate([v[:6], P.T @ q[:3], euler_sequence_from_dcm(P, sequence)])
        qj, vj = q[6:], v[6:]
    else:
        root, qj, vj = np.zeros(0), q, v
    return np.concatenate([root, qj, vj])


def model_state(model, x, sequence="ZYX"):
    """satdyn (q, v) of a diagram state (quaternion floating root or fixed root)."""
    from satdyn.spatial import quaternion_from_dcm

    x = np.asarray(x, float)
    if model.is_floating:
        P = dcm_from_euler_sequence(x[9:12], sequence)
        nj = model.nv - 6
        q = np.concatenate([P @ x[6:9], quaternion_from_dcm(P), x[12:12 + nj]])
        return q, np.concatenate([x[:6], x[12 + nj:]])
    nj = model.nv
    return x[:nj].copy(), x[nj:].copy()


def diagram_acceleration(model, xdot):
    """Model-order accelerations (nv,) from a diagram state derivative."""
    n_root = 12 if model.is_floating else 0
    nj = model.nv - (6 if model.is_floating else 0)
    return np.concatenate([xdot[:6] if n_root else np.zeros(0), xdot[n_root + nj:]])


def _rel(a, b):
    return np.abs(a - b).max() / max(1.0, np.abs(b).max())


# Seeds, tree sizes, roots, and the Euler sequence of the floating root's attitude states
# (which must not change the dynamics: attitude enters only through DCMs).
CASES = [(1, 2, True, "ZYX"), (6, 4, False, "ZYX"), (7, 4, False, "zyx"), (3, 5, True, "zxz"), (4, 6, False, "XYZ"),
         (5, 7, True, "YXY"), (8, 9, True, "ZYZ")]


@pytest.mark.parametrize("seed, n_bodies, floating, sequence", CASES)
def test_hand_assembled_diagram_matches_forward_dynamics_and_pinocchio(seed, n_bodies, floating, sequence):
    # Three independent routes: the diagram's affine cut-and-solve of the block equations,
    # satdyn's O(n) articulated sweep, and Pinocchio's ABA. All are exact in float64; the
    # cut-and-solve adds one dense solve of size 6E (condition ~1e3 on these trees), so 1e-10
    # relative is ~1e5 ulps of margin.
    rng = np.random.default_rng(100 + seed)
    model, pm, _, _ = random_tree(rng, n_bodies, floating=floating, gravity=[0.4, -9.81, 1.3],
                                  kinds=("revolute", "prismatic", "weld"), damping=True)
    if model.nv == 0:
        pytest.skip("tree without degrees of freedom")
    d = assemble_by_hand(model, sequence)
    pd = pm.createData()
    for _ in range(2):
        q, v = random_state(rng, model, pm)
        tau = rng.normal(size=model.nv) * 3
        x = diagram_state(model, q, v, sequence)
        n_root = 6 if floating else 0
        if floating:  # Pinocchio's / satdyn's root effort = a wrench on the root at P, root frame
            d.external.clear()
            d.add_external_wrench(d.root, tau[:6])
        efforts = dict(zip(d.joint_blocks, tau[n_root:]))
        sig = d.evaluate(0.0, x, efforts)
        assert sig.loop_residual < 1e-12
        a_blocks = diagram_acceleration(model, sig.state_derivative)
        a_sweep = mb.forward_dynamics(model, q, v, tau)
        a_pin = pin.aba(pm, pd, q, v, _with_passive(model, q, v, tau)).copy()
        assert _rel(a_blocks, a_sweep) < 1e-10
        assert _rel(a_blocks, a_pin) < 1e-10


def _passive(model, q, v):
    from satdyn.multibody.joints import passive_efforts

    return passive_efforts(model, q[None], v[None])[0]


def _with_passive(model, q, v, tau):
    # Pinocchio has no joint springs/dampers: add the joint laws to its effort input.
    return tau + _passive(model, q, v)


def test_example_g_assembled_by_hand_matches_the_paper_numbers():
    # Spec §4.5 t = 0 accelerations of example G (also reproduced by satdyn's example_g to 1e-9):
    # the diagram is built block by block as in the paper's Fig. 16, buoyancy fed back from Theta.
    g = np.array([0.0, -9.81, 0.0])
    d = BlockDiagram("G")
    J = np.array([[5.0, 0, 0], [0, 10, -7], [0, -7, 10]])
    d.add("balloon", FloatingBodyBlock(10.0, inertia=J, ports={"C": [0, -2.0, 0]}, gravity=g))
    d.add("slider", PrismaticBlock([1, 0, -1], 1.0, ports={"S": [0, 0, 0]}, gravity=g, stiffness=10, damping=1),
          parent="balloon", port="C")
    d.add("p1", RevoluteBlock([0, 0, 1], 2.0, com=[0, -1.2, 0], ports={"P1": [0, -1.2, 0]}, gravity=g, damping=0.1),
          parent="slider", port="S")
    d.add("p2", RevoluteBlock([0, 0, 1], 3.0, com=[0, -1.6, 0], gravity=g, damping=0.1), parent="p1", port="P1")
    d.add_external_wrench("balloon", lambda t, m: np.r_[dcm_from_euler_sequence(m[15:18]).T @ (-16.0 * g), 0, 0, 0])
    x0 = np.zeros(18)
    x0[13], x0[14] = np.deg2rad(170), np.deg2rad(-170)
    xdot = d.derivative(0.0, x0)
    expected = [-0.3145879951, 0.4666925823, -0.3145879951, 0.7003160157, -0.7458818137, -1.1512932598]
    np.testing.assert_allclose(xdot[:6], expected, atol=1e-9)   # printed to 10 decimals
    np.testing.assert_allclose(xdot[15:], [-2.8009751247, -6.0155746547, 4.7469794862], atol=1e-9)


@pytest.mark.parametrize("seed, n_bodies, floating", [(31, 5, True), (32, 6, False)])
def test_inverse_diagram_matches_rnea_and_round_trips(seed, n_bodies, floating):
    # The loop-free inverse diagram (every block in inverse mode, two passes) against satdyn's
    # inverse_dynamics and Pinocchio's rnea (exact recursions: 1e-10 relative), and spec-style
    # round trip forward(inverse(q_dd)) = q_dd through the diagram's own cut-and-solve.
    rng = np.random.default_rng(seed)
    model, pm, _, _ = random_tree(rng, n_bodies, floating=floating, gravity=[0.4, -9.81, 1.3],
                                  kinds=("revolute", "prismatic", "weld"), damping=True)
    d = assemble_by_hand(model)
    q, v = random_state(rng, model, pm)
    a = rng.normal(size=model.nv)
    x = diagram_state(model, q, v)
    n_root = 6 if floating else 0
    eff = d.inverse_dynamics(0.0, x, a[n_root:], root_acceleration=a[:6] if floating else None)
    tau_blocks = np.concatenate([eff[d.root] if floating else np.zeros(0), [eff[j] for j in d.joint_blocks]])
    tau_sweep = mb.inverse_dynamics(model, q, v, a)
    tau_pin = pin.rnea(pm, pm.createData(), q, v, a).copy() - np.r_[np.zeros(n_root), _passive(model, q, v)[n_root:]]
    assert _rel(tau_blocks, tau_sweep) < 1e-10
    assert _rel(tau_blocks, tau_pin) < 1e-10
    if floating:
        d.add_external_wrench(d.root, eff[d.root])
    back = d.evaluate(0.0, x, {j: eff[j] for j in d.joint_blocks})
    assert _rel(diagram_acceleration(model, back.state_derivative), a) < 1e-10
    with pytest.raises(ValueError, match="accelerations"):
        d.inverse_dynamics(0.0, x, np.zeros(len(d.joint_blocks) + 1))


def test_hybrid_diagram_matches_hybrid_dynamics():
    # Hybrid mode (§3.7): some joints prescribed (inverse-mode blocks), the others and the
    # floating root in forward mode, solved by the diagram's cut-and-solve, against
    # satdyn.multibody.hybrid_dynamics (mass-matrix route, independent code): 1e-10 relative.
    rng = np.random.default_rng(41)
    model, pm, _, _ = random_tree(rng, 6, floating=True, gravity=[0.4, -9.81, 1.3],
                                  kinds=("revolute", "prismatic"), damping=True)
    d = assemble_by_hand(model)
    q, v = random_state(rng, model, pm)
    tau, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    mask = np.ones(model.nv, bool)
    mask[[7, 9]] = False                                  # two joints in inverse mode
    joints = d.joint_blocks
    d.add_external_wrench(d.root, tau[:6])
    sig = d.evaluate(0.0, diagram_state(model, q, v), {j: tau[6 + k] for k, j in enumerate(joints) if mask[6 + k]},
                     prescribed={joints[1]: a[7], joints[3]: a[9]})
    a_ref, tau_ref = mb.hybrid_dynamics(model, q, v, tau, a, mask)
    assert _rel(diagram_acceleration(model, sig.state_derivative), a_ref) < 1e-10
    for k in (1, 3):   # total effort of an inverse-mode block = actuator effort + joint law
        j = joints[k]
        law = d.blocks[j].passive_effort(sig.joints[j][2], sig.joints[j][1])
        assert abs(sig.efforts[j] - law - tau_ref[6 + k]) < 1e-10 * max(1.0, np.abs(tau_ref).max())
    with pytest.raises(ValueError, match="prescribed"):
        d.evaluate(0.0, diagram_state(model, q, v), prescribed={"nobody": 1.0})
