"""The family F_1 ... F_28: TITOP data of every tile structure, generated once and cached on disk.

``tile_family(properties="S5", ...)`` returns a :class:`TileFamily` holding, for every n, the
lowest ``max_modes`` clamped-free modes (frequencies, types, L_P), the mode shapes at every
tile port (RBE3 feet by default) and D_P.  ``TileFamily.port_data(n, ports, n_modes)`` then
truncates to the requested modes: the same :class:`~satdyn.fe.reduction.PortData` as
``tile_structure(n).port_data(...)``.

Cache: ``$SATDYN_CACHE_DIR/fe`` (default ``$XDG_CACHE_HOME/satdyn/fe`` or
``~/.cache/satdyn/fe``), one ``.npz`` per input set, named by a hash of the inputs and of
:data:`FE_CODE_VERSION` (bumped whenever the element or reduction changes): regenerated only
when an input changes.  Files are written to a temporary name and renamed (atomic) and
carry a SHA-256 of their content (``checksum``); a cache file that cannot be read, lacks the
checksum, fails it or holds other inputs is regenerated with a :class:`CacheWarning` naming
the file, never trusted.
The file layout is documented in docs/fe.md (the titop assembly builder reads the shipped
default family, ``satdyn/data/fe/tile_family_S5.npz``, with numpy only).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..runtime import limit_blas_threads, progress
from .reduction import PortData, check_residual_mass, port_operator, select_mode_count
from .tiles import N_TILES, _check_int, resolve_tile_properties, tile_structure

__all__ = ["TileFamily", "tile_family", "cache_dir", "FE_CODE_VERSION", "family_key", "CacheWarning",
           "DamagedFileError"]

FE_CODE_VERSION = "fe-1"
_TYPE_CODES = ("out-of-plane", "in-plane")


class CacheWarning(UserWarning):
    """A disk-cache entry was damaged or foreign and is recomputed (the message names the file)."""


class DamagedFileError(ValueError):
    """A saved family file cannot be read back as written (truncated, corrupt, altered)."""


# what a damaged .npz can raise on reading: zip/deflate errors, missing or mistyped members
_READ_ERRORS = (OSError, EOFError, ValueError, KeyError, IndexError, TypeError, zipfile.BadZipFile, zlib.error)


def _checksum(arrays: dict) -> str:
    """SHA-256 of the arrays (name, dtype, shape, bytes) in name order."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def cache_dir() -> Path:
    """Folder of the FE cache (``SATDYN_CACHE_DIR`` / XDG cache / ``~/.cache/satdyn``) + ``/fe``."""
    root = os.environ.get("SATDYN_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "satdyn")
    return Path(root) / "fe"


@dataclass(frozen=True)
class TileFamily:
    """TITOP data of F_1 ... F_N (see the module docstring).

    Attributes
    ----------
    inputs : dict                 the generating inputs (properties, layout, joints, mesh, ports)
    frequencies : tuple of (m,)   clamped-free frequencies [rad/s] per n (index n - 1)
    types : tuple of (m,) str     mode types per n
    L_P : tuple of (m, 6)
    Phi : tuple of (n, 6, m)      mode shapes at the n tile ports
    r_P_C : tuple of (n, 3)       port positions from P2 [m]
    D_P : (N, 6, 6)
    damping : float
    """

    inputs: dict
    frequencies: tuple
    types: tuple
    L_P: tuple
    Phi: tuple
    r_P_C: tuple
    D_P: np.ndarray
    damping: float

    @property
    def n_structures(self) -> int:
        return len(self.frequencies)

    def frequencies_hz(self, n: int) -> np.ndarray:
        return self.frequencies[n - 1] / (2.0 * np.pi)

    def port_data(self, n: int, ports=None, *, n_modes=10, name: str | None = None,
                  frame: str | None = None, max_frequency_hz: float | None = None) -> PortData:
        """TITOP data of F_n at P2 and the tile ports ``ports`` (tile numbers; None: all);
        ``n_modes``: int or "auto" (below ``max_frequency_hz``, default 20 Hz, 6..20)."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= self.n_structures:
            raise ValueError(f"`n` must be an integer in 1..{self.n_structures}; got {n!r}")
        i = n - 1
        tiles = list(range(1, n + 1)) if ports is None else [ports] if np.isscalar(ports) else list(ports)
        for j in tiles:
            if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 1 <= j <= n:
                raise ValueError(f"`ports` must be tile numbers in 1..{n}; got {j!r}")
        count = select_mode_count(self.frequencies_hz(n), n_modes, max_frequency_hz)
        if count > len(self.frequencies[i]):
            raise ValueError(f"`n_modes` = {count} exceeds the {len(self.frequencies[i])} modes stored")
        L = self.L_P[i][:count]
        nm = f"F{n}" if name is None else name
        lam = check_residual_mass(self.D_P[i], L, nm)
        children = {f"C{j}": (self.r_P_C[i][j - 1].copy(), self.Phi[i][j - 1][:, :count].copy()) for j in tiles}
        return PortData(name=nm, D_P=self.D_P[i].copy(), frequencies=self.frequencies[i][:count].copy(),
                        damping=np.full(count, self.damping), L_P=L.copy(), children=children, frame=frame,
                        mode_types=tuple(self.types[i][:count]), residual_eigenvalues=lam,
                        port_model=self.inputs["port_model"],
                        description=f"tile structure F_{n} ({self.inputs['properties']['name']})")

    # -- storage -------------------------------------------------------------------------
    def save(self, path) -> Path:
        """Write the family to ``path`` (.npz) atomically (temporary file + rename)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays = {"inputs_json": np.array(json.dumps(self.inputs, sort_keys=True)),
                  "D_P": self.D_P, "damping": np.array(self.damping)}
        for i in range(self.n_structures):
            arrays[f"frequencies_{i + 1}"] = self.frequencies[i]
            arrays[f"types_{i + 1}"] = np.array([_TYPE_CODES.index(t) for t in self.types[i]], dtype=np.int8)
            arrays[f"L_P_{i + 1}"] = self.L_P[i]
            arrays[f"Phi_{i + 1}"] = self.Phi[i]
            arrays[f"r_P_C_{i + 1}"] = self.r_P_C[i]
        arrays["checksum"] = np.array(_checksum(arrays))
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez_compressed(fh, **arrays)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        return path

    @classmethod
    def load(cls, path, *, require_checksum: bool = False) -> "TileFamily":
        """Read a family written by :meth:`save` (a path or a binary file object).

        The content checksum written by :meth:`save` is verified when present (required with
        ``require_checksum``; files saved before it existed, like the shipped one, have none).

        Raises
        ------
        DamagedFileError
            The file is truncated, corrupt, altered (checksum) or not a family file.
        """
        where = str(path) if isinstance(path, (str, os.PathLike)) else str(getattr(path, "name", path))
        try:
            with np.load(path if hasattr(path, "read") else Path(path), allow_pickle=False) as z:
                arrays = {k: np.array(z[k]) for k in z.files}
        except FileNotFoundError:
            raise
        except _READ_ERRORS as exc:
            raise DamagedFileError(f"{where}: not a readable family file ({type(exc).__name__}: {exc})") from None
        stored = arrays.pop("checksum", None)
        if stored is None and require_checksum:
            raise DamagedFileError(f"{where}: no content checksum (written by an older satdyn or altered)")
        if stored is not None and str(stored) != _checksum(arrays):
            raise DamagedFileError(f"{where}: content checksum mismatch (altered or damaged)")
        try:
            inputs = json.loads(str(arrays["inputs_json"]))
            count = len(arrays["D_P"])
            get = lambda key: tuple(arrays[f"{key}_{i + 1}"] for i in range(count))   # noqa: E731
            types = tuple(tuple(_TYPE_CODES[c] for c in arrays[f"types_{i + 1}"]) for i in range(count))
            return cls(inputs=inputs, frequencies=get("frequencies"), types=types, L_P=get("L_P"),
                       Phi=get("Phi"), r_P_C=get("r_P_C"), D_P=arrays["D_P"], damping=float(arrays["damping"]))
        except _READ_ERRORS as exc:
            raise DamagedFileError(f"{where}: not a family file ({type(exc).__name__}: {exc})") from None


def family_key(inputs: dict) -> str:
    """Hash of the generating inputs and the FE code version (the cache file name)."""
    text = json.dumps({"inputs": inputs, "code": FE_CODE_VERSION}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _family_inputs(properties, layout, joints, join_fractions, elements_per_edge, port_model, foot_radius,
                   max_modes, n_structures) -> dict:
    props = resolve_tile_properties(properties)
    return {"properties": {"name": props.name, **props.key()}, "layout": layout, "joints": joints,
            "join_fractions": [float(f) for f in join_fractions] if joints == "points" else [],
            "elements_per_edge": int(elements_per_edge), "port_model": port_model,
            "foot_radius": float(foot_radius), "max_modes": int(max_modes), "n_structures": int(n_structures)}


def _one_structure(n: int, inputs: dict, properties):
    """(omega, types, L_P, Phi at every tile port, r_P_C, D_P) of F_n (a pool task)."""
    with limit_blas_threads():
        st = tile_structure(n, properties=properties, layout=inputs["layout"], joints=inputs["joints"],
                            join_fractions=tuple(inputs["join_fractions"]) or (0.25, 0.75),
                            elements_per_edge=inputs["elements_per_edge"])
        modes = st.modes(min(inputs["max_modes"], st.n_dofs - 1))
        full = st.T @ modes.shapes
        pts = [st.ports[f"C{j}"] for j in range(1, n + 1)]
        Phi = np.stack([np.asarray(port_operator(st, p, inputs["port_model"], inputs["foot_radius"]) @ full)
                        for p in pts])
        r = np.array([np.append(p - st.origin, 0.0) for p in pts])
        return modes.omega, modes.types, modes.L_P, Phi, r, st.mass_matrix_at_P


def generate_family(inputs: dict, properties, show_progress: bool = True, workers: int = 1) -> TileFamily:
    """Build and reduce every F_n (no cache); ``workers > 1``: a local process pool (the
    largest structures first), same results."""
    ns = list(range(1, inputs["n_structures"] + 1))
    bar = progress(total=len(ns), desc="FE tile structures") if show_progress else None
    results = {}
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_one_structure, n, inputs, properties): n for n in reversed(ns)}
            for fut in as_completed(futures):
                results[futures[fut]] = fut.result()
                if bar is not None:
                    bar.update(1)
    else:
        for n in ns:
            results[n] = _one_structure(n, inputs, properties)
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    freqs, types, Ls, Phis, rs, Ds = zip(*(results[n] for n in ns))
    return TileFamily(inputs=inputs, frequencies=tuple(freqs), types=tuple(types), L_P=tuple(Ls), Phi=tuple(Phis),
                      r_P_C=tuple(rs), D_P=np.array(Ds), damping=float(inputs["properties"]["damping"]))


