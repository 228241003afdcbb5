"""Decentralized detumbling controllers of the two tugs (arXiv:2407.17617).

Every tug sees the same measurement of the client -- ``p`` (3,), ``R1``, ``R2`` (3, 3),
``nu = [v, omega1, omega2]`` (9,) -- and owns its estimates: parameters ``pi_hat`` (n,)
and its grasp point ``d_hat`` (3,) in its link's frame. :func:`tug_command` receives
*only* that tug's estimates, so no tug ever reads the other's (no communication).

Controller kinds (:data:`CONTROLLER_KINDS`):

* ``"B"`` full-chain decentralized adaptive (primary; arXiv:2407.17617): 9-D composite error
  ``s = nu - nu_r``, ``T_i = Y pi_hat_i - K s`` (9,), ``f_i = c_i T_v``,
  ``tau_i = T_omega_i - (R_i d_hat_i) x f_i``; ``pi_hat_i' = -Gamma_pi Y^T S_i s``,
  ``d_hat_i' = Gamma_d R_i^T (f_i x s_omega_i)``. ``V' = -s^T (K + D) s`` exactly.
* ``"known"``: B with the true parameters and grasps and no adaptation.
* ``"velocity"``: velocity-only detumbling (arXiv:2407.17617's law with ``p_d = p(t)``,
  ``R_d = R_i(t)``): ``nu_r = 0``, ``s = nu``. The inertial columns of ``Y`` vanish (they multiply
  ``nu_r``, ``nu_r_dot``); only the hinge spring and friction estimates adapt. The client stops
  tumbling wherever it is; ``V = nu^T M nu / 2 + estimate terms`` and ``V' = -nu^T (K + D) nu``.
* ``"A"`` the paper's composite 6-DOF controller (arXiv:2407.17617), error ``s_c = [v, omega1] - nu_rc``.
* ``"R"`` rigid-body adaptive baseline (arXiv:2407.17617): A with Link-1's 10 parameters only.

The reference (arXiv:2407.17617) regulates to a constant pose ``(p_d, R_d)``:
``nu_r = -gamma [p - p_d; R_d e_R(R1); R_d e_R(R2)]``, ``e_R(R) = vee(R_d^T R)`` (skew part).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..spatial import vee
from .client import LINK_PARAMETER_SLICES, N_PARAMETERS, ClientParams, HingeParams
from .dynamics import _cross, damping_matrix, mass_matrix
from .projection import ParameterSet
from .regressors import composite_regressor, full_regressor, rigid_regressor

__all__ = ["CONTROLLER_KINDS", "DesiredPose", "ControllerGains", "TugController", "Measurement",
           "reference_velocity", "tug_reference", "FULL_CHAIN_KINDS", "measure", "tug_command", "make_tugs",
           "initial_estimates", "true_estimates", "lyapunov", "lyapunov_rate"]

CONTROLLER_KINDS = ("B", "known", "A", "R", "velocity")
FULL_CHAIN_KINDS = ("B", "known", "velocity")
"""Kinds with the 9-D error ``s = nu - nu_r`` and the 9x29 regressor (a Lyapunov function each)."""


@dataclass(frozen=True)
class DesiredPose:
    """Constant desired pose: hinge point ``position`` (3,) [m], common link ``attitude`` (3, 3)."""

    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    attitude: np.ndarray = field(default_factory=lambda: np.eye(3))

    def __post_init__(self):
        p = np.asarray(self.position, dtype=float)
        R = np.asarray(self.attitude, dtype=float)
        if p.shape != (3,) or R.shape != (3, 3):
            raise ValueError("`position` must have shape (3,) and `attitude` shape (3, 3)")
        if not np.allclose(R.T @ R, np.eye(3), atol=1e-9) or np.linalg.det(R) < 0:
            raise ValueError("`attitude` must be a rotation matrix")
        object.__setattr__(self, "position", p.copy())
        object.__setattr__(self, "attitude", R.copy())


@dataclass(frozen=True)
class ControllerGains:
    """Gains shared by both tugs (the paper's defaults).

    Attributes
    ----------
    gamma : float
        Reference convergence rate [1/s], > 0.
    K_v, K_omega1, K_omega2 : float
        Diagonal blocks of ``K`` (B, known) [N s/m, N m s/rad], > 0.
    K_composite : tuple of 2 floats
        ``(K_linear, K_angular)`` of the 6-D gain of controllers A and R.
    Gamma_pi, Gamma_d : float
        Adaptation gains of the parameters and of the grasp points, > 0 (ignored by "known").
    workload : float
        ``c`` in [0, 1]: tug 1 delivers ``c`` of the force, tug 2 ``1 - c``.
    """

    gamma: float = 0.5
    K_v: float = 60.0
    K_omega1: float = 80.0
    K_omega2: float = 20.0
    K_composite: tuple = (60.0, 100.0)
    Gamma_pi: float = 100.0
    Gamma_d: float = 0.01
    workload: float = 0.5

    def __post_init__(self):
        for name in ("gamma", "K_v", "K_omega1", "K_omega2", "Gamma_pi", "Gamma_d"):
            value = getattr(self, name)
            if not (np.isfinite(value) and value > 0):
                raise ValueError(f"`{name}` must be a positive number; got {value!r}")
        if len(self.K_composite) != 2 or min(self.K_composite) <= 0:
            raise ValueError(f"`K_composite` must be two positive numbers; got {self.K_composite!r}")
        if not 0.0 <= self.workload <= 1.0:
            raise ValueError(f"`workload` must be in [0, 1]; got {self.workload!r}")

    @property
    def K(self) -> np.ndarray:
        """Diagonal of the 9x9 gain ``K``."""
        return np.repeat([self.K_v, self.K_omega1, self.K_omega2], 3)

    @property
    def K_c(self) -> np.ndarray:
        """Diagonal of the 6x6 composite gain ``K_c``."""
        return np.repeat(self.K_composite, 3)


@dataclass(frozen=True)
class TugController:
    """One tug's controller: which tug (0 grasps Link-1, 1 grasps Link-2), kind, gains and workload.

    ``structure`` is the hinge *model structure* the controller assumes (spring model and
    friction regularisation); its stiffness/damping/friction values are zero -- unknown.
    ``bounds`` (optional) is the tug's prior knowledge as a convex
    :class:`~satdyn.detumbling.projection.ParameterSet`: its updates are then projected onto
    the set's tangent cone (estimates stay in the set; ``V' <= -s^T (K + D) s`` still holds).
    """

    index: int
    kind: str
    gains: ControllerGains
    structure: HingeParams
    bounds: ParameterSet | None = None

    def __post_init__(self):
        if self.index not in (0, 1):
            raise ValueError(f"`index` must be 0 or 1; got {self.index!r}")
        if self.kind not in CONTROLLER_KINDS:
            raise ValueError(f"`kind` must be one of {CONTROLLER_KINDS}; got {self.kind!r}")
        if self.bounds is not None and not isinstance(self.bounds, ParameterSet):
            raise TypeError(f"`bounds` must be a ParameterSet or None; got {type(self.bounds).__name__}")

    @property
    def workload(self) -> float:
        return self.gains.workload if self.index == 0 else 1.0 - self.gains.workload

    @property
    def n_parameters(self) -> int:
        return 10 if self.kind == "R" else N_PARAMETERS


def make_tugs(kind: str, gains: ControllerGains, client: ClientParams,
              bounds: ParameterSet | None = None) -> tuple[TugController, TugController]:
    """The two tugs of one controller kind; they know only the hinge model structure of ``client``
    (and, optionally, the parameter set ``bounds``)."""
    h = client.hinge
    structure = HingeParams(np.zeros(3), np.zeros(3), np.zeros(3), h.friction_eps, h.spring_model)
    return TugController(0, kind, gains, structure, bounds), TugController(1, kind, gains, structure, bounds)


def initial_estimates(tug: TugController, client: ClientParams, fraction: float,
                      grasp_estimate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(pi_hat(0), d_hat(0))``: ``fraction`` of the true parameters and the given grasp guess.

    For ``"known"`` the true parameters and grasp are returned whatever the arguments.
    """
    pi = client.parameters
    if tug.kind == "known":
        return pi.copy(), client.grasps[tug.index].copy()
    if tug.kind == "R":
        pi = pi[LINK_PARAMETER_SLICES[0]]
    pi_hat, d_hat = fraction * pi, np.asarray(grasp_estimate, dtype=float).copy()
    if tug.bounds is not None:  # a projected law starts inside its set
        pi_hat, d_hat = tug.bounds.clip(pi_hat), tug.bounds.clip_grasp(d_hat)
    return pi_hat, d_hat


