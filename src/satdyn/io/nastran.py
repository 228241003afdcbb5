"""NASTRAN normal-modes results (SOL 103) -> TITOP modal data.

``read_f06(path, subcase=None)`` reads the fixed-layout text tables of one subcase of an F06
file (MSC Nastran and NX/Simcenter Nastran):

* ``R E A L   E I G E N V A L U E S`` -- mode, extraction order, eigenvalue, radians,
  cycles, generalised mass, generalised stiffness (after augmentation of residual vectors
  when the run prints it);
* ``R E A L   E I G E N V E C T O R   N O .  k`` -- grid-point rows ``ID  G  T1 T2 T3 R1 R2 R3``;
* ``F O R C E S   O F   S I N G L E - P O I N T   C O N S T R A I N T`` of each mode
  (``SPCFORCES``), attributed to the mode whose ``EIGENVALUE =`` is printed above it;
* ``MODAL PARTICIPATION FACTORS`` and ``MODAL EFFECTIVE MASS`` (case control ``MEFFMASS``):
  MSC prints one table with the six columns T1..R3; NX prints it in two parts, headed
  ``(FOR TRANSLATIONAL DEGREES OF FREEDOM)`` (T1 T2 T3) and ``(FOR ROTATIONAL DEGREES OF
  FREEDOM)`` (R1 R2 R3);
* ``O U T P U T   F R O M   G R I D   P O I N T   W E I G H T   G E N E R A T O R`` (``PARAM,GRDPNT``):
  the reference point and the 6x6 rigid-body mass matrix ``MO`` about it.

A table ends where its rows end: nothing outside a table (user information messages, the
data-block trailers OUTPUT2 prints, other tables) is ever read as a row, and a row that
cannot be read is refused naming the file, the line and the table. ``read_op2`` reads the
same results from an OP2 file through pyNastran (optional extra ``satdyn[nastran]``: it
needs numpy < 2, so it is kept out of the base install).

``modal_table_from_nastran(path, interface_grid, ports=...)`` turns a run of the appendage
*clamped at its interface grid* (MEFFMASS and GRDPNT referred to that grid) into a
:class:`~satdyn.io.modal.ModalTable`. NASTRAN's participation factor of mode j is
``Gamma_j = phi_j^T M D_r / m_j`` with ``m_j`` the generalised mass of the printed
(MASS-, MAX- or POINT-normalised) eigenvector ``phi_j``; the TITOP factor of the
mass-normalised mode ``phi_j / sqrt(m_j)`` is ``L_j = Gamma_j sqrt(m_j)``, and the mode
shape at a port grid is ``phi_j(grid) / sqrt(m_j)``. The effective mass ``Gamma_j^2 m_j``
printed next to it is checked against ``L_j^2``. Without MEFFMASS, the SPC forces ``q_j``
of each mode at the interface grid give ``L_j = -q_j / (lambda_j sqrt(m_j))`` (the clamp
reaction of a clamped mode is ``-omega_j^2 L_j``; derivation in docs/io.md). Units: the
run's (state them with ``length_unit`` / ``mass_unit``; mm-t-s is converted to SI).
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
_NUMS = rf"{_FLOAT}(?:\s+{_FLOAT})*"
_ROW_EIG = re.compile(rf"^\s*(\d+)\s+(\d+)\s+({_FLOAT})\s+({_FLOAT})\s+({_FLOAT})\s+({_FLOAT})\s+({_FLOAT})\s*$")
_ROW_POINT = re.compile(rf"^\s*(\d+)\s+([A-Z])\s+({_NUMS})\s*$")
_ROW_MODE = re.compile(rf"^\s*(\d+)\s+({_NUMS})\s*$")
_ROW_START = re.compile(r"^\s+\d+\s")      # rows: carriage control blank
_HEADING = re.compile(r"^\s*(?:\(|MODE\b|NO\.|POINT ID|EIGENVALUE\s*=|CYCLES\s*=)")
_VEC_TITLE = re.compile(r"R E A L\s+E I G E N V E C T O R\s+N O \.\s+(\d+)")
_EIGENVALUE_LINE = re.compile(rf"EIGENVALUE\s*=\s*({_FLOAT})")
_SPACED_TITLE = re.compile(r"(?:\b[A-Z] ){4,}")
_SUBCASE = re.compile(r"\bSUBCASE\s+(\d+)")
_SUPERELEMENT = re.compile(r"\bSUPERELEMENT\s+(\d+)")
_GPWG_ROW = re.compile(rf"^\s*\*\s*((?:{_FLOAT}\s+){{5}}{_FLOAT})\s*\*\s*$")
_EIG_TITLE = "R E A L   E I G E N V A L U E S"
_SPCF_TITLE = "F O R C E S   O F   S I N G L E - P O I N T   C O N S T R A I N T"
_GPWG_TITLE = "G R I D   P O I N T   W E I G H T   G E N E R A T O R"
_DOFS = ("T1", "T2", "T3", "R1", "R2", "R3")
_PART_COLUMNS = {"ALL": _DOFS, "T": _DOFS[:3], "R": _DOFS[3:]}
# printed numbers carry 7 significant digits (E13.6): each is within 5e-7 of its value
# relative; sqrt halves that, a product adds two: 2e-6 bounds every printed identity below
_PRINT_RTOL = 2e-6
_TITLES = {"eigenvalues": _EIG_TITLE, "spcf": _SPCF_TITLE, "participation": "MODAL PARTICIPATION FACTORS",
           "effective": "MODAL EFFECTIVE MASS", "fraction": "MODAL EFFECTIVE MASS FRACTION", "gpwg": _GPWG_TITLE,
           "eigenvector": "R E A L   E I G E N V E C T O R"}


@dataclass(frozen=True)
class F06Results:
    """Normal-modes tables of one subcase.

    Attributes
    ----------
    modes : (n,) int                    mode numbers
    eigenvalues, radians, cycles : (n,)  [rad^2/s^2], [rad/s], [Hz]
    generalized_mass, generalized_stiffness : (n,)   0.0 where NASTRAN did not compute the
                                        eigenvector (modes beyond the EIGRL ND / printed set)
    eigenvectors : dict grid -> (n, 6)  printed eigenvectors (NaN where a mode lacks the grid)
    participation_factors, effective_masses : (n, 6) or None   (MEFFMASS)
    reference_point : int or None; rigid_mass : (6, 6) or None  (grid point weight generator MO)
    layout : "MSC" or "NX" (or "OP2")
    subcase : int or None               the subcase read (None: the file labels none)
    spc_forces : dict grid -> (n, 6)    forces of single-point constraint of each mode, scaled
                                        as the printed eigenvector (case control SPCFORCES)
    residual_vectors : tuple of int     modes added by residual-vector augmentation (RESVEC)
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
    subcase: int | None = None
    spc_forces: dict = field(default_factory=dict, repr=False)
    residual_vectors: tuple = ()


