"""Step 3 of arXiv:2109.00407: the linear assembly into one dynamic LFR.

* **Option B** (inverse mode, default): the recursion of :mod:`.recurrence` gives
  ``dT = M dq'' + K dq`` as static LFRs; then
  ``dq'' = M^-1 (dT - (K + Kp) dq - Kd dq')`` (LFR inversion of ``M``, well posed because
  ``M`` is SPD at the nominal) closed with ``2n`` integrators.
* **Option A** (block diagram): one static LFR block per joint and per body (the same
  equations, sections 3.2 and 3.4; the zero-field part of each joint is
  :func:`satdyn.titop.actuated_revolute_joint` in "angle" causality, to which the
  acceleration-field and trim-wrench terms of :mod:`.joint` are added), connected by
  signal names with :func:`satdyn.lfr.interconnect`; the joint torque balances are kept implicit
  (residual outputs, ``J_r = 0`` allowed) and solved for the joint accelerations by
  partial channel inversion (:func:`satdyn.lfr.invert_channels`, SDTlib's ``invio``).

Both give the plant with inputs ``T_<joint>`` [N m] and outputs ``theta_<joint>`` [rad],
``dtheta_<joint>`` [rad/s] (states ``[dtheta; dtheta']``), plus the static LFRs of the
trim torques ``Tbar`` [N m], the mass matrix and the stiffness. Option B also covers a free
base (12 more states, its control wrench as 6 more inputs, its trim wrench as a static LFR),
external trim wrenches and optional pose outputs (see :func:`signal_names`).

Arguments used below
--------------------
tree : EquilibriumTree          bodies, joints (angles may be ``vreal`` parameters), field
option : {"A", "B"}
values : dict                   physical parameter values (numeric route)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._algebra import LFRAlgebra, NumericAlgebra
from .blocks import body_block, joint_block
from .base import BASE_AXES
from .recurrence import (EquilibriumTree, Trim, backward_recurrence, forward_recurrence, linear_inverse_dynamics,
                         port_offset, pose_maps)

__all__ = ["EquilibriumLFR", "EquilibriumLinearisation", "equilibrium_lfr", "equilibrium_linearisation",
           "signal_names"]


def _pose_points(tree: EquilibriumTree, pose_outputs) -> list[tuple[str, object, str]]:
    """Validated ``[(body, point, label)]`` of the ``pose_outputs`` argument."""
    entries = [pose_outputs] if isinstance(pose_outputs, str) else list(pose_outputs or ())
    points = []
    for i, entry in enumerate(entries):
        if isinstance(entry, str):
            body, point = entry, None
        elif isinstance(entry, (tuple, list)) and len(entry) == 2:
            body, point = entry
        else:
            body, point = None, None
        if body not in tree.body:
            raise ValueError(f"pose_outputs[{i}] must be a body name or (body, point) of the tree "
                             f"(bodies: {sorted(tree.body)}), got {entry!r}")
        if point is not None and not isinstance(point, str):
            p = np.asarray(point, dtype=float)
            if p.shape != (3,) or not np.all(np.isfinite(p)):
                raise ValueError(f"pose_outputs[{i}]: the point must be None, a port name or 3 numbers [m], "
                                 f"got {point!r}")
            point = p
        elif isinstance(point, str) and point not in tree.body[body].ports:
            raise ValueError(f"pose_outputs[{i}]: body {body!r} has no port {point!r} "
                             f"(ports: {sorted(tree.body[body].ports)})")
        label = body if point is None else f"{body}_{point}" if isinstance(point, str) else f"{body}_point{i}"
        points.append((body, point, label))
    return points


def signal_names(tree: EquilibriumTree, pose_points=(), pose_rates: bool = False) -> dict[str, tuple[str, ...]]:
    """Signal names: ``inputs`` (base ``Fx_<base> .. Mz_<base>``, then ``T_<joint>``), ``outputs``
    (coordinates ``px_<base> .. phiz_<base>``, ``theta_<joint>``; their rates ``vx_<base> ..
    wz_<base>``, ``dtheta_<joint>``; then the pose outputs ``px_<point> .. phiz_<point>`` and,
    with ``pose_rates``, ``vx_<point> .. wz_<point>``), ``torques`` (``Tbar_<joint>``),
    ``base_wrench`` (``Wbar_Fx_<base> ..``) and ``positions`` (``Ox_<point> ..``)."""
    names = [j.name for j in tree.joints]

    def six(first, second, label):
        return tuple(f"{first}{a}_{label}" for a in BASE_AXES) + tuple(f"{second}{a}_{label}" for a in BASE_AXES)

    base = tree.base.body if tree.base is not None else None
    inputs = (six("F", "M", base) if base else ()) + tuple(f"T_{n}" for n in names)
    outputs = ((six("p", "phi", base) if base else ()) + tuple(f"theta_{n}" for n in names)
               + (six("v", "w", base) if base else ()) + tuple(f"dtheta_{n}" for n in names))
    labels = [p[2] for p in pose_points]
    outputs += sum((six("p", "phi", lab) for lab in labels), ())
    if pose_rates:
        outputs += sum((six("v", "w", lab) for lab in labels), ())
    if len(set(outputs)) != len(outputs):
        raise ValueError("pose_outputs repeat a point or the free base's own port P (already a state output)")
    return {"inputs": inputs, "outputs": outputs,
            "torques": tuple(f"Tbar_{n}" for n in names),
            "base_wrench": tuple(f"Wbar_{x}" for x in six("F", "M", base)) if base else (),
            "positions": tuple(f"O{a}_{lab}" for lab in labels for a in BASE_AXES)}


@dataclass(frozen=True)
class EquilibriumLFR:
    """The LFT model around the parameter-dependent equilibrium.

    Attributes
    ----------
    plant : satdyn.lfr.LFR
        Dynamic, ``2N`` states ``[dq; dq']`` (``q`` = the free base's ``(dp, dphi)`` if any, then
        the joint angles); inputs ``T_<joint>`` (after the base's ``Fx_<base> .. Mz_<base>``),
        outputs the states then the pose outputs (see :func:`signal_names`).
    static_torques : satdyn.lfr.LFR
        Static (n, 1) map of a unit input: ``Tbar = static_torques.evaluate(values)[:, 0]`` [N m]
        (outputs ``Tbar_<joint>``).
    mass_matrix, stiffness : satdyn.lfr.LFR
        (N, N) static: ``M`` and ``K_g + Kp`` (option B; None for option A).
    option : str
    base_wrench : satdyn.lfr.LFR or None
        Static (6, 1): the free base's trim control wrench ``Wbar_u`` at P, body frame [N, N m]
        (zero when the external wrenches balance the tree; None without a free base).
    positions : satdyn.lfr.LFR or None
        Static (3 p, 1): equilibrium position ``[OX]_b`` of each pose-output point X from the
        ground origin O, in its body's frame [m] (None without pose outputs).
    """

    plant: object
    static_torques: object
    mass_matrix: object
    stiffness: object
    option: str
    base_wrench: object = None
    positions: object = None

    def to_dict(self) -> dict:
        return {"option": self.option, "nstates": self.plant.nstates, "ndelta": self.plant.ndelta,
                "blocks": {b.parameter.name: b.size for b in self.plant.blocks},
                "inputs": list(self.plant.input_names), "outputs": list(self.plant.output_names)}


@dataclass(frozen=True)
class EquilibriumLinearisation:
    """Numeric model at one parameter point (same algorithm, numbers instead of LFRs).

    Attributes
    ----------
    mass_matrix (N, N), stiffness (N, N) (gravity, trim and external wrenches, springs),
    damping (N, N), static_torques (n,) [N m], A (2N, 2N), B (2N, N), C (2N + 6p(1 + rates), 2N),
    D (.., N) with the outputs of :func:`signal_names`; base_wrench (6,) or None [N, N m];
    positions (3p,) or None [m].
    """

    mass_matrix: np.ndarray
    stiffness: np.ndarray
    damping: np.ndarray
    static_torques: np.ndarray
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    base_wrench: np.ndarray = None
    positions: np.ndarray = None


def _joint_diag(alg, tree, key):
    """Diagonal of the joints' ``key`` (stiffness, damping), zeros for a free base's 6 coordinates."""
    entries = [0.0] * (tree.ndof - len(tree.joints)) + [getattr(j, key) for j in tree.joints]
    if not alg.symbolic or not any(hasattr(e, "name") for e in entries):
        return np.diag([float(np.asarray(NumericAlgebra(getattr(alg, "values", {})).lift(e)).reshape(()))
                        for e in entries])
    return alg.blockdiag([alg.lift(e) if hasattr(e, "name") else np.array([[float(e)]]) for e in entries])


def _check_tree(tree):
    if not isinstance(tree, EquilibriumTree):
        raise TypeError(f"tree must be an EquilibriumTree, got {type(tree).__name__}")
    if not tree.ndof:
        raise ValueError("tree has no revolute joint and no free base: nothing to linearise")


def _positions(alg, tree, trim, points):
    """``[OX]_b = [OP]_b + [PX]_b`` (3p, 1) of the pose points (E003-8: ``+PX``, not ``+XP``)."""
    return alg.vstack([trim.position[body] + port_offset(alg, tree, body, point)[0] for body, point, _ in points])


def equilibrium_linearisation(tree: EquilibriumTree, values: dict | None = None, *, pose_outputs=(),
                              pose_rates: bool = False) -> EquilibriumLinearisation:
    """Numeric option-B model at the parameter point ``values`` (physical; nominal if missing).

    ``pose_outputs`` and ``pose_rates`` as in :func:`equilibrium_lfr`.
    """
    _check_tree(tree)
    points = _pose_points(tree, pose_outputs)
    signal_names(tree, points, pose_rates)  # rejects repeated outputs
    alg = NumericAlgebra(values)
    trim = backward_recurrence(alg, tree, forward_recurrence(alg, tree, positions=bool(points)))
    M, Kg = linear_inverse_dynamics(alg, tree, trim)
    Kp, Kd = _joint_diag(alg, tree, "stiffness"), _joint_diag(alg, tree, "damping")
    K = Kg + Kp
    n = M.shape[0]
    Minv = np.linalg.inv(M)
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-Minv @ K, -Minv @ Kd]])
    B = np.vstack([np.zeros((n, n)), Minv])
    Tbar = np.array([float(trim.static_torque[j.name].reshape(())) for j in tree.joints])
    C = np.vstack([np.eye(2 * n)] + _pose_rows(alg, tree, trim, points, pose_rates))
    return EquilibriumLinearisation(
        mass_matrix=M, stiffness=K, damping=Kd, static_torques=Tbar, A=A, B=B, C=C, D=np.zeros((C.shape[0], n)),
        base_wrench=None if trim.base_wrench is None else trim.base_wrench[:, 0],
        positions=_positions(alg, tree, trim, points)[:, 0] if points else None)


def _pose_rows(alg, tree, trim, points, pose_rates):
    """Output rows on the state ``[dq; dq']``: poses ``[X, 0]`` then, with rates, ``[0, X]``."""
    if not points:
        return []
    maps = pose_maps(alg, tree, trim, [(b, p) for b, p, _ in points])
    zero = np.zeros((6, tree.ndof))
    rows = [alg.hstack([X, zero]) for X in maps]
    if pose_rates:  # dp' = dv and dphi' = domega exactly to first order (E003-5: no frozen-velocity term)
        rows += [alg.hstack([zero, X]) for X in maps]
    return rows


def _close_integrators(alg, tree, accel_map, pose_rows=(), names=None):
    """Plant from ``dq'' = accel_map [dq; dq'; dF]`` (static LFR N x 3N) and 2N integrators."""
    from .. import lfr

    n = tree.ndof
    top = np.hstack([np.zeros((n, n)), np.eye(n), np.zeros((n, n))])
    out = [np.hstack([np.eye(2 * n), np.zeros((2 * n, n))])]
    out += [alg.hstack([r, np.zeros((6, n))]) for r in pose_rows]
    S = lfr.vstack([top, accel_map] + out)
    names = names or signal_names(tree)
    plant = lfr.lft(S, lfr.integrator(2 * n), upper=True)
    # Not reduced again: the Delta of accel_map is already reduced, and a reduction of the
    # plant could change the state coordinates, which must stay [dq; dq'].
    return plant.rename(inputs=list(names["inputs"]), outputs=list(names["outputs"]))


def _option_b(alg, tree, trim, pose_rows, names):
    M, Kg = linear_inverse_dynamics(alg, tree, trim)
    n = tree.ndof
    K = alg.simplify(Kg + _joint_diag(alg, tree, "stiffness"))
    Kd = _joint_diag(alg, tree, "damping")
    from .. import lfr

    Minv = lfr.as_lfr(M).inv()
    accel = alg.simplify(Minv @ lfr.hstack([-K, -Kd, np.eye(n)]))
    return _close_integrators(alg, tree, accel, pose_rows, names), M, K


# ----------------------------------------------------------------------------- option A
def _option_a(alg, tree, trim):
    from .. import lfr

    blocks = [joint_block(alg, c, trim) for c in tree.connections]
    blocks += [body_block(alg, b, [c for c in tree.connections if c.parent == b.name], trim.mass_matrix[b.name])
               for b in tree.bodies]
    names = [j.name for j in tree.joints]
    ext_in = ([f"ddtheta_{n}" for n in names] + [f"theta_{n}" for n in names]
              + [f"dtheta_{n}" for n in names] + [f"T_{n}" for n in names])
    residual_map = lfr.interconnect(blocks, inputs=ext_in, outputs=[f"res_{n}" for n in names])
    solved = lfr.invert_channels(residual_map, [f"ddtheta_{n}" for n in names], [f"res_{n}" for n in names])
    # The residuals (now inputs) are zero: keep the joint variables and torques.
    accel = solved[:, [f"theta_{n}" for n in names] + [f"dtheta_{n}" for n in names] + [f"T_{n}" for n in names]]
    return _close_integrators(alg, tree, alg.simplify(accel))


def equilibrium_lfr(tree: EquilibriumTree, option: str = "B", *, tolerance: float = 1e-10, pose_outputs=(),
                    pose_rates: bool = False) -> EquilibriumLFR:
    """One LFT model covering every equilibrium angle and parameter of ``tree``.

    Parameters
    ----------
    tree : EquilibriumTree
        Joint angles given as ``satdyn.lfr.vreal`` parameters (transform ``"tan_half"`` or
        ``"tan_quarter"``) become scheduling parameters; body entries given as parameters
        are kept symbolic. A free base adds 12 states, 6 inputs and its trim wrench.
    option : {"B", "A"}
        Assembly route (see module docstring); both give the same transfer. Option A covers
        ground-based trees without external wrenches or pose outputs.
    tolerance : float
        Relative rank tolerance of the order reductions applied after every step.
    pose_outputs : sequence of str or (str, point)
        Optional pose outputs ``[dp; dphi]`` (6 each, body frame) of body points: a body name
        (its port P) or ``(body, point)`` with ``point`` a port name or 3 numbers from P [m].
    pose_rates : bool
        Also output the points' velocities ``[dv; domega]`` (6 each, body frame).

    Returns
    -------
    EquilibriumLFR
    """
    if option not in ("A", "B"):
        raise ValueError(f"option must be 'A' or 'B', got {option!r}")
    _check_tree(tree)
    points = _pose_points(tree, pose_outputs)
    if option == "A" and (tree.base is not None or tree.external_wrenches or points):
        raise ValueError("option 'A' covers ground-based trees without external wrenches or pose outputs; "
                         "use option='B' (the default)")
    from .. import lfr

    alg = LFRAlgebra(tolerance)
    trim: Trim = backward_recurrence(alg, tree, forward_recurrence(alg, tree, positions=bool(points)))
    names = signal_names(tree, points, pose_rates)
    torques = None
    if tree.joints:
        torques = lfr.as_lfr(alg.simplify(alg.vstack([trim.static_torque[j.name] for j in tree.joints])))
        torques = torques.rename(outputs=list(names["torques"]))
    if option == "A":
        return EquilibriumLFR(plant=_option_a(alg, tree, trim), static_torques=torques, mass_matrix=None,
                              stiffness=None, option="A")
    base_wrench = positions = None
    if tree.base is not None:
        base_wrench = lfr.as_lfr(trim.base_wrench).rename(outputs=list(names["base_wrench"]))
    if points:
        positions = lfr.as_lfr(alg.simplify(_positions(alg, tree, trim, points)))
        positions = positions.rename(outputs=list(names["positions"]))
    pose_rows = _pose_rows(alg, tree, trim, points, pose_rates)
    plant, M, K = _option_b(alg, tree, trim, pose_rows, names)
    return EquilibriumLFR(plant=plant, static_torques=torques, mass_matrix=lfr.as_lfr(M),
                          stiffness=lfr.as_lfr(K), option="B", base_wrench=base_wrench, positions=positions)
