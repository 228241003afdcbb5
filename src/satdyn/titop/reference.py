"""Numeric second-order reference (M, C, K) model of the assembly spacecraft (arXiv:2409.06017).

Built directly with numpy from the data, independently of the port blocks and of the LFR
machinery: it is the oracle of the block model of :mod:`satdyn.titop.models.assembly`.

Generalised coordinates q = [x_G (6, hub at G, frame b); eta_A (n_A); eta_F (n_F)];
``M q'' + C q' + K q = F_G W_ext/B,G + F_C W_ext/Fn,Cj``; output x''_G.
"""

from __future__ import annotations

from dataclasses import dataclass

import control
import numpy as np

from ..spatial import frame_change_matrix, rigid_mass_matrix, tau
from .data import AssemblySpacecraftData, ModalData
from .kinematics import robot_mass_matrix

__all__ = ["SecondOrderModel", "assembly_reference", "stack_mass_matrix"]


@dataclass(frozen=True)
class SecondOrderModel:
    """``M q'' + C q' + K q = F u`` with output ``y = q''[:6]`` (the hub acceleration at G).

    Attributes: ``M, C, K`` (nq, nq), ``F`` (nq, m); ``n_rigid`` = 6.
    """

    M: np.ndarray
    C: np.ndarray
    K: np.ndarray
    F: np.ndarray
    n_rigid: int = 6

    def frequency_response(self, s) -> np.ndarray:
        """y/u at complex frequencies ``s`` (k,) -> (k, 6, m)."""
        s = np.atleast_1d(np.asarray(s, dtype=complex))
        Z = s[:, None, None] ** 2 * self.M + s[:, None, None] * self.C + self.K
        X = np.linalg.solve(Z, np.broadcast_to(self.F, (len(s),) + self.F.shape))
        return s[:, None, None] ** 2 * X[:, : self.n_rigid, :]

    def state_space(self) -> control.StateSpace:
        """Minimal realisation on the modal coordinates [eta; eta'] (rigid coordinates unobservable)."""
        r = self.n_rigid
        N = np.linalg.inv(self.M)
        n = self.M.shape[0] - r
        Ke, Ce = self.K[r:, r:], self.C[r:, r:]
        NF = N @ self.F
        A = np.block([[np.zeros((n, n)), np.eye(n)], [-N[r:, r:] @ Ke, -N[r:, r:] @ Ce]])
        B = np.vstack([np.zeros((n, self.F.shape[1])), NF[r:]])
        C = np.hstack([-N[:r, r:] @ Ke, -N[:r, r:] @ Ce])
        return control.ss(A, B, C, NF[:r])

    def free_free_frequencies_hz(self) -> np.ndarray:
        """Non-zero undamped natural frequencies [Hz] (generalised eigenvalues of (K, M))."""
        w2 = np.linalg.eigvals(np.linalg.solve(self.M, self.K)).real
        w2 = np.sort(w2[w2 > 1e-9 * max(1.0, w2.max())])
        return np.sqrt(w2) / (2.0 * np.pi)

    def cantilever_frequencies_hz(self) -> np.ndarray:
        """Frequencies with the hub clamped (modal block only) [Hz]."""
        r = self.n_rigid
        w2 = np.linalg.eigvals(np.linalg.solve(self.M[r:, r:], self.K[r:, r:])).real
        return np.sqrt(np.sort(w2)) / (2.0 * np.pi)


def stack_mass_matrix(data: AssemblySpacecraftData, n: int, carry_tile: bool) -> np.ndarray | None:
    """D^S_P3 from eq. 13 (m^S = m^T (N - n - delta), J^S = J^T (N - n - delta)); None if empty."""
    count = data.n_tiles_total - n - int(carry_tile)
    if count < 0:
        raise ValueError(f"n = {n} with a carried tile leaves {count} tiles in the stack (satdyn's reading, "
                         "docs/titop.md)")
    if count == 0:
        return None
    return rigid_mass_matrix(data.tile_mass * count, data.robot.tile_inertia * count, data.r_P3_C0)