@dataclass
class _Table:
    """One printed occurrence of a table (a title and the rows right under it, on one page)."""

    kind: str
    key: tuple                     # (superelement, subcase) of the page, None where unlabelled
    line: int                      # line of the title
    title: str
    mode: int | None = None        # eigenvector number
    eigenvalue: float | None = None  # "EIGENVALUE =" printed above the title
    qualifier: str = ""            # (BEFORE/AFTER AUGMENTATION ...), (ACTUAL MODES USED ...)
    part: str = "ALL"              # MEFFMASS part: ALL, T (translational) or R (rotational)
    rows: list = field(default_factory=list)
    header_lines: int = 0
    reference_point: int | None = None
    in_mo: bool = False
    in_head: bool = True           # between the title (or a part label) and the first row

    def label(self) -> str:
        se, sc = self.key
        where = ", ".join(x for x in (f"superelement {se}" if se is not None else "",
                                      f"subcase {sc}" if sc is not None else "") if x)
        return self.title + (f" ({where})" if where else "")


def _num(x):
    return float(x.replace("D", "E").replace("d", "e"))


def _floats(text):
    return [_num(x) for x in text.split()]


def _title_kind(upper):
    """(kind, mode) of a table title line, ("other", None) for any other spaced title, or None."""
    if _GPWG_TITLE in upper:
        return "gpwg", None
    if _EIG_TITLE in upper:
        return "eigenvalues", None
    mv = _VEC_TITLE.search(upper)
    if mv:
        return "eigenvector", int(mv.group(1))
    if _SPCF_TITLE in upper:
        return "spcf", None
    stripped = upper.strip()
    if stripped.startswith("MODAL PARTICIPATION FACTORS"):
        return "participation", None
    if stripped.startswith("MODAL EFFECTIVE MASS FRACTION"):
        return "fraction", None
    if stripped.startswith("MODAL EFFECTIVE MASS"):
        return "effective", None
    if _SPACED_TITLE.search(upper):
        return "other", None
    return None


