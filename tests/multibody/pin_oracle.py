"""Test helpers: random trees built identically in satdyn and Pinocchio (the oracle).

Pinocchio has no weld joint: a welded body's inertia is appended to its parent's joint
with the composed placement, and its children attach with that placement too.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from scipy.spatial.transform import Rotation

from satdyn.multibody.joints import (
    fixed_root, floating_root, prismatic_joint, revolute_joint, spherical_joint, weld_joint,
)
from satdyn.multibody.model import ModelBuilder, body


def random_rotation(rng):
    return Rotation.random(random_state=rng).as_matrix()


def random_tree(rng, n_bodies, *, floating, gravity=None, kinds=("revolute", "prismatic", "spherical", "weld"),
                point_mass_probability=0.2, damping=False, aligned_axes=False):
    """A random satdyn Model and the same tree as a Pinocchio model."""
    b = ModelBuilder(gravity=gravity)
    pm = pin.Model()
    pm.gravity = pin.Motion(np.zeros(3) if gravity is None else np.asarray(gravity, float), np.zeros(3))
    pin_joint, placement, parents = [], [], [-1]   # per satdyn body: Pinocchio joint id, body frame in that joint frame
    for i in range(n_bodies):
        mass = rng.uniform(0.5, 5.0)
        com = rng.normal(size=3) * 0.3
        kind = kinds[int(rng.integers(0, len(kinds)))]
        # Point masses only behind 1-DOF joints (a spherical joint or a floating root needs an
        # invertible rotational inertia, seed 004 §3.8).
        if rng.uniform() < point_mass_probability and i > 0 and kind in ("revolute", "prismatic", "weld"):
            inertia = np.zeros((3, 3))
        else:
            A = rng.normal(size=(3, 3))
            inertia = A @ A.T + 0.1 * np.eye(3)
        bd = body(f"b{i}", mass, com=com, inertia=inertia)
        Y = pin.Inertia(mass, com, inertia)
        if i == 0:
            if floating:
                b.add_body(bd, floating_root("root"))
                jid = pm.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "root")
                pin_joint.append(jid)
                placement.append(pin.SE3.Identity())
            else:
                R0, p0 = random_rotation(rng), rng.normal(size=3)
                b.add_body(bd, fixed_root("root", rotation=R0, position=p0))
                pin_joint.append(0)
                placement.append(pin.SE3(R0, p0))
            pm.appendBodyToJoint(pin_joint[-1], Y, placement[-1])
            continue
        # Depth-first numbering (as URDF / Pinocchio require): the parent is the last body or one
        # of its ancestors, so that every subtree occupies contiguous indices.
        chain = [i - 1]
        while parents[chain[-1]] >= 0:
            chain.append(parents[chain[-1]])
        parent = chain[int(rng.integers(0, len(chain)))]
        parents.append(parent)
        R0, p0 = random_rotation(rng), rng.normal(size=3) * 0.5
        axis = rng.normal(size=3)
        if aligned_axes:  # +x, +y or +z: exercises the selection fast path of the articulated sweep
            axis = np.eye(3)[int(rng.integers(0, 3))]
        k_d = (dict(damping=rng.uniform(0, 1), stiffness=rng.uniform(0, 5))
               if damping and kind in ("revolute", "prismatic") else {})
        if kind == "revolute":
            joint = revolute_joint(f"j{i}", axis, rotation=R0, **k_d)
            jm = pin.JointModelRevoluteUnaligned(axis / np.linalg.norm(axis))
        elif kind == "prismatic":
            joint = prismatic_joint(f"j{i}", axis, rotation=R0, **k_d)
            jm = pin.JointModelPrismaticUnaligned(axis / np.linalg.norm(axis))
        elif kind == "spherical":
            joint = spherical_joint(f"j{i}", rotation=R0)
            jm = pin.JointModelSpherical()
        else:
            joint = weld_joint(f"j{i}", rotation=R0)
            jm = None
        b.add_body(bd, joint, parent=f"b{parent}", position=p0)
        here = placement[parent] * pin.SE3(R0, p0)
        if jm is None:
            pin_joint.append(pin_joint[parent])
            placement.append(here)
        else:
            jid = pm.addJoint(pin_joint[parent], jm, here, f"j{i}")
            pin_joint.append(jid)
            placement.append(pin.SE3.Identity())
        pm.appendBodyToJoint(pin_joint[-1], Y, placement[-1])
    return b.build(), pm, pin_joint, placement


def random_state(rng, model, pm):
    q = pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq)) if pm.nq else np.zeros(0)
    q = np.array(q)
    # randomConfiguration draws free-flyer positions within the bounds; fine
    v = rng.normal(size=model.nv)
    return q, v


def pin_fext(pm, pin_joint, placement, fext):
    """Per-body wrenches (body origin, body frame) to Pinocchio's per-joint LOCAL fext."""
    out = [pin.Force.Zero() for _ in range(pm.njoints)]
    for i, f in enumerate(fext):
        out[pin_joint[i]] += placement[i].act(pin.Force(f[:3], f[3:]))
    return out