def _modes_with(modes: ModalData, r_omega, delta_omega) -> tuple[np.ndarray, np.ndarray]:
    omega = modes.omega.copy()
    omega[0] *= 1.0 + r_omega * delta_omega
    return 2.0 * modes.damping * omega, omega**2


def assembly_reference(data: AssemblySpacecraftData, *, n: int = 26, robot_angles=None, dock: int = 1,
                       carry_tile: bool = False, delta_omega: float = 0.0, with_structure: bool = True,
                       with_stack: bool = True, with_robot: bool = True) -> SecondOrderModel:
    """The (M, C, K) model of arXiv:2409.06017 at one configuration.

    Parameters
    ----------
    data : AssemblySpacecraftData
    n : int
        Structure F_n (its shipped port C_j is used for the robot).
    robot_angles : array_like (3, 5), optional
        Joint angles [rad] of R1, R2, R3; default zeros.
    dock : {1, 2}; carry_tile : bool; delta_omega : float
        Docked leg, tile carried (delta), normalised first array frequency (omega_1 (1 + 0.2 d)).
    with_structure, with_stack, with_robot : bool
        Drop blocks (e.g. hub + array only: all False). Inputs: [W_ext/B,G; W_ext/Fn,Cj].
    """
    if with_structure and n not in data.structures:
        raise ValueError(f"structure F_{n} has no shipped data; available: {sorted(data.structures)}")
    angles = np.zeros((3, 5)) if robot_angles is None else np.asarray(robot_angles, dtype=float)
    rG = data.r_G_P
    Gam = [frame_change_matrix(P).T @ tau(-r) for P, r in zip((data.P_a_b, data.P_f_b, data.P_s_b), rG[[0, 1, 2]])]
    GA, GF, GS = Gam
    LA = data.array_modes.L_P
    nA = LA.shape[0]
    cA, kA = _modes_with(data.array_modes, data.array_r_omega, delta_omega)
    M_GG = rigid_mass_matrix(data.hub_mass, data.hub_inertia) + GA.T @ data.array_D_P1 @ GA
    if with_stack:
        DS = stack_mass_matrix(data, n if with_structure else 0, carry_tile)
        if DS is not None:
            M_GG = M_GG + GS.T @ DS @ GS
    blocks_c, blocks_k = [np.zeros(6), cA], [np.zeros(6), kA]
    if with_structure:
        st = data.structures[n]
        LF, Phi = st.modes.L_P, st.Phi_C
        nF = LF.shape[0]
        tC = tau(-st.r_P2_C)
        Dr = robot_mass_matrix(data.robot, angles, dock, carry_tile) if with_robot else np.zeros((6, 6))
        M_GG = M_GG + GF.T @ (st.D_P2 + tC.T @ Dr @ tC) @ GF
        cF = 2.0 * st.modes.damping * st.modes.omega
        kF = st.modes.omega**2
        blocks_c.append(cF)
        blocks_k.append(kF)
    else:
        nF = 0
    nq = 6 + nA + nF
    M = np.zeros((nq, nq))
    M[:6, :6] = M_GG
    M[:6, 6:6 + nA] = GA.T @ LA.T
    M[6:6 + nA, 6:6 + nA] = np.eye(nA)
    F = np.zeros((nq, 12))
    F[:6, :6] = np.eye(6)
    if with_structure:
        M[:6, 6 + nA:] = GF.T @ (LF.T + tC.T @ Dr @ Phi)
        M[6 + nA:, 6 + nA:] = np.eye(nF) + Phi.T @ Dr @ Phi
        F[:6, 6:] = GF.T @ tC.T
        F[6 + nA:, 6:] = Phi.T
    M = np.triu(M) + np.triu(M, 1).T
    return SecondOrderModel(M=M, C=np.diag(np.concatenate(blocks_c)), K=np.diag(np.concatenate(blocks_k)), F=F)