def _parse_row(p, table, line, lineno):
    """Parse one row of ``table`` or refuse naming file, line and table."""
    kind = table.kind
    if kind == "eigenvalues":
        r = _ROW_EIG.match(line)
        vals = None if r is None else _floats(" ".join(r.groups()[2:]))
        if vals is None or not all(np.isfinite(vals)):
            raise ModelFileError(p, table.label(), "a row 'mode, extraction order, eigenvalue, radians, cycles, "
                                 f"generalized mass, generalized stiffness' (7 numbers); got {line.strip()!r}", lineno)
        lam, rad, cyc, gm, gk = vals
        # the printed columns are one eigenvalue in three forms: a garbled digit that still
        # reads as a number breaks one of these identities (K = lambda M: _eigen_arrays)
        checks = ((rad, np.sqrt(abs(lam)), "radians = sqrt(|eigenvalue|)"),
                  (cyc, rad / (2 * np.pi), "cycles = radians / 2 pi"))
        for got, want, what in checks:
            if abs(got - want) > _PRINT_RTOL * max(abs(got), abs(want)):
                raise ModelFileError(p, table.label(), f"a row whose columns agree ({what} to 7 digits); "
                                     f"got {line.strip()!r}", lineno)
        return int(r.group(1)), vals
    if kind in ("eigenvector", "spcf"):
        r = _ROW_POINT.match(line)
        vals = None if r is None else _floats(r.group(3))
        if r is None or not all(np.isfinite(vals)) or (r.group(2) == "G" and len(vals) != 6):
            raise ModelFileError(p, table.label(), "a row 'point id, type, T1, T2, T3, R1, R2, R3'; "
                                 f"got {line.strip()!r}", lineno)
        return (int(r.group(1)), r.group(2)), vals
    r = _ROW_MODE.match(line)                      # MEFFMASS tables: mode, frequency, values
    vals = None if r is None else _floats(r.group(2))
    cols = _PART_COLUMNS[table.part]
    if vals is None or not all(np.isfinite(vals)) or (kind != "fraction" and len(vals) != len(cols) + 1):
        raise ModelFileError(p, table.label(), f"a row 'mode, frequency, {', '.join(cols)}'; got {line.strip()!r}",
                             lineno)
    return int(r.group(1)), vals


def _scan(p, lines):
    """Every table occurrence of the file, in order; a table ends where its rows end.

    After a page break, the rows of the interrupted table continue only under its repeated
    title, or (tables printed without repeating their title) under nothing but its own
    qualifiers and column headings: a user information message, a data-block trailer or
    any other text in between ends it.
    """
    tables, key, header, open_t, resume = [], (None, None), 0, None, None
    eigen_line = None                              # "EIGENVALUE =" above a title on this page
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if line[:1] == "1":                        # carriage control '1': a new page
            resume = open_t if (open_t is not None and (open_t.rows or open_t.kind == "gpwg")) else None
            resume_part = resume.part if resume is not None else None
            open_t, key, header, eigen_line = None, (None, None), 2, None
            continue
        if header:                                 # subtitle, then the label line ('0' ... SUBCASE n)
            header -= 1
            if line[:1] == "0":
                sc, se = _SUBCASE.findall(line), _SUPERELEMENT.findall(line)
                key = (int(se[-1]) if se else None, int(sc[-1]) if sc else None)
                header = 0
                continue
            if header == 1:
                continue
            header = 0
        upper = line.upper()
        stripped = line.strip()
        title = _title_kind(upper)
        if title is not None:
            resume = None
            kind, mode = title
            if kind == "other":
                open_t = None
                continue
            open_t = _Table(kind, key, lineno, _TITLES.get(kind, stripped), mode=mode)
            m = _EIGENVALUE_LINE.search(upper)
            if m:
                open_t.eigenvalue = _num(m.group(1))
            elif eigen_line is not None:
                open_t.eigenvalue = eigen_line
            open_t.in_head = True
            tables.append(open_t)
            continue
        if resume is not None and stripped and resume.kind == "gpwg":
            # the weight generator's output broken by a page: its own lines go on
            prev, resume = resume, None
            if key == prev.key and ("REFERENCE POINT" in upper or stripped == "M O" or _GPWG_ROW.match(line)):
                open_t = prev
        elif resume is not None and stripped:
            prev = resume
            if _HEADING.match(line) and key == prev.key:
                if "FOR TRANSLATIONAL" in upper:
                    resume_part = "T"
                elif "FOR ROTATIONAL" in upper:
                    resume_part = "R"
                m = _EIGENVALUE_LINE.search(upper)
                if m:
                    eigen_line = _num(m.group(1))
                continue                           # its qualifiers and column headings
            resume = None
            if key == prev.key and _ROW_START.match(line):
                part, prev.part = prev.part, resume_part
                try:
                    ident, _ = _parse_row(p, prev, line, lineno)
                except ModelFileError:
                    ident = None
                prev.part = part
                # rows go on: a later identifier, or the first rows of a new part (its label
                # on this page or just before the break)
                if ident is not None and (ident > prev.rows[-1][1] or resume_part != part or prev.in_head):
                    open_t = prev                  # the interrupted table goes on here
                    open_t.part = resume_part
        if open_t is None:
            m = _EIGENVALUE_LINE.search(upper)
            if m:
                eigen_line = _num(m.group(1))
            continue
        t = open_t
        if t.kind == "gpwg":
            if "REFERENCE POINT" in upper:
                t.reference_point = int(line.split("=")[1].split()[0])
            elif stripped == "M O":
                t.in_mo = True
            elif t.in_mo:
                g = _GPWG_ROW.match(line)
                if g is None:
                    raise ModelFileError(p, t.label() + " M O", "6 rows '* m1 .. m6 *'", lineno)
                t.rows.append((lineno, len(t.rows), _floats(g.group(1))))
                if len(t.rows) == 6:
                    open_t = None
            continue
        meff = t.kind in ("participation", "effective", "fraction")
        if not stripped:
            if t.rows and not t.in_head and not meff:
                open_t = None                      # a blank line after the rows ends the table
            continue
        if stripped.startswith("("):               # qualifiers under the title
            if meff and "FOR TRANSLATIONAL" in upper:
                t.part, t.in_head = "T", True
            elif meff and "FOR ROTATIONAL" in upper:
                t.part, t.in_head = "R", True
            elif not t.rows:
                t.qualifier = stripped
                t.title = f"{t.title} {stripped}"
            else:
                open_t = None
            continue
        if _ROW_START.match(line):
            ident, vals = _parse_row(p, t, line, lineno)
            t.in_head = False
            t.rows.append((lineno, ident, (t.part, vals) if meff else vals))
            continue
        if t.in_head and t.header_lines < 8:
            t.header_lines += 1                    # column headings
            continue
        open_t = None                              # text after the rows: the table has ended
        m = _EIGENVALUE_LINE.search(upper)
        if m:
            eigen_line = _num(m.group(1))
    return tables


