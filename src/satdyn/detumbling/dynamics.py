"""Exact 9-DOF dynamics of the two-link client (arXiv:2407.17617).

Configuration ``(p, R1, R2)``: hinge point H in the world frame ``p`` (3,) [m] and the
link attitudes ``R1``, ``R2`` (3, 3) (link frame -> world, i.e. ``P_{link/world}``).
Generalized velocity ``nu = [v, omega1, omega2]`` (9,): world velocity of H [m/s] and the
world-frame angular velocities of the links [rad/s]. Wrenches ``W = [f; tau]`` (6,) are
world-frame, ``[linear; angular]``.

Equations of motion (all terms about H, world frame)::

    M(R) nu_dot + C(R, nu) nu + D(R1) nu + g_K(R1, R2) + g_F(R1, nu) = Q
    p_dot = v,   R_i_dot = skew(omega_i) R_i

with ``M = sum P_i^T M_i P_i`` (symmetric positive definite), ``M_dot - 2 C`` skew,
``D >= 0`` the hinge damper, ``g_K`` the hinge spring and ``g_F`` the smooth Coulomb
friction (both as generalized forces moved to the left-hand side), and
``Q = P_1^T G(R1 d1) W1 + P_2^T G(R2 d2) W2`` the tug wrenches mapped through the grasp
maps ``G(r) = [[I, 0], [skew(r), I]]``.

Hinge quantities: ``theta* = Log(R1^T R2)`` (rotation vector of Link-2 relative to Link-1,
Link-1 frame) and ``w = R1^T (omega2 - omega1)`` (relative rate, Link-1 frame).
"""

from __future__ import annotations

import numpy as np

from ..spatial import so3_left_jacobian_inverse, so3_log, tau, vee
from ..spatial.unchecked import skew  # trusted inputs: inner loop
from .client import ClientParams, HingeParams, LinkParams

__all__ = [
    "link_mass_matrix", "link_coriolis_matrix", "mass_matrix", "coriolis_matrix", "damping_matrix",
    "hinge_angle", "hinge_rate", "spring_basis", "spring_force", "friction_force", "hinge_forces",
    "grasp_map", "generalized_force", "grasp_twists", "forward_dynamics",
    "kinetic_energy", "spring_energy", "energy", "linear_momentum", "angular_momentum",
    "V_ROWS", "OMEGA_ROWS",
]

def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a x b`` for single 3-vectors (np.cross costs ~15x more on such small inputs)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


_SHAPES = {"r": (3,), "R": (3, 3), "R1": (3, 3), "R2": (3, 3), "nu": (9,), "p": (3,), "Q": (9,), "W1": (6,), "W2": (6,),
           "omega": (3,), "point": (3,)}


def _checked(client=None, **named) -> list:
    """Arguments as float arrays of the documented shapes (cheap: public entry points call it).

    ``client``, when given, must be a :class:`ClientParams` (checked, not returned).
    """
    if client is not None and not isinstance(client, ClientParams):
        raise TypeError(f"`client` must be a ClientParams; got {type(client).__name__}")
    out = []
    for name, value in named.items():
        try:
            array = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"`{name}` must be numeric array-like; got {type(value).__name__}") from None
        if array.shape != _SHAPES[name]:
            raise ValueError(f"`{name}` must have shape {_SHAPES[name]}; got {array.shape}")
        out.append(array)
    return out


V_ROWS = slice(0, 3)
"""Rows of ``nu`` (and of generalized forces) belonging to the hinge-point velocity."""
OMEGA_ROWS = (slice(3, 6), slice(6, 9))
"""Rows of ``omega1`` and ``omega2``."""


def link_mass_matrix(link: LinkParams, R: np.ndarray) -> np.ndarray:
    """6x6 mass matrix of one link about H, world frame: ``[[m I, -skew(r)], [skew(r), R J R^T]]``.

    Parameters
    ----------
    link : LinkParams
    R : ndarray, shape (3, 3)
        Link attitude (link -> world).

    Returns
    -------
    ndarray, shape (6, 6), acting on ``[v; omega]``.
    """
    r = skew(R @ link.first_moment)
    M = np.empty((6, 6))
    M[:3, :3] = link.mass * np.eye(3)
    M[:3, 3:] = -r
    M[3:, :3] = r
    M[3:, 3:] = R @ link.inertia_hinge @ R.T
    return M