def tile_family(properties="S5", *, layout: str = "B", joints: str = "continuous", join_fractions=(0.25, 0.75),
                elements_per_edge: int = 8, port_model: str = "rbe3", foot_radius: float = 0.125,
                max_modes: int = 20, n_structures: int = N_TILES, cache: bool = True,
                show_progress: bool = True, workers: int = 1) -> TileFamily:
    """TITOP data of F_1 ... F_{n_structures} (all tile ports), from the disk cache when present.

    Parameters are those of :func:`~satdyn.fe.tile_structure` and
    :func:`~satdyn.fe.reduction.port_data`; ``max_modes`` modes are stored (20 covers
    ``n_modes="auto"``).  ``cache=False`` always regenerates and writes nothing.  ``workers``:
    processes of a local pool for the generation (1: in this process; identical results).
    """
    from .reduction import PORT_MODELS
    from .tiles import LAYOUTS, JOINTS

    if layout not in LAYOUTS:
        raise ValueError(f"`layout` must be one of {LAYOUTS}; got {layout!r}")
    if joints not in JOINTS:
        raise ValueError(f"`joints` must be one of {JOINTS}; got {joints!r}")
    if port_model not in PORT_MODELS:
        raise ValueError(f"`port_model` must be one of {PORT_MODELS}; got {port_model!r}")
    if isinstance(max_modes, bool) or not isinstance(max_modes, (int, np.integer)) or not 1 <= max_modes <= 100:
        raise ValueError(f"`max_modes` must be an integer in 1..100; got {max_modes!r}")
    if (isinstance(n_structures, bool) or not isinstance(n_structures, (int, np.integer))
            or not 1 <= n_structures <= N_TILES):
        raise ValueError(f"`n_structures` must be an integer in 1..{N_TILES}; got {n_structures!r}")
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"`workers` must be a positive int; got {workers!r}")
    _check_int(elements_per_edge, "elements_per_edge", 1, 256)
    if not (isinstance(foot_radius, (int, float, np.floating)) and foot_radius > 0):
        raise ValueError(f"`foot_radius` must be a positive number [m]; got {foot_radius!r}")
    inputs = _family_inputs(properties, layout, joints, join_fractions, elements_per_edge, port_model,
                            foot_radius, max_modes, n_structures)
    path = cache_dir() / f"tile_family_{family_key(inputs)}.npz"
    if cache and path.exists():
        try:
            fam = TileFamily.load(path, require_checksum=True)
            if fam.inputs == inputs:
                return fam
            problem = f"{path}: holds the family of other inputs"
        except (OSError, DamagedFileError) as exc:
            problem = str(exc) if isinstance(exc, DamagedFileError) else f"{path}: {exc}"
        # a damaged or foreign file is never trusted: regenerated and overwritten
        warnings.warn(f"FE family cache {problem}; regenerating it", CacheWarning, stacklevel=2)
    fam = generate_family(inputs, properties, show_progress, int(workers))
    if cache:
        try:
            fam.save(path)
        except OSError:
            pass                     # a read-only cache is not an error: the data is returned
    return fam
