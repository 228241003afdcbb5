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
trim torques ``Tbar`` [N m], the mass matrix and the stiffness.

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
from .recurrence import EquilibriumTree, Trim, backward_recurrence, forward_recurrence, linear_inverse_dynamics

__all__ = ["EquilibriumLFR", "EquilibriumLinearisation", "equilibrium_lfr", "equilibrium_linearisation",
           "signal_names"]


def signal_names(tree: EquilibriumTree) -> dict[str, tuple[str, ...]]:
    """``{"inputs": (T_J1, ...), "outputs": (theta_J1, ..., dtheta_J1, ...), "torques": (Tbar_J1, ...)}``."""
    names = [j.name for j in tree.joints]
    return {"inputs": tuple(f"T_{n}" for n in names),
            "outputs": tuple(f"theta_{n}" for n in names) + tuple(f"dtheta_{n}" for n in names),
            "torques": tuple(f"Tbar_{n}" for n in names)}


@dataclass(frozen=True)
class EquilibriumLFR:
    """The LFT model around the parameter-dependent equilibrium.

    Attributes
    ----------
    plant : satdyn.lfr.LFR
        Dynamic, ``2n`` states ``[dtheta; dtheta']``; inputs ``T_<joint>``, outputs
        ``theta_<joint>`` then ``dtheta_<joint>``.
    static_torques : satdyn.lfr.LFR
        Static (n, 1) map of a unit input: ``Tbar = static_torques.evaluate(values)[:, 0]`` [N m]
        (outputs ``Tbar_<joint>``).
    mass_matrix, stiffness : satdyn.lfr.LFR
        (n, n) static: ``M`` and ``K_g + Kp`` (option B; None for option A).
    option : str
    """

    plant: object
    static_torques: object
    mass_matrix: object
    stiffness: object
    option: str

    def to_dict(self) -> dict:
        return {"option": self.option, "nstates": self.plant.nstates, "ndelta": self.plant.ndelta,
                "blocks": {b.parameter.name: b.size for b in self.plant.blocks},
                "inputs": list(self.plant.input_names), "outputs": list(self.plant.output_names)}


@dataclass(frozen=True)
class EquilibriumLinearisation:
    """Numeric model at one parameter point (same algorithm, numbers instead of LFRs).

    Attributes
    ----------
    mass_matrix (n, n), stiffness (n, n) (gravity + springs), damping (n, n),
    static_torques (n,) [N m], A (2n, 2n), B (2n, n), C (2n, 2n), D (2n, n)
    """

    mass_matrix: np.ndarray
    stiffness: np.ndarray
    damping: np.ndarray
    static_torques: np.ndarray
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray


def _joint_diag(alg, tree, key):
    entries = [getattr(j, key) for j in tree.joints]
    if not alg.symbolic or not any(hasattr(e, "name") for e in entries):
        return np.diag([float(np.asarray(NumericAlgebra(getattr(alg, "values", {})).lift(e)).reshape(()))
                        for e in entries])
    return alg.blockdiag([alg.lift(e) if hasattr(e, "name") else np.array([[float(e)]]) for e in entries])


def equilibrium_linearisation(tree: EquilibriumTree, values: dict | None = None) -> EquilibriumLinearisation:
    """Numeric option-B model at the parameter point ``values`` (physical; nominal if missing)."""
    if not isinstance(tree, EquilibriumTree):
        raise TypeError(f"tree must be an EquilibriumTree, got {type(tree).__name__}")
    if not tree.joints:
        raise ValueError("tree has no revolute joint: nothing to linearise")
    alg = NumericAlgebra(values)
    trim = backward_recurrence(alg, tree, forward_recurrence(alg, tree))
    M, Kg = linear_inverse_dynamics(alg, tree, trim)
    Kp, Kd = _joint_diag(alg, tree, "stiffness"), _joint_diag(alg, tree, "damping")
    K = Kg + Kp
    n = M.shape[0]
    Minv = np.linalg.inv(M)
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-Minv @ K, -Minv @ Kd]])
    B = np.vstack([np.zeros((n, n)), Minv])
    Tbar = np.array([float(trim.static_torque[j.name].reshape(())) for j in tree.joints])
    return EquilibriumLinearisation(mass_matrix=M, stiffness=K, damping=Kd, static_torques=Tbar, A=A, B=B,
                                    C=np.eye(2 * n), D=np.zeros((2 * n, n)))


def _close_integrators(alg, tree, accel_map):
    """Plant from ``dq'' = accel_map [dq; dq'; dT]`` (static LFR n x 3n) and 2n integrators."""
    from .. import lfr

    n = len(tree.joints)
    top = np.hstack([np.zeros((n, n)), np.eye(n), np.zeros((n, n))])
    out = np.hstack([np.eye(2 * n), np.zeros((2 * n, n))])
    S = lfr.vstack([top, accel_map, out])
    names = signal_names(tree)
    plant = lfr.lft(S, lfr.integrator(2 * n), upper=True)
    # Not reduced again: the Delta of accel_map is already reduced, and a reduction of the
    # plant could change the state coordinates, which must stay [dtheta; dtheta'].
    return plant.rename(inputs=list(names["inputs"]), outputs=list(names["outputs"]))


def _option_b(alg, tree, trim):
    M, Kg = linear_inverse_dynamics(alg, tree, trim)
    n = len(tree.joints)
    K = alg.simplify(Kg + _joint_diag(alg, tree, "stiffness"))
    Kd = _joint_diag(alg, tree, "damping")
    from .. import lfr

    Minv = lfr.as_lfr(M).inv()
    accel = alg.simplify(Minv @ lfr.hstack([-K, -Kd, np.eye(n)]))
    return _close_integrators(alg, tree, accel), M, K


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


def equilibrium_lfr(tree: EquilibriumTree, option: str = "B", *, tolerance: float = 1e-10) -> EquilibriumLFR:
    """One LFT model covering every equilibrium angle and parameter of ``tree``.

    Parameters
    ----------
    tree : EquilibriumTree
        Joint angles given as ``satdyn.lfr.vreal`` parameters (transform ``"tan_half"`` or
        ``"tan_quarter"``) become scheduling parameters; body entries given as parameters
        are kept symbolic.
    option : {"B", "A"}
        Assembly route (see module docstring); both give the same transfer.
    tolerance : float
        Relative rank tolerance of the order reductions applied after every step.

    Returns
    -------
    EquilibriumLFR
    """
    if option not in ("A", "B"):
        raise ValueError(f"option must be 'A' or 'B', got {option!r}")
    if not isinstance(tree, EquilibriumTree):
        raise TypeError(f"tree must be an EquilibriumTree, got {type(tree).__name__}")
    if not tree.joints:
        raise ValueError("tree has no revolute joint: nothing to linearise")
    from .. import lfr

    alg = LFRAlgebra(tolerance)
    trim: Trim = backward_recurrence(alg, tree, forward_recurrence(alg, tree))
    names = signal_names(tree)
    torques = lfr.as_lfr(alg.simplify(alg.vstack([trim.static_torque[j.name] for j in tree.joints])))
    torques = torques.rename(outputs=list(names["torques"]))
    if option == "B":
        plant, M, K = _option_b(alg, tree, trim)
        return EquilibriumLFR(plant=plant, static_torques=torques, mass_matrix=lfr.as_lfr(M),
                              stiffness=lfr.as_lfr(K), option="B")
    plant = _option_a(alg, tree, trim)
    return EquilibriumLFR(plant=plant, static_torques=torques, mass_matrix=None, stiffness=None, option="A")
