"""Modal reduction of a clamped shell structure to TITOP port data.

``port_data(structure, ports, n_modes=10, port_model="rbe3", foot_radius=0.125)`` returns a
:class:`PortData`: exactly the keyword arguments of :func:`satdyn.titop.flexible_body`
(``name, D_P, frequencies, damping, L_P, children, frame``), so that
``flexible_body(**port_data(...))`` builds the TITOP model.  It also carries the diagnostics
(frequencies in Hz, mode types, residual-mass eigenvalues).

Port models (the 6-vector ``[t; theta]`` of a child port C from the node DOFs):

* ``"rbe3"`` (default): an RBE3-like foot, the least-squares rigid motion of the node
  translations within ``|x - cx|, |y - cy| <= r``, r = max(foot_radius, element side) (adds no
  stiffness);
* ``"node"``: the node nearest C, with theta_z = (dv/dx - du/dy) / 2 by central differences
  of the membrane field (the element has no drilling DOF).

Mode selection: an int (the paper keeps 3; default 10), or ``"auto"``: every mode below
``max_frequency_hz`` (20 Hz), at least 6 and at most 20.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .._validation import SatdynInputError
from ..spatial import skew
from .element import DOF_PER_NODE

__all__ = ["PortData", "port_operator", "port_data", "select_mode_count", "PORT_MODELS",
           "ResidualMassError", "check_residual_mass", "AUTO_MODES"]

PORT_MODELS = ("rbe3", "node")
AUTO_MODES = {"max_frequency_hz": 20.0, "min_modes": 6, "max_modes": 20}
RESIDUAL_RTOL = 1e-9


class ResidualMassError(SatdynInputError):
    """The residual mass D_P - L_P^T L_P of the reduced data is not positive definite."""


def check_residual_mass(D_P, L_P, name: str = "structure") -> np.ndarray:
    """Eigenvalues of ``D_P - L_P^T L_P`` (ascending); raises :class:`ResidualMassError` unless
    ``lambda_min > -1e-9 lambda_max`` (the relative tolerance: the tiny Rz eigenvalue of a
    spring-mounted structure, ~1e-8 relative, is physical and must pass)."""
    R = np.asarray(D_P) - np.asarray(L_P).T @ np.asarray(L_P)
    lam = np.linalg.eigvalsh(0.5 * (R + R.T))
    if lam[0] <= -RESIDUAL_RTOL * lam[-1]:
        raise ResidualMassError(f"{name}: residual mass D_P - L_P^T L_P is not positive definite "
                                f"(eigenvalues {lam[0]:.3g} ... {lam[-1]:.3g})")
    return lam


@dataclass(frozen=True)
class PortData(Mapping):
    """TITOP data of a flexible structure; a mapping of the :func:`satdyn.titop.flexible_body` inputs.

    Keys (``flexible_body(**data)``): ``name``; ``D_P`` (6, 6) rigid mass matrix at P;
    ``frequencies`` (m,) [rad/s]; ``damping`` (m,); ``L_P`` (m, 6); ``children`` {port:
    (r_PC (3,) [m], Phi_C (6, m))}; ``frame``.

    Attributes (diagnostics): ``frequencies_hz``, ``mode_types``, ``residual_eigenvalues``
    (ascending eigenvalues of D_P - L_P^T L_P), ``port_model``, ``description``.
    """

    name: str
    D_P: np.ndarray
    frequencies: np.ndarray
    damping: np.ndarray
    L_P: np.ndarray
    children: dict
    frame: str | None = None
    mode_types: tuple = ()
    residual_eigenvalues: np.ndarray = field(default_factory=lambda: np.zeros(6))
    port_model: str = "rbe3"
    description: str = ""

    _KEYS = ("name", "D_P", "frequencies", "damping", "L_P", "children", "frame")

    def __getitem__(self, key):
        if key not in self._KEYS:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self):
        return iter(self._KEYS)

    def __len__(self):
        return len(self._KEYS)

    @property
    def frequencies_hz(self) -> np.ndarray:
        return self.frequencies / (2.0 * np.pi)

    @property
    def residual_condition(self) -> float:
        """lambda_max / lambda_min of the residual mass (large: nearly singular, e.g. in Rz)."""
        lam = self.residual_eigenvalues
        return float(lam[-1] / lam[0]) if lam[0] > 0 else np.inf


def select_mode_count(frequencies_hz, n_modes, max_frequency_hz: float | None = None) -> int:
    """Number of modes kept: ``n_modes`` (int >= 1) or ``"auto"``: the modes below
    ``max_frequency_hz`` (default 20 Hz), at least 6 and at most 20."""
    if isinstance(n_modes, str):
        if n_modes != "auto":
            raise ValueError(f"`n_modes` must be a positive int or 'auto'; got {n_modes!r}")
        limit = AUTO_MODES["max_frequency_hz"] if max_frequency_hz is None else max_frequency_hz
        if not (isinstance(limit, (int, float, np.floating)) and limit > 0):
            raise ValueError(f"`max_frequency_hz` must be a positive number [Hz]; got {limit!r}")
        below = int(np.sum(np.asarray(frequencies_hz) < limit))
        return int(np.clip(below, AUTO_MODES["min_modes"], AUTO_MODES["max_modes"]))
    if isinstance(n_modes, bool) or not isinstance(n_modes, (int, np.integer)) or n_modes < 1:
        raise ValueError(f"`n_modes` must be a positive int or 'auto'; got {n_modes!r}")
    return int(n_modes)


def port_operator(structure, point, port_model: str = "rbe3",
                  foot_radius: float = 0.125) -> sp.csr_matrix:
    """(6, n_full_dofs) sparse map from node DOFs to the port 6-vector ``[t; theta]`` at ``point``."""
    mesh = structure.mesh
    c = np.asarray(point, dtype=float)[:2]
    n_full = mesh.n_dofs
    if port_model == "rbe3":
        radius = max(float(foot_radius), mesh.side)      # at least the centre node's neighbours
        nodes = mesh.nodes_in_box(c, (radius, radius))
        rho = np.column_stack([mesh.coords[nodes] - c, np.zeros(len(nodes))])
        A = np.zeros((len(nodes), 3, 6))              # node translation = t - skew(rho) theta
        A[:, :, :3] = np.eye(3)
        A[:, :, 3:] = -skew(rho)
        A = A.reshape(-1, 6)
        if len(nodes) < 3 or np.linalg.matrix_rank(A) < 6:
            raise ValueError(f"`foot_radius` {foot_radius!r} m holds too few nodes at {tuple(c)} for a rigid fit")
        G = np.linalg.solve(A.T @ A, A.T)            # (6, 3 n_nodes)
        cols = (DOF_PER_NODE * nodes[:, None] + np.arange(3)).ravel()
        return sp.csr_matrix((G.ravel(), (np.repeat(np.arange(6), len(cols)), np.tile(cols, 6))),
                             shape=(6, n_full))
    if port_model == "node":
        j = mesh.nearest_node(c)
        x0 = mesh.coords[j]
        a = mesh.side
        rows, cols, vals = list(range(5)), [DOF_PER_NODE * j + d for d in range(5)], [1.0] * 5
        # theta_z = (dv/dx - du/dy) / 2, central differences (one-sided at the mesh boundary)
        for axis, dof, sign in ((0, 1, 0.5), (1, 0, -0.5)):
            step = np.zeros(2)
            step[axis] = a
            plus = [k for k in (mesh.nearest_node(x0 + step),) if np.allclose(mesh.coords[k], x0 + step)]
            minus = [k for k in (mesh.nearest_node(x0 - step),) if np.allclose(mesh.coords[k], x0 - step)]
            hi, lo = (plus[0], x0 + step) if plus else (j, x0), (minus[0], x0 - step) if minus else (j, x0)
            dist = hi[1][axis] - lo[1][axis]
            rows += [5, 5]
            cols += [DOF_PER_NODE * hi[0] + dof, DOF_PER_NODE * lo[0] + dof]
            vals += [sign / dist, -sign / dist]
        return sp.csr_matrix((vals, (rows, cols)), shape=(6, n_full))
    raise ValueError(f"`port_model` must be one of {PORT_MODELS}; got {port_model!r}")


def _resolve_ports(structure, ports):
    if ports is None:
        return dict(structure.ports)
    if isinstance(ports, (str, int, np.integer)):
        ports = [ports]
    out = {}
    for p in ports:
        key = f"C{int(p)}" if isinstance(p, (int, np.integer)) and not isinstance(p, bool) else p
        if key not in structure.ports:
            raise ValueError(f"`ports`: unknown port {p!r}; available: {list(structure.ports)}")
        out[key] = structure.ports[key]
    return out


def port_data(structure, ports=None, *, n_modes=10, port_model: str = "rbe3",
              foot_radius: float = 0.125, name: str | None = None, frame: str | None = None,
              damping: float | None = None, max_frequency_hz: float | None = None) -> PortData:
    """TITOP data of ``structure`` at its parent point P and the child ``ports``.

    Parameters
    ----------
    structure : ShellStructure
    ports : None, int, str or sequence
        Child ports: names ("C5", "tip") or tile numbers (5 -> "C5"); None: every port.
    n_modes : int or "auto"
        Modes kept (3: the paper's setting; default 10; "auto": all below ``max_frequency_hz``
        (default 20 Hz), at least 6, at most 20).
    port_model : {"rbe3", "node"}; foot_radius : float [m]
    name, frame : str, optional
        Body name (default: the structure's) and frame label of the TITOP model.
    damping : float, optional
        Modal damping ratio (default: the structure's, 0.005).

    Raises :class:`ResidualMassError` if the residual mass is not positive definite.
    """
    if port_model not in PORT_MODELS:
        raise ValueError(f"`port_model` must be one of {PORT_MODELS}; got {port_model!r}")
    if not (isinstance(foot_radius, (int, float, np.floating)) and foot_radius > 0):
        raise ValueError(f"`foot_radius` must be a positive number [m]; got {foot_radius!r}")
    if damping is not None and not (isinstance(damping, (int, float, np.floating)) and 0.0 <= damping < 1.0):
        raise ValueError(f"`damping` must be a ratio in [0, 1); got {damping!r}")
    selected = _resolve_ports(structure, ports)
    if n_modes == "auto":
        probe = structure.modes(min(AUTO_MODES["max_modes"], structure.n_dofs - 1))
        count = select_mode_count(probe.frequencies_hz, "auto", max_frequency_hz)
    else:
        count = select_mode_count(None, n_modes)
    modes = structure.modes(count)
    full = structure.T @ modes.shapes
    children = {}
    for key, point in selected.items():
        G = port_operator(structure, point, port_model, foot_radius)
        children[key] = (np.append(point - structure.origin, 0.0), np.asarray(G @ full))
    D = structure.mass_matrix_at_P
    nm = structure.name if name is None else name
    lam = check_residual_mass(D, modes.L_P, nm)
    xi = structure.damping if damping is None else float(damping)
    return PortData(name=nm, D_P=D, frequencies=modes.omega.copy(), damping=np.full(count, xi),
                    L_P=modes.L_P.copy(), children=children, frame=frame, mode_types=modes.types,
                    residual_eigenvalues=lam, port_model=port_model, description=structure.description)
