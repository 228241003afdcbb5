"""A clamped shell structure: assembled FE model, clamp constraints and clamped-free modes.

The structure is clamped at its parent point P (origin of the TITOP data) through an
*interface node* at P with 6 DOF ``[t; theta]``.  Nodes inside the clamp's rigid patches are
slaved to it (rigid motion about P); the interface node is tied to the hub by a 6 x 6 spring
(`Clamp.stiffness`), and the interface DOFs listed in `Clamp.rigid` are held fixed.  The
reduced coordinates are the DOFs of the non-slaved nodes plus the free interface DOFs,
``q_full = T q`` (relative to the rigid motion of P); the clamped-free problem is
``(T^T K T + S) phi = omega^2 (T^T M T) phi``.

The rigid field of P, ``R_P`` (n_dofs, 6), gives the TITOP projections (the
TITOP model, arXiv:2409.06017 section 2): ``L_P = Phi^T T^T M R_P``, ``D_P = R_P^T M R_P``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..spatial import skew
from .element import DOF_PER_NODE, shell_element
from .mesh import ShellMesh, assemble
from .reduction import port_data

__all__ = ["ShellMaterial", "Clamp", "ShellStructure", "Modes"]


@dataclass(frozen=True)
class ShellMaterial:
    """Homogeneous isotropic shell: thickness [m], E [Pa], nu [-], density [kg/m^3]."""

    thickness: float
    youngs_modulus: float
    poisson_ratio: float
    density: float

    def __post_init__(self):
        for name in ("thickness", "youngs_modulus", "density"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float, np.floating, np.integer)) and np.isfinite(value) and value > 0):
                raise ValueError(f"`{name}` must be a positive finite number; got {value!r}")
        nu = self.poisson_ratio
        if not (isinstance(nu, (int, float, np.floating)) and -1.0 < nu < 0.5):
            raise ValueError(f"`poisson_ratio` must be in (-1, 0.5); got {nu!r}")

    @property
    def areal_mass(self) -> float:
        """rho h [kg/m^2]."""
        return self.density * self.thickness


@dataclass(frozen=True)
class Clamp:
    """Clamp of a structure at its parent point P.

    Attributes
    ----------
    point : (2,)            P in the mesh coordinates [m]
    patches : tuple         boxes ``((cx, cy), (hx, hy))`` [m]: nodes inside are slaved rigidly to P
    stiffness : (6, 6)      spring between the interface node and the hub [N/m, N m/rad]
    rigid : (6,) bool       interface DOFs held fixed (infinite stiffness)
    """

    point: tuple
    patches: tuple
    stiffness: np.ndarray = field(default_factory=lambda: np.zeros((6, 6)))
    rigid: tuple = (True,) * 6


@dataclass(frozen=True)
class Modes:
    """Clamped-free modes, mass-normalised, sorted by frequency, signs fixed (largest |L| > 0).

    Attributes
    ----------
    omega : (m,)         [rad/s]
    shapes : (n_red, m)  in reduced coordinates
    L_P : (m, 6)         participation factors at P
    types : (m,)         "in-plane" / "out-of-plane" (by kinetic-energy share)
    """

    omega: np.ndarray
    shapes: np.ndarray
    L_P: np.ndarray
    types: tuple

    @property
    def frequencies_hz(self) -> np.ndarray:
        return self.omega / (2.0 * np.pi)


def rigid_field(coords_rel: np.ndarray) -> np.ndarray:
    """(5 n_nodes, 6): node DOFs ``[u, v, w, theta_x, theta_y]`` of the rigid motion ``[t; theta]``
    about the origin (z = 0 nodes): translation ``t + theta x r``."""
    n = len(coords_rel)
    r = np.column_stack([coords_rel, np.zeros(n)])
    R = np.zeros((n, DOF_PER_NODE, 6))
    R[:, :3, :3] = np.eye(3)
    R[:, :3, 3:] = -skew(r)
    R[:, 3, 3] = 1.0
    R[:, 4, 4] = 1.0
    return R.reshape(n * DOF_PER_NODE, 6)


class ShellStructure:
    """A clamped flat shell structure (built by :func:`satdyn.fe.tile_structure` or :func:`satdyn.fe.plate`).

    Parameters
    ----------
    mesh : ShellMesh
    material : ShellMaterial
    clamp : Clamp
    ports : dict name -> (x, y)      candidate child ports (tile centres, plate tip ...) [m]
    name : str                       default body name of its TITOP data
    damping : float                  modal damping ratio given to every mode
    description : str

    Attributes
    ----------
    K, M : sparse (5 n_nodes, 5 n_nodes)     unconstrained stiffness and consistent mass
    T : sparse (5 n_nodes, n_dofs)           constraint map, node DOFs = T q (relative to P's rigid motion)
    K_red, M_red : sparse (n_dofs, n_dofs)   clamped-free problem (latch spring included in K_red)
    R_P : (5 n_nodes, 6)                     rigid field of P ([t; theta] -> node DOFs)
    origin : (2,)                            P in mesh coordinates [m]
    """

    def __init__(self, mesh: ShellMesh, material: ShellMaterial, clamp: Clamp, ports: dict, *,
                 name: str = "F", damping: float = 0.005, description: str = ""):
        self.mesh = mesh
        self.material = material
        self.clamp = clamp
        self.ports = {str(k): np.asarray(v, dtype=float)[:2] for k, v in ports.items()}
        self.name = name
        self.damping = float(damping)
        self.description = description
        Ke, Me = shell_element(mesh.side, material.thickness, material.youngs_modulus,
                               material.poisson_ratio, material.density)
        self.K = assemble(mesh, Ke)
        self.M = assemble(mesh, Me)
        self.origin = np.asarray(clamp.point, dtype=float)[:2]
        self.coords_rel = mesh.coords - self.origin
        self.R_P = rigid_field(self.coords_rel)
        self._constrain()
        self._modes_cache: dict[int, Modes] = {}

    # -- constraints ---------------------------------------------------------------------
    def _constrain(self):
        mesh, clamp = self.mesh, self.clamp
        slaved = np.zeros(mesh.n_nodes, dtype=bool)
        for centre, half in clamp.patches:
            slaved[mesh.nodes_in_box(centre, half)] = True
        if not slaved.any():
            raise ValueError("the clamp's patches contain no mesh node")
        free_iface = np.flatnonzero(~np.asarray(clamp.rigid, dtype=bool))
        free_nodes = np.flatnonzero(~slaved)
        n_free = DOF_PER_NODE * len(free_nodes)
        n_red = n_free + len(free_iface)
        rows = [(DOF_PER_NODE * free_nodes[:, None] + np.arange(DOF_PER_NODE)).ravel()]
        cols = [np.arange(n_free)]
        vals = [np.ones(n_free)]
        if len(free_iface):
            Rs = rigid_field(self.coords_rel[slaved])[:, free_iface]            # slaved DOFs <- interface
            sdofs = (DOF_PER_NODE * np.flatnonzero(slaved)[:, None] + np.arange(DOF_PER_NODE)).ravel()
            r, c = np.nonzero(Rs)
            rows.append(sdofs[r])
            cols.append(n_free + c)
            vals.append(Rs[r, c])
        self.T = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                               shape=(mesh.n_dofs, n_red))
        self.slaved_nodes = np.flatnonzero(slaved)
        self.interface_dofs = free_iface
        Ks = np.asarray(clamp.stiffness, dtype=float)[np.ix_(free_iface, free_iface)]
        i, j = np.nonzero(Ks)
        S = sp.csc_matrix((Ks[i, j], (n_free + i, n_free + j)), shape=(n_red, n_red))
        self.K_red = (self.T.T @ self.K @ self.T + S).tocsc()
        self.M_red = (self.T.T @ self.M @ self.T).tocsc()
        self.MR = self.M @ self.R_P                       # (n_dofs, 6)
        self.TtMR = self.T.T @ self.MR                    # (n_red, 6)

    @property
    def n_dofs(self) -> int:
        """Number of reduced (free) coordinates."""
        return self.K_red.shape[0]

    @property
    def mass_matrix_at_P(self) -> np.ndarray:
        """D_P = R_P^T M R_P (6, 6): rigid mass matrix of the structure at P [kg, kg m, kg m^2]."""
        D = self.R_P.T @ self.MR
        return 0.5 * (D + D.T)

    # -- modes ---------------------------------------------------------------------------
    def modes(self, count: int) -> Modes:
        """The ``count`` lowest clamped-free modes (:class:`Modes`); cached per count."""
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not 1 <= count < self.n_dofs:
            raise ValueError(f"`n_modes` must be an int in 1..{self.n_dofs - 1}; got {count!r}")
        count = int(count)
        cached = [c for c in self._modes_cache if c >= count]
        if cached:
            m = self._modes_cache[min(cached)]
            return Modes(m.omega[:count], m.shapes[:, :count], m.L_P[:count], m.types[:count])
        n = self.n_dofs
        if n <= 600 or count > n // 3:
            lam, vec = sla.eigh(self.K_red.toarray(), self.M_red.toarray(), subset_by_index=(0, count - 1))
        else:
            # shift-invert about sigma = -1 rad^2/s^2: K + M is symmetric positive definite for
            # any clamp, so a symmetric fill-reducing order without pivoting is stable (2-4x
            # less fill than SuperLU's default column order on these grids)
            lu = spla.splu((self.K_red + self.M_red).tocsc(), permc_spec="MMD_AT_PLUS_A",
                           diag_pivot_thresh=0.0, options={"SymmetricMode": True})
            shift_invert = spla.LinearOperator((n, n), matvec=lu.solve, dtype=float)
            lam, vec = spla.eigsh(self.K_red, k=count, M=self.M_red, sigma=-1.0, which="LM",
                                  OPinv=shift_invert)
        order = np.argsort(lam)
        lam, vec = lam[order], vec[:, order]
        scale = self.K_red.diagonal().max() / self.M_red.diagonal().max()
        if lam[0] < 1e-11 * scale:
            # a zero-energy mechanism: omega^2 at round-off level of the stiffness/mass scale
            raise ValueError(f"`joints`: the structure has a zero-energy mechanism (lowest omega^2 = {lam[0]:.3g}, "
                             f"stiffness/mass scale {scale:.3g}); tiles joined at one point per edge rotate freely "
                             "in-plane (the shell has no drilling stiffness): join them at two or more points")
        vec = vec / np.sqrt(np.einsum("ij,ij->j", vec, self.M_red @ vec))
        L = vec.T @ self.TtMR
        vec, L = _fix_signs(vec, L)
        types = self._mode_types(vec)
        modes = Modes(np.sqrt(np.maximum(lam, 0.0)), vec, L, types)
        self._modes_cache[count] = modes
        return modes

    def _mode_types(self, vec: np.ndarray) -> tuple:
        full = self.T @ vec
        Mfull = self.M @ full
        energy = full * Mfull
        inplane = energy.reshape(self.mesh.n_nodes, DOF_PER_NODE, -1)[:, :2].sum(axis=(0, 1))
        total = energy.sum(axis=0)
        return tuple("in-plane" if ip > 0.5 * tot else "out-of-plane" for ip, tot in zip(inplane, total))

    def port_data(self, ports=None, **options):
        """TITOP data at P and the child ``ports`` (:func:`satdyn.fe.reduction.port_data`)."""
        return port_data(self, ports, **options)

    def full_shapes(self, modes: Modes) -> np.ndarray:
        """Mode shapes on every mesh node, (n_nodes, 5, m) (relative to the rigid motion of P)."""
        return (self.T @ modes.shapes).reshape(self.mesh.n_nodes, DOF_PER_NODE, -1)


def _fix_signs(vec: np.ndarray, L: np.ndarray):
    """Deterministic mode signs: the largest |L_P| entry positive; if a mode has (numerically)
    no participation at P, the largest entry of its shape."""
    scale = np.abs(L).max() if L.size else 0.0
    for j in range(vec.shape[1]):
        row = L[j]
        # first entry within 1e-6 of the largest magnitude: ties of +-equal entries (symmetric
        # structures) are broken by position, not by round-off
        if np.abs(row).max() > 1e-8 * max(scale, 1e-300):
            a = np.abs(row)
            s = np.sign(row[np.flatnonzero(a >= (1 - 1e-6) * a.max())[0]])
        else:
            a = np.abs(vec[:, j])
            s = np.sign(vec[np.flatnonzero(a >= (1 - 1e-6) * a.max())[0], j])
        if s < 0:
            vec[:, j] *= -1.0
            L[j] *= -1.0
    return vec, L