def _group(tables):
    """Merge page continuations: consecutive occurrences of one table whose identifiers go on."""
    groups = []
    for t in tables:
        g = groups[-1] if groups else None
        if (g is not None and g[0].kind == t.kind and g[0].key == t.key and g[0].mode == t.mode
                and g[0].qualifier == t.qualifier and t.kind not in ("participation", "effective")
                and (t.kind != "spcf" or g[0].eigenvalue == t.eigenvalue)
                and g[-1].rows and t.rows and t.rows[0][1] > g[-1].rows[-1][1]):
            g.append(t)
        else:
            groups.append([t])
    return groups


def _rows(group):
    return [r for t in group for r in t.rows]


def _eigen_arrays(p, group):
    rows = _rows(group)
    # generalized stiffness = eigenvalue x generalized mass (catches a wrong digit in either
    # mass column); not for rigid-body modes (|eigenvalue| <= 1e-8 of the largest), whose
    # printed stiffness may be the round-off of phi^T K phi rather than the product
    lam_max = max((abs(r[2][0]) for r in rows), default=0.0)
    for lineno, _, (lam, _, _, gm, gk) in rows:
        if abs(lam) > 1e-8 * lam_max and abs(gk - lam * gm) > _PRINT_RTOL * max(abs(gk), abs(lam * gm)):
            raise ModelFileError(p, group[0].label(), "a row whose columns agree (generalized stiffness = eigenvalue "
                                 f"x generalized mass to 7 digits); got {gk:g} and {lam:g} x {gm:g}", lineno)
    modes = [r[1] for r in rows]
    if len(set(modes)) != len(modes):
        dup = next(k for k in modes if modes.count(k) > 1)
        line = next(r[0] for r in rows[modes.index(dup) + 1:] if r[1] == dup)
        raise ModelFileError(p, group[0].label(), f"one row per mode (mode {dup} is printed twice)", line)
    return np.array(modes), np.array([r[2] for r in rows])


