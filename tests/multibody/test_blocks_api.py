"""The public causal blocks (arXiv:2505.03248 §2–3): signals, forward/inverse modes, loop closure, bad input."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import satdyn.multibody as mb
from satdyn.multibody.blocks import (
    FloatingBodyBlock, GroundBlock, LoopClosureBlock, PrismaticBlock, RevoluteBlock, WeldBlock,
)
from satdyn.multibody.diagram import BlockDiagram
from satdyn.multibody.signals import MotionVector, Wrench

from .test_p004_assembly import assemble_by_hand, diagram_acceleration

G = np.array([0.3, -9.81, 0.7])


def _spd(rng):
    A = rng.normal(size=(3, 3))
    return A @ A.T + 0.2 * np.eye(3)


def _parent_motion(rng):
    m = rng.normal(size=18)
    m[16] = rng.uniform(-1.2, 1.2)   # keep the 3-2-1 pitch away from gimbal lock
    return m


def test_transport_preserves_power_and_composes():
    # Spec §8 test 1: W_P . x'_P = W_C . x'_C for a wrench and a twist transported to the
    # same point (the rigid-body power is point-independent); transports compose. Exact
    # algebra: round-off only (1e-12 on unit-size data).
    rng = np.random.default_rng(0)
    m = MotionVector.from_array(rng.normal(size=18), frame="a", point="P")
    W = Wrench.from_array(rng.normal(size=6), frame="a", point="P")
    r = rng.normal(size=3)
    mC, WC = m.transported(r, "C"), W.transported(r, "C")
    assert abs(W.power(m) - WC.power(mC)) < 1e-12
    r2 = rng.normal(size=3)
    np.testing.assert_allclose(np.asarray(mC.transported(r2, "D")), np.asarray(m.transported(r + r2, "D")), atol=1e-12)
    # v_C = v_P + omega x PC, position IC = IP + PC (the definition of eq. 32)
    np.testing.assert_allclose(mC.twist[:3], m.twist[:3] + np.cross(m.twist[3:], r), atol=1e-12)
    np.testing.assert_allclose(mC.position, m.position + r, atol=1e-12)
    with pytest.raises(ValueError, match="motion"):
        W.power(m.transported(r, "C"))


@pytest.mark.parametrize("kind", ["revolute", "prismatic"])
def test_forward_and_inverse_modes_are_inverse_of_each_other(kind):
    # Spec §8 test 5: inverse(forward(C_m)) = C_m and forward(inverse(q_dd)) = q_dd, and both
    # modes emit the same wrench and child motions. Same equations solved for different
    # unknowns: round-off only (1e-12 relative on efforts of order 10-100).
    rng = np.random.default_rng(1 if kind == "revolute" else 2)
    cls = RevoluteBlock if kind == "revolute" else PrismaticBlock
    blk = cls(rng.normal(size=3), 2.0, com=rng.normal(size=3), inertia=_spd(rng), ports={"C": rng.normal(size=3)},
              gravity=G, rotation=Rotation.random(random_state=3).as_matrix(), stiffness=4.0, damping=0.5)
    m_in = _parent_motion(rng)
    Wc = {"C": rng.normal(size=6) * 5}
    q, qd, effort = 0.7, -1.3, 3.0
    fwd = blk.forward(q, qd, m_in, Wc, effort)
    inv = blk.inverse(q, qd, fwd.joint[0], m_in, Wc)
    assert abs(inv.effort - fwd.effort) < 1e-12 * max(1.0, abs(fwd.effort))
    assert abs(fwd.effort - (effort + blk.passive_effort(q, qd))) < 1e-12
    np.testing.assert_allclose(inv.wrench_to_parent, fwd.wrench_to_parent, atol=1e-10)
    np.testing.assert_allclose(inv.motion["C"], fwd.motion["C"], atol=1e-12)
    again = blk.forward(q, qd, m_in, Wc, inv.effort - blk.passive_effort(q, qd))
    assert abs(again.joint[0] - fwd.joint[0]) < 1e-10


def test_floating_body_inverse_recovers_the_wrench():
    # Fig. 1 (inverse) and Fig. 2 (forward) of the same body are inverse maps.
    rng = np.random.default_rng(4)
    blk = FloatingBodyBlock(3.0, com=rng.normal(size=3), inertia=_spd(rng), ports={"C": [1.0, 0, 0]}, gravity=G)
    x = rng.normal(size=12)
    W = {"P": rng.normal(size=6), "C": rng.normal(size=6)}
    out = blk.forward(x, W)
    np.testing.assert_allclose(blk.inverse(out.motion["P"], {"C": W["C"]}), W["P"], atol=1e-11)


def test_weld_is_kinematic_downwards():
    # For a weld the child-port motion does not depend on the child-port wrench (§3.1 note).
    rng = np.random.default_rng(5)
    blk = WeldBlock(1.5, com=[0.1, 0, 0], inertia=np.eye(3), ports={"C": [0, 1.0, 0]}, gravity=G)
    m = _parent_motion(rng)
    a = blk.evaluate(m, {"C": np.zeros(6)})
    b = blk.evaluate(m, {"C": rng.normal(size=6)})
    np.testing.assert_array_equal(a.motion["C"], b.motion["C"])
    assert not np.allclose(a.wrench_to_parent, b.wrench_to_parent)


def test_loop_closure_block_matches_the_model_closure():
    # The diagram's closure block (a 6x6 spring-damper with log-map attitude error, both
    # closure frames rotated) against satdyn.multibody's LoopClosure inside the O(n) sweep:
    # independent code for the same penalty law, exact in float64 -> 1e-10 relative.
    rng = np.random.default_rng(6)
    K = np.diag([3e3, 2e3, 4e3, 50.0, 60.0, 70.0])
    D = np.diag([20.0, 30.0, 25.0, 1.0, 2.0, 1.5])
    Ra, Rb = Rotation.random(2, random_state=7).as_matrix()
    b = mb.ModelBuilder(gravity=[0, -9.81, 0])

    def rod(n, tip):
        return mb.body(n, 1.0, com=[0.5, 0, 0], inertia=np.diag([0.01, 0.1, 0.1]), ports={tip: [1.0, 0, 0]})

    b.add_body(mb.body("ground", 1.0, ports={"O": [0, 0, 0], "G": [1.5, 0, 0]}), mb.fixed_root())
    b.add_body(rod("crank", "A"), mb.revolute_joint("th1", [0, 0, 1]), parent="ground", port="O")
    b.add_body(rod("coupler", "C"), mb.revolute_joint("th2", [0, 1, 1]), parent="crank", port="A")
    b.add_body(rod("rocker", "R"), mb.revolute_joint("th3", [0, 0, 1]), parent="ground", port="G")
    b.add_loop_closure("tip", "coupler", "rocker", stiffness=K, damping=D, port_a="C", port_b="R",
                       rotation_a=Ra, rotation_b=Rb)
    model = b.build()
    d = assemble_by_hand(model)
    d.add_loop_closure("tip", LoopClosureBlock(K, D, rotation_a=Ra, rotation_b=Rb), ("coupler", "C"), ("rocker", "R"))
    for _ in range(3):
        q, v = rng.normal(size=3), rng.normal(size=3)
        sig = d.evaluate(0.0, np.r_[q, v])
        a_ref = mb.forward_dynamics(model, q, v)
        a = diagram_acceleration(model, sig.state_derivative)
        assert np.abs(a - a_ref).max() < 1e-10 * max(1.0, np.abs(a_ref).max())
        # the closure's potential is part of the model's mechanical energy
        blk, pa, pb = d.closures["tip"]
        assert blk.potential_energy(sig.motion[pa], sig.motion[pb]) > 0


def test_ground_motion_and_diagram_outputs():
    R = Rotation.random(random_state=9).as_matrix()
    ground = GroundBlock(position=[1.0, 2.0, 3.0], rotation=R, ports={"O": [0.5, 0, 0]})
    m = ground.forward().motion["O"]
    np.testing.assert_allclose(R @ m[12:15], [1.0, 2.0, 3.0] + R @ [0.5, 0, 0], atol=1e-12)
    assert not m[:12].any()
    d = BlockDiagram()
    d.add("g", ground)
    d.add("pend", RevoluteBlock([0, 0, 1], 1.0, com=[0, -1.0, 0], gravity=[0, -9.81, 0]), parent="g", port="O")
    assert d.state_names == ["pend.q", "pend.qd"]
    sim = d.simulate((0.0, 0.2), [0.1, 0.0], rtol=1e-9, atol=1e-9)
    assert sim.state("pend.q").shape == sim.t.shape


@pytest.mark.parametrize("make, name", [
    (lambda: FloatingBodyBlock(0.0, inertia=np.eye(3)), "mass"),
    (lambda: FloatingBodyBlock(-1.0), "mass"),
    (lambda: RevoluteBlock([0, 0, 0], 1.0), "axis"),
    (lambda: RevoluteBlock([0, 0, 1], 1.0, rotation=2 * np.eye(3)), "rotation"),
    (lambda: PrismaticBlock([1, 0, 0], 1.0, stiffness=-1.0), "stiffness"),
    (lambda: WeldBlock(1.0, ports={"P": [0, 0, 0]}), "ports"),
    (lambda: WeldBlock(1.0, ports=[1, 2]), "ports"),
    (lambda: WeldBlock(0.0, inertia=np.eye(3)), "inertia"),
    (lambda: LoopClosureBlock(np.eye(5), np.eye(6)), "stiffness"),
    (lambda: FloatingBodyBlock(1.0, inertia=np.eye(3), sequence="ABC"), "sequence"),
    (lambda: RevoluteBlock([0, 0, 1], 1.0).forward(0.0, 0.0, np.zeros(17)), "parent_motion"),
    (lambda: WeldBlock(1.0).evaluate(np.zeros(18), {"X": np.zeros(6)}), "port_wrenches"),
    (lambda: RevoluteBlock([0, 0, 1], 0.0).forward(0.0, 0.0, np.zeros(18)), "apparent inertia"),
])
def test_bad_block_input(make, name):
    with pytest.raises((ValueError, TypeError), match=name):
        make()


def _small_diagram():
    d = BlockDiagram()
    d.add("g", GroundBlock(ports={"O": [0, 0, 0]}))
    d.add("a", RevoluteBlock([0, 0, 1], 1.0, com=[1, 0, 0]), parent="g", port="O")
    return d


@pytest.mark.parametrize("call, name", [
    (lambda d: d.add("a", WeldBlock(1.0), parent="g"), "name"),
    (lambda d: d.add("b", WeldBlock(1.0), parent="nobody"), "parent"),
    (lambda d: d.add("b", WeldBlock(1.0), parent="g", port="X"), "port"),
    (lambda d: d.add("b", GroundBlock(), parent="g"), "block"),
    (lambda d: d.add_external_wrench("a", np.zeros(5)), "wrench"),
    (lambda d: d.add_external_wrench("zz", np.zeros(6)), "block"),
    (lambda d: d.add_loop_closure("L", object(), ("a", "P"), ("g", "O")), "block"),
    (lambda d: d.add_loop_closure("L", LoopClosureBlock(np.eye(6), np.eye(6)), ("a", "Q"), ("g", "O")), "a"),
    (lambda d: d.evaluate(0.0, np.zeros(3)), "x"),
    (lambda d: d.evaluate(0.0, np.zeros(2), {"zz": 1.0}), "efforts"),
    (lambda d: d.simulate((0, 1), np.zeros(5)), "x0"),
])
def test_bad_diagram_input(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call(_small_diagram())


def test_first_block_must_be_a_root():
    with pytest.raises(ValueError, match="block"):
        BlockDiagram().add("a", WeldBlock(1.0))


def test_docstring_examples_run():
    # The BlockDiagram example (a pendulum at 90 deg: theta_dd = -g/l exactly) is executed.
    import doctest

    import satdyn.multibody.diagram as diagram

    result = doctest.testmod(diagram)
    assert result.attempted > 0 and result.failed == 0
