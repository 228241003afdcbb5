"""Mode-shape views: a deformed mesh animated, a mode selector, frequencies in Hz and rad/s,
an amplitude slider and the undeformed mesh as a grey wireframe ghost.

* :func:`mode_shapes` -- a :class:`satdyn.fe.ShellStructure` (``tile_structure(n)``, ``plate(...)``);
* :func:`mode_shapes_mesh` -- any flexible body whose shapes are given on a grid of nodes
  (nodes, triangles or quadrilaterals, translations per node and mode, frequencies).

Each shape is scaled to a largest nodal displacement of 1 and shown as
``x(t) = x0 + amplitude * sin(2 pi t / period) * shape``; ``period`` is a display period, not
the mode's.  Colours show |shape| (viridis).
"""

from __future__ import annotations

import numpy as np

from .scene import Scene, VizInputError, fit_camera, rounded

__all__ = ["mode_shapes", "mode_shapes_mesh"]

DISPLAY_PERIOD = 2.0          # [s] of one animation cycle, whatever the mode's frequency
DEFAULT_AMPLITUDE = 0.08      # largest displacement shown, fraction of the mesh's largest dimension


def _int_count(value, name, hi):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= hi:
        raise VizInputError(f"`{name}` must be an int in 1..{hi}; got {value!r}")
    return int(value)


def mode_shapes(structure, n_modes: int = 6, *, amplitude: float | None = None, title: str | None = None) -> Scene:
    """Animated mode shapes of a FE shell structure.

    Parameters
    ----------
    structure : satdyn.fe.ShellStructure
        E.g. ``fe.tile_structure(n=17)`` or ``fe.plate(...)``; its ``modes(n_modes)`` are computed
        (cached by the structure).
    n_modes : int
        Number of lowest modes offered by the selector.
    amplitude : float, optional
        Largest displacement shown at start [m] (default 8 % of the mesh's largest dimension).
    title : str, optional

    Returns
    -------
    Scene
        ``.save("modes.html")``; hash ``#mode=k&t=...&amp=...`` (k from 1).
    """
    for attr in ("mesh", "modes", "full_shapes"):
        if not hasattr(structure, attr):
            raise VizInputError(f"`structure` must be a satdyn.fe.ShellStructure; got {type(structure).__name__}")
    n_modes = _int_count(n_modes, "n_modes", structure.n_dofs - 1)
    modes = structure.modes(n_modes)
    shapes = structure.full_shapes(modes)[:, :3, :]                  # (n_nodes, 3, m): u, v, w [m per modal unit]
    mesh = structure.mesh
    nodes = np.column_stack([mesh.coords, np.zeros(mesh.n_nodes)])
    return mode_shapes_mesh(nodes, mesh.elements, shapes, modes.omega, kinds=modes.types, amplitude=amplitude,
                            title=title or f"{structure.name}: {structure.description or 'mode shapes'}")


def _faces(faces, n_nodes):
    f = np.asarray(faces)
    if f.ndim != 2 or f.shape[1] not in (3, 4) or not np.issubdtype(f.dtype, np.integer):
        raise VizInputError(f"`faces` must be an int array (n_faces, 3) or (n_faces, 4); got shape {f.shape}, dtype "
                            f"{f.dtype}")
    if f.size and (f.min() < 0 or f.max() >= n_nodes):
        raise VizInputError(f"`faces` must index the {n_nodes} nodes (0..{n_nodes - 1}); got {f.min()}..{f.max()}")
    if f.shape[1] == 3:
        return f, np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]])
    tris = np.concatenate([f[:, [0, 1, 2]], f[:, [0, 2, 3]]])
    edges = np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 3]], f[:, [3, 0]]])
    return tris, edges


def mode_shapes_mesh(nodes, faces, shapes, omega, *, kinds=None, amplitude: float | None = None,
                     title: str = "mode shapes") -> Scene:
    """Animated mode shapes of any body meshed by triangles or quadrilaterals.

    Parameters
    ----------
    nodes : (n, 3) or (n, 2)
        Undeformed node positions [m] (z = 0 when 2 columns).
    faces : (n_faces, 3) or (n_faces, 4) int
        Node indices of triangles or quadrilaterals (quadrilaterals are split for drawing; their
        edges make the ghost wireframe).
    shapes : (n, 3, m) or (n, m)
        Translations of every node in every mode (any normalisation), or out-of-plane (z)
        displacements only.
    omega : (m,)
        Natural frequencies [rad/s] (shown with f = omega / 2 pi in Hz).
    kinds : sequence of m str, optional
        A label per mode (e.g. "in-plane" / "out-of-plane").
    amplitude : float, optional
        Largest displacement shown at start [m].
    title : str

    Returns
    -------
    Scene
    """
    x = np.asarray(nodes, dtype=float)
    if x.ndim != 2 or x.shape[1] not in (2, 3) or len(x) < 3:
        raise VizInputError(f"`nodes` must have shape (n, 3) or (n, 2) with n >= 3 [m]; got {x.shape}")
    if x.shape[1] == 2:
        x = np.column_stack([x, np.zeros(len(x))])
    n = len(x)
    tris, edges = _faces(faces, n)
    s = np.asarray(shapes, dtype=float)
    if s.ndim == 2 and s.shape[0] == n:
        s = np.stack([np.zeros_like(s), np.zeros_like(s), s], axis=1)
    if s.ndim != 3 or s.shape[:2] != (n, 3):
        raise VizInputError(f"`shapes` must have shape ({n}, 3, m) or ({n}, m); got {np.shape(shapes)}")
    w = np.asarray(omega, dtype=float).ravel()
    m = s.shape[2]
    if w.shape != (m,) or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise VizInputError(f"`omega` must hold {m} finite non-negative frequencies [rad/s]; got shape {w.shape}")
    if kinds is not None and len(kinds) != m:
        raise VizInputError(f"`kinds` must have one label per mode ({m}); got {len(kinds)}")
    if not np.all(np.isfinite(x)) or not np.all(np.isfinite(s)):
        raise VizInputError("`nodes` and `shapes` must be finite")
    size = float(np.ptp(x, axis=0).max())
    if amplitude is None:
        amplitude = DEFAULT_AMPLITUDE * size
    if not (np.isfinite(amplitude) and amplitude > 0):
        raise VizInputError(f"`amplitude` must be a positive number [m]; got {amplitude!r}")
    peak = np.linalg.norm(s, axis=1).max(axis=0)                      # (m,) largest nodal displacement
    unit = s / np.where(peak > 0, peak, 1.0)
    modes = []
    for j in range(m):
        label = f"mode {j + 1}: {w[j] / (2 * np.pi):.4g} Hz"
        modes.append({"label": label, "omega": float(w[j]), "hz": float(w[j] / (2 * np.pi)),
                      "type": "" if kinds is None else str(kinds[j]), "shape": rounded(unit[:, :, j], 5)})
    lo, hi = x.min(axis=0) - amplitude, x.max(axis=0) + amplitude
    data = {"modes": {"nodes": rounded(x), "triangles": tris.ravel().tolist(), "edges": edges.ravel().tolist(),
                      "modes": modes, "amplitude": float(amplitude), "period": DISPLAY_PERIOD}}
    return Scene("modes", data, title=title, camera=fit_camera(lo, hi))