def _dataset_keys(p, tables):
    """The (superelement, subcase) keys of the data sets with real eigenvalues; unlabelled
    tables join the single labelled subcase of a file that has one."""
    eig_keys = list(dict.fromkeys(t.key for t in tables if t.kind == "eigenvalues" and t.rows))
    other_keys = {t.key for t in tables if t.kind not in ("eigenvalues", "gpwg", "fraction")}
    alias = {}
    labelled = sorted({k for k in other_keys if k != (None, None)}, key=str)
    if eig_keys == [(None, None)]:
        if len(labelled) == 1:
            alias[(None, None)] = labelled[0]
        elif labelled:
            # which subcase's vectors go with the unlabelled eigenvalues cannot be told
            raise ModelFileError(p, _EIG_TITLE, "a SUBCASE label on the eigenvalue table's page: it has none, and "
                                 f"the result tables are in subcases {', '.join(_describe(k) for k in labelled)}")
    elif len(eig_keys) == 1:
        alias[(None, None)] = eig_keys[0]
    elif (None, None) in other_keys:
        t = next(t for t in tables if t.key == (None, None) and t.kind in ("eigenvector", "spcf", "participation",
                                                                             "effective"))
        raise ModelFileError(p, t.label(), "a SUBCASE label on its page (the file has several modal subcases)", t.line)
    return eig_keys, alias


def _describe(key):
    se, sc = key
    if sc is None and se is None:
        return "1 (unlabelled)"
    return f"{sc}" if se is None else f"({se}, {sc})"


def read_f06(path, subcase: int | tuple | None = None) -> F06Results:
    """Parse the normal-modes tables of one subcase of an F06 file (module docstring).

    ``subcase``: the subcase to read (an int, or ``(superelement, subcase)``); default: the
    only subcase with real eigenvalues (a file with several is refused, naming them).
    """
    p = Path(path)
    if not p.is_file():
        raise ModelFileError(p, "<root>", "an existing NASTRAN .f06 file")
    lines = p.read_text(encoding="utf-8", errors="replace").splitlines()      # locale-independent
    layout = "NX" if any(("SIMCENTER NASTRAN" in s.upper() or "NX NASTRAN" in s) for s in lines[:400]) else "MSC"
    tables = _scan(p, lines)
    eig_keys, alias = _dataset_keys(p, tables)
    if not eig_keys:
        raise ModelFileError(p, _EIG_TITLE, "the real eigenvalue table of a SOL 103 run")
    canon = {k: alias.get(k, k) for k in eig_keys}
    available = list(dict.fromkeys(canon.values()))
    if subcase is None:
        if len(available) > 1:
            raise ModelFileError(p, "subcase", "one subcase to read (subcase=...): the file has real eigenvalues "
                                 f"in subcases {', '.join(_describe(k) for k in available)}")
        chosen = available[0]
    else:
        if isinstance(subcase, tuple):
            hits = [k for k in available if k == tuple(subcase)]
        else:
            hits = [k for k in available if k[1] == subcase]
            if not hits and subcase == 1 and available == [(None, None)]:
                hits = available                   # a file labelling no subcase holds subcase 1
        if len(hits) != 1:
            raise ModelFileError(p, "subcase", f"a subcase among {', '.join(_describe(k) for k in available)}"
                                 f"{' (name the superelement too)' if hits else ''}; got {subcase!r}")
        chosen = hits[0]
    mine = [t for t in tables if alias.get(t.key, t.key) == chosen]
    groups = _group(mine)
    modes, E, residual = _primary_eigenvalues(p, [g for g in groups if g[0].kind == "eigenvalues" and _rows(g)])
    n = modes.size
    index = {int(k): i for i, k in enumerate(modes)}
    grids = _eigenvectors(p, [g for g in groups if g[0].kind == "eigenvector"], index, n)
    spc = _spc_forces(p, [g for g in groups if g[0].kind == "spcf"], modes, E[:, 0], n)
    part = _meffmass(p, [t for t in mine if t.kind == "participation"], index, n)
    eff = _meffmass(p, [t for t in mine if t.kind == "effective"], index, n)
    ref, rigid = _gpwg(p, [t for t in tables if t.kind == "gpwg"], chosen)
    return F06Results(modes, E[:, 0], E[:, 1], E[:, 2], E[:, 3], E[:, 4], grids, part, eff, ref, rigid, layout,
                      chosen[1], spc, residual)


