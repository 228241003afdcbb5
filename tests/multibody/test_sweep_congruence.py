"""The frame-aligned revolute congruence of the articulated sweep against the generic 6x6 product.

``aligned_revolute.congruence_axis`` computes ``X^T Ia X`` for a revolute joint about +e_k of its
frame as a 2x2 mixing of rows plus a constant product, twice (the second time on the
transpose). Reference: the same congruence with the full 6x6 ``X`` of
``kinematics.motion_transform_to_child`` from ``joints.joint_placement`` (independent
construction, batch-first ``np.matmul``). Both are a few dozen floating-point
operations on O(1) entries, hence 1e-12 relative.
"""

import numpy as np
import pytest

import satdyn.multibody as mb
from satdyn.multibody import aligned_revolute, sweeps
from satdyn.multibody.joints import joint_placement
from satdyn.multibody.kinematics import motion_transform_to_child
from satdyn.spatial import dcm_from_rotvec


def _arm(rng):
    """Fixed root and four revolute links: axes +x, +y, +z (frame-aligned) with random fixed rotations."""
    b = mb.ModelBuilder(name="aligned")
    b.add_body(mb.body("base", 3.0, inertia=np.diag([1.0, 2.0, 3.0])), mb.fixed_root("base"))
    parent = "base"
    for k, axis in enumerate(([1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], [0, 0, 1.0])):
        rotation = dcm_from_rotvec(rng.normal(size=3)) if k != 3 else None
        b.add_body(mb.body(f"l{k}", 1.0 + k, com=rng.normal(size=3) * 0.1, inertia=np.diag([0.3, 0.2, 0.25])),
                   mb.revolute_joint(f"q{k}", axis, rotation=rotation), parent=parent,
                   position=rng.normal(size=3))
        parent = f"l{k}"
    return b.build()


@pytest.mark.parametrize("n, n_work", [(37, 37), (37, 64)])      # full block, short last block
@pytest.mark.parametrize("constant_factor", [False, True])        # batch-varying Ia, constant (6, 6, 1)
def test_aligned_revolute_congruence_matches_generic(n, n_work, constant_factor):
    rng = np.random.default_rng(11)
    model = _arm(rng)
    consts = sweeps.sweep_constants(model)
    work = sweeps.Workspace(model, n_work)
    checked = 0
    for c in consts:
        if c.mix is None:
            continue
        A = rng.normal(size=(1 if constant_factor else n, 6, 6))
        Ia_first = A + np.swapaxes(A, -1, -2)
        Ia = np.ascontiguousarray(np.moveaxis(Ia_first, 0, -1))        # batch-last (6, 6, N or 1)
        theta = rng.uniform(-np.pi, np.pi, n)
        R, p = joint_placement(c.joint, theta[:, None])
        X = motion_transform_to_child(R, p)
        expected = np.swapaxes(X, -1, -2) @ Ia_first @ X
        got = aligned_revolute.congruence_axis(Ia.copy(), np.cos(theta), np.sin(theta), c, work, n)
        np.testing.assert_allclose(np.moveaxis(got, -1, 0), expected, rtol=0, atol=1e-12 * np.abs(expected).max())
        checked += 1
    assert checked == 4


def test_scratch_inertia_is_mixed_in_place():
    """When ``Ia`` is the workspace block of this body it is overwritten, and the result still matches."""
    rng = np.random.default_rng(12)
    model = _arm(rng)
    c = sweeps.sweep_constants(model)[2]
    n = 50
    work = sweeps.Workspace(model, n)
    Ia = work.block("Ia", n)
    A = rng.normal(size=(6, 6, n))
    Ia[...] = A + np.swapaxes(A, 0, 1)
    Ia_first = np.moveaxis(Ia, -1, 0).copy()
    theta = rng.uniform(-np.pi, np.pi, n)
    X = motion_transform_to_child(*joint_placement(c.joint, theta[:, None]))
    got = aligned_revolute.congruence_axis(Ia, np.cos(theta), np.sin(theta), c, work, n)
    expected = np.swapaxes(X, -1, -2) @ Ia_first @ X
    np.testing.assert_allclose(np.moveaxis(got, -1, 0), expected, rtol=0, atol=1e-12 * np.abs(expected).max())
    assert work.owns(Ia, "Ia", n)


