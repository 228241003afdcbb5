"""NASTRAN normal-modes results (SOL 103) -> TITOP modal data.

``read_f06(path)`` reads the fixed-layout text tables of an F06 file (MSC Nastran and
NX/Simcenter Nastran):

* ``R E A L   E I G E N V A L U E S`` -- mode, extraction order, eigenvalue, radians,
  cycles, generalised mass, generalised stiffness;
* ``R E A L   E I G E N V E C T O R   N O .  k`` -- grid-point rows ``ID  G  T1 T2 T3 R1 R2 R3``;
* ``MODAL PARTICIPATION FACTORS`` and ``MODAL EFFECTIVE MASS`` (case control ``MEFFMASS``):
  MSC prints one table with the six columns T1..R3; NX prints it in two parts, headed
  ``(FOR TRANSLATIONAL DEGREES OF FREEDOM)`` (T1 T2 T3) and ``(FOR ROTATIONAL DEGREES OF
  FREEDOM)`` (R1 R2 R3);
* ``O U T P U T   F R O M   G R I D   P O I N T   W E I G H T   G E N E R A T O R`` (``PARAM,GRDPNT``):
  the reference point and the 6x6 rigid-body mass matrix ``MO`` about it.

Tables may continue over pages (the page header lines are skipped). ``read_op2`` reads the
same results from an OP2 file through pyNastran (optional extra ``satdyn[nastran]``: it
needs numpy < 2, so it is kept out of the base install).

``modal_table_from_nastran(path, interface_grid, ports=...)`` turns a run of the appendage
*clamped at its interface grid* (MEFFMASS and GRDPNT referred to that grid) into a
:class:`~satdyn.io.modal.ModalTable`. NASTRAN's participation factor of mode j is
``Gamma_j = phi_j^T M D_r / m_j`` with ``m_j`` the generalised mass of the printed
(MASS-, MAX- or POINT-normalised) eigenvector ``phi_j``; the TITOP factor of the
mass-normalised mode ``phi_j / sqrt(m_j)`` is ``L_j = Gamma_j sqrt(m_j)``, and the mode
shape at a port grid is ``phi_j(grid) / sqrt(m_j)``. The effective mass ``Gamma_j^2 m_j``
printed next to it is checked against ``L_j^2``. Units: the run's (state them with
``length_unit`` / ``mass_unit``; mm-t-s is converted to SI).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import ModelFileError
from .modal import LENGTH_UNITS, MASS_UNITS, ModalTable, si_factors

__all__ = ["F06Results", "read_f06", "read_op2", "modal_table_from_nastran"]

_FLOAT = r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[EeDd][-+]?\d+)?"
_ROW_EIG = re.compile(rf"^\s*(\d+)\s+(\d+)\s+({_FLOAT})\s+({_FLOAT})\s+({_FLOAT})\s+({_FLOAT})\s+({_FLOAT})\s*$")
_ROW_VEC = re.compile(rf"^\s*(\d+)\s+([GS])\s+((?:{_FLOAT}\s+){{5}}{_FLOAT})\s*$")
_ROW_MODE = re.compile(rf"^\s*(\d+)\s+((?:{_FLOAT}\s+)*{_FLOAT})\s*$")
_VEC_TITLE = re.compile(r"R E A L\s+E I G E N V E C T O R\s+N O \.\s+(\d+)")
_SPACED_TITLE = re.compile(r"(?:\b[A-Z] ){4,}")
_SUBCASE = re.compile(r"SUBCASE\s+(\d+)")
_GPWG_ROW = re.compile(rf"^\s*\*\s*((?:{_FLOAT}\s+){{5}}{_FLOAT})\s*\*\s*$")


@dataclass(frozen=True)
class F06Results:
    """Normal-modes tables of one subcase.

    Attributes
    ----------
    modes : (n,) int                    mode numbers
    eigenvalues, radians, cycles : (n,)  [rad^2/s^2], [rad/s], [Hz]
    generalized_mass, generalized_stiffness : (n,)
    eigenvectors : dict grid -> (n, 6)  printed eigenvectors (NaN where a mode lacks the grid)
    participation_factors, effective_masses : (n, 6) or None   (MEFFMASS)
    reference_point : int or None; rigid_mass : (6, 6) or None  (grid point weight generator MO)
    layout : "MSC" or "NX"
    """

    modes: np.ndarray
    eigenvalues: np.ndarray
    radians: np.ndarray
    cycles: np.ndarray
    generalized_mass: np.ndarray
    generalized_stiffness: np.ndarray
    eigenvectors: dict = field(repr=False)
    participation_factors: np.ndarray | None = field(default=None, repr=False)
    effective_masses: np.ndarray | None = field(default=None, repr=False)
    reference_point: int | None = None
    rigid_mass: np.ndarray | None = field(default=None, repr=False)
    layout: str = "MSC"


def _floats(text):
    return [float(x.replace("D", "E").replace("d", "e")) for x in text.split()]


def read_f06(path, subcase: int | None = None) -> F06Results:
    """Parse the normal-modes tables of an F06 file (module docstring).

    ``subcase``: keep the eigenvectors / MEFFMASS of that subcase (default: the first one met).
    """
    p = Path(path)
    if not p.is_file():
        raise ModelFileError(p, "<root>", "an existing NASTRAN .f06 file")
    lines = p.read_text(errors="replace").splitlines()
    layout = "NX" if any(("SIMCENTER NASTRAN" in s or "NX NASTRAN" in s) for s in lines[:400]) else "MSC"
    eig = {}
    vectors: dict[int, dict[int, np.ndarray]] = {}
    tables = {"participation": {}, "effective": {}}
    state, part, vec_mode, current_subcase, wanted = None, None, None, None, subcase
    gpwg_ref, gpwg_rows, in_mo = None, [], False
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if line.startswith("1"):          # page header (carriage control '1'): tables continue
            continue
        m = _SUBCASE.search(line)
        if m and not _ROW_MODE.match(line):
            current_subcase = int(m.group(1))
            if wanted is None:
                wanted = current_subcase
        upper = line.upper()
        if "R E A L   E I G E N V A L U E S" in upper:
            state = "eig"
            continue
        mv = _VEC_TITLE.search(upper)
        if mv:
            state, vec_mode = "vec", int(mv.group(1))
            continue
        if "MODAL PARTICIPATION FACTORS" in upper:
            state, part = "participation", "ALL"
            continue
        if "MODAL EFFECTIVE MASS FRACTION" in upper:
            state = None
            continue
        if "MODAL EFFECTIVE MASS" in upper:
            state, part = "effective", "ALL"
            continue
        if "FOR TRANSLATIONAL DEGREES OF FREEDOM" in upper and state in tables:
            part = "T"
            continue
        if "FOR ROTATIONAL DEGREES OF FREEDOM" in upper and state in tables:
            part = "R"
            continue
        if "G R I D   P O I N T   W E I G H T   G E N E R A T O R" in upper:
            state, gpwg_rows = "gpwg", []
            continue
        if state == "gpwg":
            if "REFERENCE POINT" in upper:
                gpwg_ref = int(line.split("=")[1].split()[0])
            elif upper.strip() == "M O":
                in_mo = True
            elif in_mo:
                g = _GPWG_ROW.match(line)
                if g and len(gpwg_rows) < 6:
                    gpwg_rows.append(_floats(g.group(1)))
                if len(gpwg_rows) == 6:
                    in_mo, state = False, None
            continue
        if _SPACED_TITLE.search(upper) and "EIGENVALUE" not in upper:
            state = None                  # some other table begins
            continue
        if state == "eig":
            r = _ROW_EIG.match(line)
            if r:
                vals = _floats(" ".join(r.groups()[2:]))
                eig[int(r.group(1))] = vals
        elif state == "vec" and (wanted is None or current_subcase in (None, wanted)):
            r = _ROW_VEC.match(line)
            if r:
                vectors.setdefault(int(r.group(1)), {})[vec_mode] = np.array(_floats(r.group(3)))
        elif state in tables and (wanted is None or current_subcase in (None, wanted)):
            r = _ROW_MODE.match(line)
            if r:
                vals = _floats(r.group(2))
                cols = {"ALL": ("T1", "T2", "T3", "R1", "R2", "R3"), "T": ("T1", "T2", "T3"),
                        "R": ("R1", "R2", "R3")}[part]
                if len(vals) != len(cols) + 1:
                    raise ModelFileError(p, f"{state} table, mode {r.group(1)}",
                                         f"a frequency and {len(cols)} values ({'/'.join(cols)})", lineno)
                tables[state].setdefault(int(r.group(1)), {}).update(dict(zip(cols, vals[1:])))
    if not eig:
        raise ModelFileError(p, "R E A L   E I G E N V A L U E S", "the real eigenvalue table of a SOL 103 run")
    modes = np.array(sorted(eig))
    E = np.array([eig[k] for k in modes])
    n = modes.size
    grids = {}
    for gid, per_mode in vectors.items():
        arr = np.full((n, 6), np.nan)
        for i, k in enumerate(modes):
            if k in per_mode:
                arr[i] = per_mode[k]
        grids[gid] = arr

    def stack(table):
        if not table:
            return None
        out = np.full((n, 6), np.nan)
        for i, k in enumerate(modes):
            row = table.get(int(k))
            if row:
                for c, name in enumerate(("T1", "T2", "T3", "R1", "R2", "R3")):
                    out[i, c] = row.get(name, np.nan)
        return out

    rigid = np.array(gpwg_rows) if len(gpwg_rows) == 6 else None
    return F06Results(modes, E[:, 0], E[:, 1], E[:, 2], E[:, 3], E[:, 4], grids,
                      stack(tables["participation"]), stack(tables["effective"]), gpwg_ref, rigid, layout)


def read_op2(path):
    """Read normal-modes results from an OP2 file with pyNastran -> :class:`F06Results`.

    Needs the optional extra ``pip install satdyn[nastran]`` (pyNastran, which requires
    numpy < 2: install it in an environment of its own).
    """
    try:
        from pyNastran.op2.op2 import read_op2 as _pyn_read_op2
    except ImportError:
        raise ImportError("reading OP2 files needs pyNastran: `pip install satdyn[nastran]` in an environment "
                          "with numpy < 2 (pyNastran 1.4 requires it); or write the F06 text output "
                          "(ECHO/PRINT) and use read_f06") from None
    op2 = _pyn_read_op2(str(path), build_dataframe=False, debug=None)
    if not op2.eigenvectors:
        raise ModelFileError(path, "eigenvectors", "the eigenvectors (OUGV1) of a SOL 103 run in the OP2 file")
    ev = op2.eigenvectors[sorted(op2.eigenvectors)[0]]
    grids = {int(g): np.asarray(ev.data[:, i, :6], float) for i, (g, _) in enumerate(ev.node_gridtype)}
    if op2.eigenvalues:
        table = op2.eigenvalues[sorted(op2.eigenvalues)[0]]
        modes, lam = np.asarray(table.mode, int), np.asarray(table.eigenvalues, float)
        radians, cycles = np.asarray(table.radians, float), np.asarray(table.cycles, float)
        gen_m, gen_k = np.asarray(table.generalized_mass, float), np.asarray(table.generalized_stiffness, float)
    else:
        # no LAMA table: modes and eigenvalues from the eigenvector table; generalised masses
        # unknown (NaN), which modal_table_from_nastran refuses
        modes, lam = np.asarray(ev.modes, int), np.asarray(ev.eigns, float)
        radians = np.sqrt(np.abs(lam))
        cycles, gen_m, gen_k = radians / (2 * np.pi), np.full(lam.size, np.nan), np.full(lam.size, np.nan)
    rigid, ref = None, None
    if getattr(op2, "grid_point_weight", None):
        gpw = next(iter(op2.grid_point_weight.values()))
        rigid, ref = np.asarray(gpw.MO, float), int(gpw.reference_point)
    # MEFFMASS participation factors are not among the OP2 tables pyNastran reads: they stay
    # None, and modal_table_from_nastran asks for the F06 tables.
    return F06Results(modes, lam, radians, cycles, gen_m, gen_k, grids, None, None, ref, rigid, "OP2")


def modal_table_from_nastran(path, interface_grid: int, *, ports: dict | None = None, modes=None,
                             damping=0.0, subcase: int | None = None, frame: str | None = None,
                             length_unit: str = "m", mass_unit: str = "kg") -> ModalTable:
    """TITOP modal data from a NASTRAN run clamped at ``interface_grid`` (module docstring).

    Parameters
    ----------
    path : .f06 (text) or .op2 (pyNastran) file
    interface_grid : int            the clamped attachment grid P (MEFFMASS / GRDPNT reference)
    ports : dict name -> {"grid": id, "r": (3,)}
                                    other attachment points C: their grid (mode shapes read
                                    there) and position from P in the run's length unit (F06
                                    result tables do not print grid coordinates)
    modes : list of int, optional   mode numbers to keep (default: all)
    damping : float or (n,)         modal damping ratios (not in the F06)
    length_unit, mass_unit : str    units of the run ("m"/"mm", "kg"/"t")
    """
    p = Path(path)
    if not isinstance(interface_grid, (int, np.integer)) or interface_grid < 1:
        raise ValueError(f"`interface_grid` must be a positive grid id; got {interface_grid!r}")
    if length_unit not in LENGTH_UNITS or mass_unit not in MASS_UNITS:
        raise ValueError(f"`length_unit` must be one of {sorted(LENGTH_UNITS)} and `mass_unit` one of "
                         f"{sorted(MASS_UNITS)}; got {length_unit!r}, {mass_unit!r}")
    res = read_op2(p) if p.suffix.lower() == ".op2" else read_f06(p, subcase)
    keep = np.arange(res.modes.size) if modes is None else _mode_rows(res, modes, p)
    m_gen = res.generalized_mass[keep]
    if not np.all(m_gen > 0):
        raise ModelFileError(p, "generalized mass", "positive generalised masses (the real eigenvalue table)")
    if res.participation_factors is None or np.isnan(res.participation_factors[keep]).any():
        raise ModelFileError(p, "MODAL PARTICIPATION FACTORS",
                             "participation factors of every kept mode (case control MEFFMASS(PRINT, PARTFAC))")
    sq = np.sqrt(m_gen)[:, None]
    L = res.participation_factors[keep] * sq
    if res.effective_masses is not None and not np.isnan(res.effective_masses[keep]).any():
        printed = res.effective_masses[keep]
        scale = np.abs(printed).max(axis=0, keepdims=True) + 1e-300
        # 7 significant digits each for Gamma and m_j: the products agree to ~1e-6 of the column
        if np.any(np.abs(printed - L ** 2) > 1e-5 * scale):
            raise ModelFileError(p, "MODAL EFFECTIVE MASS", "effective masses equal to Gamma^2 m_j of the "
                                 "participation factors and generalised masses (the tables disagree)")
    ports = dict(ports or {})
    phi = {}
    for name, port in ports.items():
        if not (isinstance(port, dict) and "grid" in port and np.shape(port.get("r")) == (3,)):
            raise ValueError(f"`ports[{name!r}]` must be {{'grid': id, 'r': (3,)}}; got {port!r}")
        gid = port["grid"]
        if gid not in res.eigenvectors:
            raise ModelFileError(p, f"ports.{name}", f"eigenvector rows of grid {gid} (not in the file; "
                                 f"grids: {sorted(res.eigenvectors)[:10]}...)")
        vec = res.eigenvectors[gid][keep]
        if np.isnan(vec).any():
            raise ModelFileError(p, f"ports.{name}", f"grid {gid} in every kept mode's eigenvector table")
        phi[name] = (vec / sq).T
    fL, fPhi, s_l, fD = si_factors(length_unit, mass_unit)
    port_data = {}
    for name, port in ports.items():
        port_data[name] = {"r": np.asarray(port["r"], float) * s_l, "Phi": phi[name] * fPhi[:, None]}
    rigid = None
    if res.rigid_mass is not None and res.reference_point == interface_grid:
        rigid = res.rigid_mass * fD
    damping = np.broadcast_to(np.asarray(damping, float), (keep.size,)).copy()
    return ModalTable(res.radians[keep], damping, L * fL, frame or f"grid{interface_grid}", port_data, rigid, str(p))


def _mode_rows(res, modes, p):
    rows = []
    for k in modes:
        hit = np.flatnonzero(res.modes == int(k))
        if hit.size == 0:
            raise ModelFileError(p, "modes", f"mode numbers among {res.modes.tolist()}; got {k}")
        rows.append(int(hit[0]))
    return np.array(rows)