def true_estimates(tug: TugController, client: ClientParams) -> tuple[np.ndarray, np.ndarray]:
    """The values the tug's estimates would have if exact (for ``V`` and plots)."""
    pi = client.parameters
    return (pi[LINK_PARAMETER_SLICES[0]] if tug.kind == "R" else pi), client.grasps[tug.index]


def _attitude_error(R_d: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    R_e = R_d.T @ R
    return vee(R_e), R_e


def tug_reference(tug: TugController, desired: DesiredPose, p, R1, R2, nu) -> tuple[np.ndarray, np.ndarray]:
    """``(nu_r, nu_r_dot)`` (9,) of ``tug``'s kind: zero for ``"velocity"``, else :func:`reference_velocity`."""
    if tug.kind == "velocity":
        return np.zeros(9), np.zeros(9)
    return reference_velocity(desired, tug.gains.gamma, p, R1, R2, nu)


def reference_velocity(desired: DesiredPose, gamma: float, p: np.ndarray, R1: np.ndarray, R2: np.ndarray,
                       nu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Reference velocity ``nu_r`` (9,) and its exact time derivative ``nu_r_dot`` (9,).

    ``d/dt e_R = (tr(R_e) I - R_e^T) R^T omega / 2``; no accelerations are needed.
    """
    R_d = desired.attitude
    nu_r = np.empty(9)
    nu_r_dot = np.empty(9)
    nu_r[:3] = -gamma * (p - desired.position)
    nu_r_dot[:3] = -gamma * nu[:3]
    for R, rows in ((R1, slice(3, 6)), (R2, slice(6, 9))):
        e_R, R_e = _attitude_error(R_d, R)
        nu_r[rows] = -gamma * (R_d @ e_R)
        nu_r_dot[rows] = -0.5 * gamma * (R_d @ ((np.trace(R_e) * np.eye(3) - R_e.T) @ (R.T @ nu[rows])))
    return nu_r, nu_r_dot


@dataclass(frozen=True)
class Measurement:
    """Quantities computed from the shared measurement, identical for both tugs.

    ``s`` is the composite error (9,) for B/known and (6,) for A/R; ``Y`` the matching
    regressor; ``nu_r``/``nu_r_dot`` the 9-D reference.
    """

    p: np.ndarray
    R: tuple
    nu: np.ndarray
    nu_r: np.ndarray
    nu_r_dot: np.ndarray
    s: np.ndarray
    Y: np.ndarray


def measure(tug: TugController, desired: DesiredPose, p: np.ndarray, R1: np.ndarray, R2: np.ndarray,
            nu: np.ndarray) -> Measurement:
    """Reference, composite error and regressor of ``tug``'s kind from the shared measurement.

    Depends only on the measurement and on the common reference law, so both tugs of one
    kind obtain the same values (a simulation may compute it once for both).
    """
    nu_r, nu_r_dot = tug_reference(tug, desired, p, R1, R2, nu)
    if tug.kind in FULL_CHAIN_KINDS:
        s = nu - nu_r
        Y = full_regressor(tug.structure, R1, R2, nu, nu_r, nu_r_dot)
    else:
        s = nu[:6] - nu_r[:6]
        if tug.kind == "A":
            Y = composite_regressor(tug.structure, R1, R2, nu, nu_r[:6], nu_r_dot[:6])
        else:
            Y = rigid_regressor(R1, nu, nu_r[:6], nu_r_dot[:6])
    return Measurement(p, (R1, R2), nu, nu_r, nu_r_dot, s, Y)


def tug_command(tug: TugController, meas: Measurement, pi_hat: np.ndarray,
                d_hat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One tug's wrench and estimate derivatives from the shared measurement and *its own* estimates.

    Parameters
    ----------
    tug : TugController
    meas : Measurement
        From :func:`measure` with a tug of the same kind.
    pi_hat : ndarray, shape (n,)
        This tug's parameter estimates (n = 29, or 10 for "R").
    d_hat : ndarray, shape (3,)
        This tug's grasp-point estimate in its link's frame [m].

    Returns
    -------
    W : ndarray, shape (6,)
        World-frame wrench ``[f; tau]`` applied at the tug's (true) grasp point [N, N m].
    pi_hat_dot : ndarray, shape (n,)
    d_hat_dot : ndarray, shape (3,)
    """
    i = tug.index
    R = meas.R[i]
    g = tug.gains
    if tug.kind in FULL_CHAIN_KINDS:
        rows = slice(3, 6) if i == 0 else slice(6, 9)
        T = meas.Y @ pi_hat - g.K * meas.s
        f = tug.workload * T[:3]
        torque_about_H = T[rows]
        s_omega = meas.s[rows]
        if tug.kind == "known":
            pi_dot, d_dot = np.zeros_like(pi_hat), np.zeros(3)
        else:
            Ss = np.zeros(9)
            Ss[:3] = tug.workload * meas.s[:3]
            Ss[rows] = s_omega
            pi_dot = -g.Gamma_pi * (meas.Y.T @ Ss)
            d_dot = g.Gamma_d * (R.T @ _cross(f, s_omega))
    else:
        T = tug.workload * (meas.Y @ pi_hat - g.K_c * meas.s)
        f = T[:3]
        torque_about_H = T[3:]
        s_omega = meas.s[3:]
        pi_dot = -g.Gamma_pi * (meas.Y.T @ meas.s)
        d_dot = g.Gamma_d * (R.T @ _cross(f, s_omega))
    if tug.bounds is not None and tug.kind != "known":
        pi_dot = tug.bounds.project_rate(pi_hat, pi_dot)
        d_dot = tug.bounds.project_grasp_rate(d_hat, d_dot)
    # W = G(R d_hat)^{-1} [f; torque about H]: the tug moves the torque to where it believes it is.
    tau = torque_about_H - _cross(R @ d_hat, f)
    return np.concatenate([f, tau]), pi_dot, d_dot


def lyapunov(client: ClientParams, tugs, desired: DesiredPose, p, R1, R2, nu, pi_hats, d_hats) -> float:
    """Lyapunov function ``V = s^T M s / 2 + sum_i (|pi~_i|^2 / Gamma_pi + |d~_i|^2 / Gamma_d) / 2``.

    ``s = nu - nu_r`` is the 9-D error of controller B for every kind (for A and R it is a
    diagnostic only: no Lyapunov guarantee); the estimate terms are absent for "known".

    Parameters
    ----------
    client : ClientParams
        The true client (V measures the estimate errors against it).
    tugs : pair of TugController
    desired : DesiredPose
    p : ndarray (3,); R1, R2 : ndarray (3, 3); nu : ndarray (9,)
        Client state.
    pi_hats : pair of ndarray (n,); d_hats : pair of ndarray (3,)
        Both tugs' estimates.

    Returns
    -------
    float
        V [J].
    """
    g = tugs[0].gains
    nu_r, _ = tug_reference(tugs[0], desired, p, R1, R2, nu)
    s = nu - nu_r
    V = 0.5 * float(s @ mass_matrix(client, R1, R2) @ s)
    if tugs[0].kind != "known":
        for tug, pi_hat, d_hat in zip(tugs, pi_hats, d_hats):
            pi_true, d_true = true_estimates(tug, client)
            V += 0.5 * (float(np.sum((pi_hat - pi_true) ** 2)) / g.Gamma_pi
                        + float(np.sum((d_hat - d_true) ** 2)) / g.Gamma_d)
    return V


def lyapunov_rate(client: ClientParams, tugs, desired: DesiredPose, p, R1, R2, nu) -> float:
    """Analytic rate of :func:`lyapunov` for B, known and velocity: ``-s^T (K + D) s`` [W]."""
    g = tugs[0].gains
    nu_r, _ = tug_reference(tugs[0], desired, p, R1, R2, nu)
    s = nu - nu_r
    return -float(s @ (g.K * s) + s @ damping_matrix(client, R1) @ s)