@pytest.mark.parametrize("floating", [False, True])
def test_aligned_revolute_chain_matches_pinocchio(floating):
    """Whole sweeps on a chain of frame-aligned revolute joints, with and without a fixed rotation P0
    (identity P0 skips a product: both branches), against Pinocchio (independent implementation;
    1e-9 relative as the other oracle tests)."""
    import pinocchio as pin

    rng = np.random.default_rng(13)
    b = mb.ModelBuilder(name="aligned_chain", gravity=[0.0, 0.0, -9.81])
    pm = pin.Model()
    pm.gravity = pin.Motion(np.array([0.0, 0.0, -9.81]), np.zeros(3))
    J0 = np.diag([4.0, 3.0, 2.0])
    if floating:
        b.add_body(mb.body("base", 20.0, inertia=J0), mb.floating_root("base"))
        jid = pm.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "base")
        pm.appendBodyToJoint(jid, pin.Inertia(20.0, np.zeros(3), J0), pin.SE3.Identity())
    else:
        b.add_body(mb.body("base", 20.0, inertia=J0), mb.fixed_root("base"))
        jid = 0
    parent = "base"
    for k in range(6):
        axis = np.eye(3)[k % 3]
        rotation = np.eye(3) if k % 2 == 0 else dcm_from_rotvec(rng.normal(size=3))
        position = rng.normal(size=3) * 0.5
        mass, com = 1.0 + k, rng.normal(size=3) * 0.2
        A = rng.normal(size=(3, 3))
        J = A @ A.T + 0.1 * np.eye(3)
        b.add_body(mb.body(f"l{k}", mass, com=com, inertia=J), mb.revolute_joint(f"q{k}", axis, rotation=rotation),
                   parent=parent, position=position)
        jid = pm.addJoint(jid, pin.JointModelRevoluteUnaligned(axis), pin.SE3(rotation, position), f"q{k}")
        pm.appendBodyToJoint(jid, pin.Inertia(mass, com, J), pin.SE3.Identity())
        parent = f"l{k}"
    model = b.build()
    assert sum(c.mix is not None for c in sweeps.sweep_constants(model)) == 6
    pd = pm.createData()
    n = 40
    q = np.array([pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq)) for _ in range(n)])
    v = rng.normal(size=(n, model.nv))
    tau = rng.normal(size=(n, model.nv)) * 5
    a = mb.forward_dynamics(model, q, v, tau)
    t = mb.inverse_dynamics(model, q, v, a)
    for k in range(n):
        ref = pin.aba(pm, pd, q[k], v[k], tau[k]).copy()
        assert np.abs(a[k] - ref).max() / max(1.0, np.abs(ref).max()) < 1e-9
        ref_t = pin.rnea(pm, pd, q[k], v[k], a[k]).copy()
        assert np.abs(t[k] - ref_t).max() / max(1.0, np.abs(ref_t).max()) < 1e-9


@pytest.mark.parametrize("index", range(6))
def test_unit_cross_support_holds_every_nonzero(index):
    """``_unit_cross_support`` (used to skip columns of a matrix-vector product) against the explicit
    ``_cross_unit`` on random velocities: outside the support the product is exactly zero."""
    rng = np.random.default_rng(14)
    v = rng.normal(size=(6, 9))
    out = sweeps._cross_unit(v, index, rng.normal(size=9))
    outside = np.setdiff1d(np.arange(6), sweeps._unit_cross_support(index))
    assert np.all(out[outside] == 0.0)
    assert np.all(out[list(sweeps._unit_cross_support(index))] != 0.0)