def _primary_eigenvalues(p, groups):
    """The eigenvalue table of the data set: after residual-vector augmentation when printed,
    else the table of the extraction; other printings must agree with it."""
    after = [g for g in groups if "AFTER AUGMENTATION" in g[0].qualifier]
    before = [g for g in groups if "BEFORE AUGMENTATION" in g[0].qualifier]
    plain = [g for g in groups if "ACTUAL MODES" not in g[0].qualifier]
    chosen = (after or plain or groups)[0]
    modes, E = _eigen_arrays(p, chosen)
    same_kind = [g for g in (after or plain or groups) if g[0].qualifier == chosen[0].qualifier]
    for g in same_kind[1:]:
        m2, E2 = _eigen_arrays(p, g)
        if m2.shape != modes.shape or np.any(m2 != modes) or np.any(E2 != E):
            raise ModelFileError(p, g[0].label(), f"the same eigenvalues as the table at line {chosen[0].line} "
                                 "(two different real eigenvalue tables in one subcase: a run with several "
                                 "eigenvalue extractions is not a single SOL 103 result)", g[0].line)
    residual = ()
    if after and before:
        # the augmented modes follow the modes whose eigenvectors were computed (nonzero
        # generalised mass) in the table before augmentation
        _, Eb = _eigen_arrays(p, before[0])
        residual = tuple(int(k) for k in modes[np.count_nonzero(Eb[:, 3]):])
    return modes, E, residual


def _eigenvectors(p, groups, index, n):
    grids = {}
    for g in groups:
        mode = g[0].mode
        if mode not in index:
            raise ModelFileError(p, g[0].label(), f"an eigenvector of a mode of the eigenvalue table "
                                 f"(modes {min(index)}..{max(index)}); got mode {mode}", g[0].line)
        for lineno, (gid, typ), vals in _rows(g):
            if typ != "G":
                continue                           # scalar / extra points: no 6-DOF shape
            arr = grids.setdefault(gid, np.full((n, 6), np.nan))
            if not np.isnan(arr[index[mode]]).all() and np.any(arr[index[mode]] != vals):
                raise ModelFileError(p, g[0].label(), f"grid {gid} printed once (printed twice, differently)", lineno)
            arr[index[mode]] = vals
    return grids


def _spc_forces(p, groups, modes, lam, n):
    """SPC forces of each mode; a table belongs to the mode whose eigenvalue it prints above its
    title (repeated eigenvalues: the next mode of that value not yet taken)."""
    out, taken = {}, set()
    for g in groups:
        ev = g[0].eigenvalue
        if ev is None:
            raise ModelFileError(p, g[0].label(), "an 'EIGENVALUE =' line above the table (which mode it is)",
                                 g[0].line)
        match = [i for i in range(n) if i not in taken and abs(lam[i] - ev) <= _PRINT_RTOL * max(abs(ev), abs(lam[i]))]
        if not match:
            raise ModelFileError(p, g[0].label(), f"forces of a mode of the eigenvalue table; EIGENVALUE = {ev:g} "
                                 "is none of them (or was already taken)", g[0].line)
        i = match[0]
        taken.add(i)
        for _lineno, (gid, typ), vals in _rows(g):
            if typ == "G":
                out.setdefault(gid, np.full((n, 6), np.nan))[i] = vals
    return out


def _meffmass(p, tables, index, n):
    if not tables:
        return None
    values = {}
    for t in tables:
        for lineno, mode, (part, vals) in t.rows:
            if mode not in index:
                raise ModelFileError(p, t.label(), f"a mode of the eigenvalue table; got mode {mode}", lineno)
            for name, v in zip(_PART_COLUMNS[part], vals[1:]):
                old = values.get((mode, name))
                if old is not None and old != v:
                    raise ModelFileError(p, t.label(), f"mode {mode} {name} printed once (printed twice, "
                                         "differently)", lineno)
                values[(mode, name)] = v
    out = np.full((n, 6), np.nan)
    for (mode, name), v in values.items():
        out[index[mode], _DOFS.index(name)] = v
    return out


def _gpwg(p, tables, chosen):
    full = [t for t in tables if len(t.rows) == 6]
    for t in tables:
        if t.in_mo and len(t.rows) != 6:
            raise ModelFileError(p, t.label() + " M O", "6 rows '* m1 .. m6 *'", t.line)
    if not full:
        return None, None
    pick = [t for t in full if t.key == chosen] or full
    mats = {(t.reference_point, tuple(v for r in t.rows for v in r[2])) for t in pick}
    if len(mats) > 1:
        return None, None                          # several different weight tables: none is the subcase's
    t = pick[0]
    return t.reference_point, np.array([r[2] for r in t.rows])