def link_coriolis_matrix(link: LinkParams, R: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """6x6 Coriolis/centrifugal matrix of one link with ``M_i_dot = C_i + C_i^T``.

    ``C_i = [[0, -skew(omega x r)], [0, -I_w skew(omega) - skew(I_w omega)]]`` with
    ``r = R h`` and ``I_w = R J R^T``; ``C_i [v; omega]`` is the velocity-dependent part of
    the Newton-Euler wrench about H.
    """
    r = R @ link.first_moment
    I_w = R @ link.inertia_hinge @ R.T
    C = np.zeros((6, 6))
    C[:3, 3:] = -skew(_cross(omega, r))
    C[3:, 3:] = -I_w @ skew(omega) - skew(I_w @ omega)
    return C


def _assemble(block1: np.ndarray, block2: np.ndarray) -> np.ndarray:
    """``P_1^T B1 P_1 + P_2^T B2 P_2`` for 6x6 link blocks on ``[v; omega_i]``."""
    out = np.zeros((9, 9))
    out[:3, :3] = block1[:3, :3] + block2[:3, :3]
    out[:3, 3:6] = block1[:3, 3:]
    out[3:6, :3] = block1[3:, :3]
    out[3:6, 3:6] = block1[3:, 3:]
    out[:3, 6:9] = block2[:3, 3:]
    out[6:9, :3] = block2[3:, :3]
    out[6:9, 6:9] = block2[3:, 3:]
    return out


def mass_matrix(client: ClientParams, R1: np.ndarray, R2: np.ndarray) -> np.ndarray:
    """9x9 generalized mass matrix ``M(q)`` (symmetric positive definite)."""
    R1, R2 = _checked(client, R1=R1, R2=R2)
    return _assemble(link_mass_matrix(client.link1, R1), link_mass_matrix(client.link2, R2))


def coriolis_matrix(client: ClientParams, R1: np.ndarray, R2: np.ndarray, nu: np.ndarray) -> np.ndarray:
    """9x9 Coriolis matrix ``C(q, nu)`` with ``M_dot - 2 C`` skew-symmetric."""
    R1, R2, nu = _checked(client, R1=R1, R2=R2, nu=nu)
    return _assemble(link_coriolis_matrix(client.link1, R1, nu[3:6]),
                     link_coriolis_matrix(client.link2, R2, nu[6:9]))


def damping_matrix(client: ClientParams, R1: np.ndarray) -> np.ndarray:
    """9x9 hinge damping ``D = [[0,0,0],[0,Dw,-Dw],[0,-Dw,Dw]]``, ``Dw = R1 diag(xi) R1^T >= 0``."""
    Dw = (R1 * client.hinge.damping) @ R1.T
    D = np.zeros((9, 9))
    D[3:6, 3:6] = D[6:9, 6:9] = Dw
    D[3:6, 6:9] = D[6:9, 3:6] = -Dw
    return D


def hinge_angle(R1: np.ndarray, R2: np.ndarray) -> np.ndarray:
    """``theta* = Log(R1^T R2)`` (3,) [rad]: Link-2 relative to Link-1, Link-1 frame (angle <= pi)."""
    R1, R2 = _checked(R1=R1, R2=R2)
    return so3_log(R1.T @ R2)


def hinge_rate(R1: np.ndarray, nu: np.ndarray) -> np.ndarray:
    """Relative angular velocity ``w = R1^T (omega2 - omega1)`` (3,) [rad/s], Link-1 frame."""
    return R1.T @ (nu[6:9] - nu[3:6])


def spring_basis(hinge: HingeParams, R1: np.ndarray, R2: np.ndarray) -> np.ndarray:
    """3x3 matrix ``B`` with the spring gradient ``dU/d(rotation of Link-2) = B k`` in the Link-1 frame.

    ``"logmap"``: ``B = J_l^{-T}(theta*) diag(theta*)`` (exact gradient of ``theta^T K theta / 2``);
    ``"trace"``: column j is the gradient of ``tr(G_j (I - R*))``, ``G_j = I/2 - e_j e_j^T``.
    The spring is linear in ``k``, so the same matrix serves the dynamics and the regressor.
    """
    if hinge.spring_model == "logmap":
        theta = hinge_angle(R1, R2)
        return so3_left_jacobian_inverse(theta).T * theta
    R_rel = R1.T @ R2
    basis = np.empty((3, 3))
    for j in range(3):
        G = 0.5 * np.eye(3)
        G[j, j] -= 1.0
        # d tr(G (I - R*)) along R* <- Exp(e) R* is 2 vee(R* G) . e  (vee of the skew part)
        basis[:, j] = 2.0 * vee(R_rel @ G)
    return basis


def spring_force(client: ClientParams, R1: np.ndarray, R2: np.ndarray) -> np.ndarray:
    """Generalized spring force ``g_K = [0; -R1 g; R1 g]`` (9,), ``g = B(theta*) k`` [N m]."""
    g = R1 @ (spring_basis(client.hinge, R1, R2) @ client.hinge.stiffness)
    return np.concatenate([np.zeros(3), -g, g])


def friction_force(client: ClientParams, R1: np.ndarray, nu: np.ndarray) -> np.ndarray:
    """Generalized friction force ``g_F = [0; -R1 F; R1 F]``, ``F = f_c * tanh(w / eps_f)`` (9,)."""
    h = client.hinge
    F = R1 @ (h.friction * np.tanh(hinge_rate(R1, nu) / h.friction_eps))
    return np.concatenate([np.zeros(3), -F, F])


def hinge_forces(client: ClientParams, R1: np.ndarray, R2: np.ndarray, nu: np.ndarray) -> np.ndarray:
    """All hinge generalized forces ``D nu + g_K + g_F`` (9,) (left-hand-side convention)."""
    return damping_matrix(client, R1) @ nu + spring_force(client, R1, R2) + friction_force(client, R1, nu)


def grasp_map(r: np.ndarray) -> np.ndarray:
    """``G(r) = [[I, 0], [skew(r), I]]`` (6, 6): wrench applied at ``H + r`` -> the same wrench about H.

    It is ``tau(-r)^T`` of :mod:`satdyn.spatial` (moment transport from the grasp point to H).
    """
    (r,) = _checked(r=r)
    return tau(-r).T


def generalized_force(client: ClientParams, R1: np.ndarray, R2: np.ndarray, W1: np.ndarray, W2: np.ndarray,
                      grasps: np.ndarray | None = None) -> np.ndarray:
    """``Q = P_1^T G(R1 d1) W1 + P_2^T G(R2 d2) W2`` (9,).

    Parameters
    ----------
    W1, W2 : ndarray, shape (6,)
        World-frame tug wrenches ``[f; tau]`` applied at the grasp points [N, N m].
    grasps : ndarray, shape (2, 3), optional
        Grasp points in their link frames [m]; default the client's true ones.
    """
    R1, R2, W1, W2 = _checked(client, R1=R1, R2=R2, W1=W1, W2=W2)
    d = client.grasps if grasps is None else grasps
    H1 = grasp_map(R1 @ d[0]) @ W1
    H2 = grasp_map(R2 @ d[1]) @ W2
    return np.concatenate([H1[:3] + H2[:3], H1[3:], H2[3:]])


def grasp_twists(client: ClientParams, R1: np.ndarray, R2: np.ndarray, nu: np.ndarray,
                 grasps: np.ndarray | None = None) -> np.ndarray:
    """Twists ``[v + omega_i x R_i d_i; omega_i]`` of the two grasp points (2, 6), i.e. ``G(R_i d_i)^T P_i nu``."""
    R1, R2, nu = _checked(client, R1=R1, R2=R2, nu=nu)
    d = client.grasps if grasps is None else grasps
    out = np.empty((2, 6))
    for i, (R, w) in enumerate(((R1, nu[3:6]), (R2, nu[6:9]))):
        out[i] = grasp_map(R @ d[i]).T @ np.concatenate([nu[:3], w])
    return out


def forward_dynamics(client: ClientParams, R1: np.ndarray, R2: np.ndarray, nu: np.ndarray,
                     Q: np.ndarray | None = None) -> np.ndarray:
    """Generalized acceleration ``nu_dot = M^{-1} (Q - C nu - D nu - g_K - g_F)`` (9,).

    Parameters
    ----------
    client : ClientParams
    R1, R2 : ndarray, shape (3, 3)
    nu : ndarray, shape (9,)
    Q : ndarray, shape (9,), optional
        Applied generalized force (default zero: free motion).
    """
    R1, R2, nu = _checked(client, R1=R1, R2=R2, nu=nu)
    if Q is not None:
        (Q,) = _checked(Q=Q)
    rhs = -(coriolis_matrix(client, R1, R2, nu) @ nu) - hinge_forces(client, R1, R2, nu)
    if Q is not None:
        rhs = rhs + Q
    return np.linalg.solve(mass_matrix(client, R1, R2), rhs)


def kinetic_energy(client: ClientParams, R1: np.ndarray, R2: np.ndarray, nu: np.ndarray) -> float:
    """``nu^T M nu / 2`` [J]."""
    R1, R2, nu = _checked(client, R1=R1, R2=R2, nu=nu)
    return 0.5 * float(nu @ mass_matrix(client, R1, R2) @ nu)


def spring_energy(client: ClientParams, R1: np.ndarray, R2: np.ndarray) -> float:
    """Hinge spring potential [J]: ``theta^T K theta / 2`` (logmap) or ``tr(G (I - R*))`` (trace)."""
    h = client.hinge
    if h.spring_model == "logmap":
        theta = hinge_angle(R1, R2)
        return 0.5 * float(theta @ (h.stiffness * theta))
    G = np.diag(0.5 * h.stiffness.sum() - h.stiffness)
    return float(np.trace(G @ (np.eye(3) - R1.T @ R2)))


def energy(client: ClientParams, R1: np.ndarray, R2: np.ndarray, nu: np.ndarray) -> float:
    """Total mechanical energy (kinetic + spring) [J]; conserved in free motion without damping/friction."""
    R1, R2, nu = _checked(client, R1=R1, R2=R2, nu=nu)
    return kinetic_energy(client, R1, R2, nu) + spring_energy(client, R1, R2)


def linear_momentum(client: ClientParams, R1: np.ndarray, R2: np.ndarray, nu: np.ndarray) -> np.ndarray:
    """``L = (m1 + m2) v + sum_i omega_i x R_i h_i`` (3,) [kg m/s]."""
    R1, R2, nu = _checked(client, R1=R1, R2=R2, nu=nu)
    v = nu[:3]
    return (client.total_mass * v + _cross(nu[3:6], R1 @ client.link1.first_moment)
            + _cross(nu[6:9], R2 @ client.link2.first_moment))


def angular_momentum(client: ClientParams, p: np.ndarray, R1: np.ndarray, R2: np.ndarray, nu: np.ndarray,
                     point: np.ndarray | None = None) -> np.ndarray:
    """Angular momentum about a fixed world point (default the origin) (3,) [kg m^2/s].

    ``H_O = sum_i m_i (p_ci - O) x v_ci + R_i I_ci R_i^T omega_i`` with ``p_ci = p + R_i c_i``
    and ``v_ci = v + omega_i x R_i c_i``.
    """
    p, R1, R2, nu = _checked(client, p=p, R1=R1, R2=R2, nu=nu)
    O = np.zeros(3) if point is None else _checked(point=point)[0]
    out = np.zeros(3)
    for link, R, w in ((client.link1, R1, nu[3:6]), (client.link2, R2, nu[6:9])):
        rc = R @ link.com
        out += link.mass * _cross(p + rc - O, nu[:3] + _cross(w, rc)) + R @ link.inertia_com @ R.T @ w
    return out