def read_op2(path, subcase: int | None = None):
    """Read normal-modes results from an OP2 file with pyNastran -> :class:`F06Results`.

    ``subcase``: the subcase whose eigenvectors to read (default: the only one; several are
    refused, naming them). Needs the optional extra ``pip install satdyn[nastran]`` (pyNastran,
    which requires numpy < 2: install it in an environment of its own).
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
    by_subcase = {int(getattr(t, "isubcase", k if isinstance(k, int) else 0)): t for k, t in op2.eigenvectors.items()}
    if subcase is None and len(by_subcase) > 1:
        raise ModelFileError(path, "subcase", f"one subcase to read (subcase=...): the file has eigenvectors in "
                             f"subcases {', '.join(str(k) for k in sorted(by_subcase))}")
    if subcase is not None and subcase not in by_subcase:
        raise ModelFileError(path, "subcase", f"a subcase among {', '.join(str(k) for k in sorted(by_subcase))}; "
                             f"got {subcase!r}")
    chosen = subcase if subcase is not None else next(iter(by_subcase))
    ev = by_subcase[chosen]
    grids = {int(g): np.asarray(ev.data[:, i, :6], float) for i, (g, _) in enumerate(ev.node_gridtype)}
    eigns = np.asarray(ev.eigns, float)
    # the eigenvalue table (LAMA) of these eigenvectors: the one whose eigenvalues are theirs
    lamas = [t for t in op2.eigenvalues.values() if hasattr(t, "generalized_mass") and len(t.mode) >= eigns.size
             and np.allclose(np.asarray(t.eigenvalues, float)[:eigns.size], eigns, rtol=1e-6, atol=0)]
    if lamas:
        table = lamas[0]
        modes, lam = np.asarray(table.mode, int), np.asarray(table.eigenvalues, float)
        radians, cycles = np.asarray(table.radians, float), np.asarray(table.cycles, float)
        gen_m, gen_k = np.asarray(table.generalized_mass, float), np.asarray(table.generalized_stiffness, float)
        grids = {g: np.vstack([v, np.full((modes.size - v.shape[0], 6), np.nan)]) for g, v in grids.items()}
    else:
        # no LAMA table: modes and eigenvalues from the eigenvector table; generalised masses
        # unknown (NaN), which modal_table_from_nastran refuses
        modes, lam = np.asarray(ev.modes, int), eigns
        radians = np.sqrt(np.abs(lam))
        cycles, gen_m, gen_k = radians / (2 * np.pi), np.full(lam.size, np.nan), np.full(lam.size, np.nan)
    rigid, ref = None, None
    if getattr(op2, "grid_point_weight", None):
        gpw = next(iter(op2.grid_point_weight.values()))
        rigid, ref = np.asarray(gpw.MO, float), int(gpw.reference_point)
    spc = {}
    for t in (getattr(op2, "spc_forces", None) or {}).values():
        if int(getattr(t, "isubcase", chosen)) == chosen and np.asarray(t.data).shape[0] == ev.data.shape[0]:
            spc = {int(g): np.asarray(t.data[:, i, :6], float) for i, (g, gt) in enumerate(t.node_gridtype)
                   if np.any(t.data[:, i, :6])}
            spc = {g: np.vstack([v, np.full((modes.size - v.shape[0], 6), np.nan)]) for g, v in spc.items()}
    # MEFFMASS participation factors are not among the OP2 tables pyNastran reads: they stay
    # None; modal_table_from_nastran then uses the SPC forces or asks for the F06 tables.
    return F06Results(modes, lam, radians, cycles, gen_m, gen_k, grids, None, None, ref, rigid, "OP2",
                      chosen, spc)


def modal_table_from_nastran(path, interface_grid: int, *, ports: dict | None = None, modes=None,
                             damping=0.0, subcase: int | tuple | None = None, frame: str | None = None,
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
    subcase : int or (superelement, subcase), optional   (default: the only modal subcase)
    length_unit, mass_unit : str    units of the run ("m"/"mm", "kg"/"t")

    Notes
    -----
    Participation factors come from the MEFFMASS tables; without them, from the SPC forces of
    each mode at the interface grid (``L_j = -q_j / (lambda_j sqrt(m_j))``, docs/io.md); when
    both are printed they must agree. A file with neither is refused, naming the case-control
    requests to add.
    """
    p = Path(path)
    if not isinstance(interface_grid, (int, np.integer)) or interface_grid < 1:
        raise ValueError(f"`interface_grid` must be a positive grid id; got {interface_grid!r}")
    if length_unit not in LENGTH_UNITS or mass_unit not in MASS_UNITS:
        raise ValueError(f"`length_unit` must be one of {sorted(LENGTH_UNITS)} and `mass_unit` one of "
                         f"{sorted(MASS_UNITS)}; got {length_unit!r}, {mass_unit!r}")
    res = read_op2(p, subcase) if p.suffix.lower() == ".op2" else read_f06(p, subcase)
    keep = np.arange(res.modes.size) if modes is None else _mode_rows(res, modes, p)
    m_gen = res.generalized_mass[keep]
    if not np.all(m_gen > 0):
        bad = res.modes[keep][~(m_gen > 0)].tolist()
        raise ModelFileError(p, "generalized mass", f"positive generalised masses of every kept mode; modes {bad} "
                             "have none (NASTRAN did not compute their eigenvectors: keep modes=[...] below them)")
    # any rigid-body mode of the run (kept or not; |lambda| at round-off of the largest one):
    # the structure is free or supported, not clamped at the interface grid
    rigid_modes = res.modes[res.eigenvalues <= 1e-8 * max(np.abs(res.eigenvalues).max(), 1e-300)].tolist()
    if rigid_modes:
        raise ModelFileError(p, "R E A L   E I G E N V A L U E S", f"flexible modes of a run clamped at grid "
                             f"{interface_grid}; modes {rigid_modes} are rigid-body modes (0 Hz): the structure is "
                             "not clamped")
    sq = np.sqrt(m_gen)[:, None]
    L = _participation(p, res, keep, interface_grid, sq)
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


def _participation(p, res, keep, interface_grid, sq):
    """Participation factors L (n_kept, 6) of the mass-normalised modes at the interface grid.

    MEFFMASS: ``L_j = Gamma_j sqrt(m_j)``. SPC forces: a mode phi_j of the structure clamped
    at P leaves the reaction ``q_j = (K_bq - lambda_j M_bq) phi_j = -lambda_j phi_j^T M D_r``
    at P (docs/io.md), so ``L_j = -q_j / (lambda_j sqrt(m_j))``.
    """
    from_meff = None
    if res.participation_factors is not None and not np.isnan(res.participation_factors[keep]).any():
        from_meff = res.participation_factors[keep] * sq
    from_spc = None
    q = res.spc_forces.get(interface_grid) if res.spc_forces else None
    if q is not None and not np.isnan(q[keep]).any():
        q = q[keep]
        for gid, other in res.spc_forces.items():
            if gid == interface_grid:
                continue
            o = np.nan_to_num(other[keep])
            # a reaction elsewhere: the structure is not clamped at the interface grid alone
            # (AUTOSPC'd singular DOFs carry round-off reactions only: 1e-6 of the interface's)
            big = np.abs(o).max(axis=1) > 1e-6 * np.abs(q).max(axis=1)
            if big.any():
                raise ModelFileError(p, f"SPC forces, grid {gid}", f"reactions at the interface grid {interface_grid} "
                                     f"only (the run clamped there alone); grid {gid} carries a reaction in modes "
                                     f"{res.modes[keep][big].tolist()}: add MEFFMASS(PRINT,PARTFAC)=YES with its "
                                     f"reference point at grid {interface_grid}")
        lam = res.eigenvalues[keep][:, None]
        from_spc = -q / (lam * sq)
    if from_meff is not None and from_spc is not None:
        # both read from 7-digit prints: agreement to 1e-5 of the largest translational
        # (resp. rotational) entry; per column would hold the round-off of a column that is
        # zero by symmetry to 7 digits it does not have
        scale = np.r_[np.full(3, np.abs(from_meff[:, :3]).max()), np.full(3, np.abs(from_meff[:, 3:]).max())] + 1e-300
        if np.any(np.abs(from_meff - from_spc) > 1e-5 * scale):
            raise ModelFileError(p, "MODAL PARTICIPATION FACTORS", f"participation factors equal to -q_j / "
                                 f"(lambda_j sqrt(m_j)) of the SPC forces q_j at grid {interface_grid} (the two "
                                 "tables disagree: is MEFFMASS referred to another point?)")
    L = from_meff if from_meff is not None else from_spc
    if L is None:
        raise ModelFileError(p, "MODAL PARTICIPATION FACTORS", "participation factors of every kept mode: add "
                             "MEFFMASS(PRINT,PARTFAC)=YES (reference point: the interface grid) or "
                             f"SPCFORCES(PRINT)=ALL (with the structure clamped at grid {interface_grid} alone) "
                             "to the case control")
    return L


def _mode_rows(res, modes, p):
    rows = []
    for k in modes:
        hit = np.flatnonzero(res.modes == int(k))
        if hit.size == 0:
            raise ModelFileError(p, "modes", f"mode numbers among {res.modes.tolist()}; got {k}")
        rows.append(int(hit[0]))
    return np.array(rows)
