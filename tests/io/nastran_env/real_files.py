"""pyNastran's answers on the real F06 files of tests/io/data/nastran_real, and their comparison
with satdyn's F06 reader.

``pynastran_answers(name)`` needs pyNastran (numpy < 2: the `nastran` environment of
`.ci/run`); ``compare(res, answers)`` needs numpy only, so the main suite runs it on the
committed ``pynastran_answers.json`` (tests/io/test_nastran.py) and the nastran environment
runs it on pyNastran's answers of the day (make_pynastran_files.py).

pyNastran readers used as the oracle:

* its OP2 reader, where the run's OP2 is in the repository: eigenvalue table LAMA (mode
  numbers, eigenvalues, generalised masses), eigenvectors OUGV1 and SPC forces OQG1;
* its F06 eigenvalue parser ``read_f06_matrices`` (diagonal modal mass and stiffness
  matrices from the real eigenvalue table), where that parser accepts the file (it stops at
  page headers and expects the table's column headings right under its title).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

REAL = Path(__file__).resolve().parents[1] / "data" / "nastran_real"
ANSWERS = REAL / "pynastran_answers.json"
F06_FILES = ("beam_modes.f06", "mode_solid_shell_bar.f06", "BAH_Plane_cont_gust_LINE5000000_10FREQs.f06",
             "goland_final_test.f06", "0012_flutter.f06", "0012_flutter2.f06", "bah_plane_no_subcase.f06",
             "pt145.f06", "random_test_nx.f06", "bah.f06", "ha145e.f06", "crop.f06")
OP2_OF = {"beam_modes.f06": "beam_modes_m1.op2", "mode_solid_shell_bar.f06": "mode_solid_shell_bar.op2",
          "BAH_Plane_cont_gust_LINE5000000_10FREQs.f06": "BAH_Plane_cont_gust_LINE5000000_10FREQs.op2",
          "goland_final_test.f06": "goland_final_test.op2"}
# F06 prints 7 significant digits (relative rounding <= 5e-7), the OP2 holds float32 (6e-8):
# eigenvalues and generalised masses agree to 1e-6 relative; mass-normalised shapes
# phi / sqrt(m) combine a 7-digit shape and a 7-digit mass: 5e-6 of the mode's largest entry
RTOL_VALUE = 1e-6
RTOL_SHAPE = 5e-6


def pynastran_answers(name: str) -> dict:
    """What pyNastran reads from the F06 ``name`` (and its OP2): lists of floats (JSON-ready)."""
    from cpylog import SimpleLogger
    from pyNastran.f06.f06_matrix_parser import read_f06_matrices
    from pyNastran.op2.op2 import read_op2

    out = {}
    try:
        _, mats = read_f06_matrices(str(REAL / name), log=SimpleLogger(level="critical"))
    except (AssertionError, ValueError, IndexError):
        mats = {}                                   # the parser refuses this layout
    if "KHH" in mats and np.ndim(mats["KHH"]) == 2:
        out["f06_matrices"] = {"eigenvalues": np.diag(mats["KHH"]).tolist(),
                               "generalized_mass": np.diag(mats["MHH"]).tolist()}
    if name in OP2_OF:
        op2 = read_op2(str(REAL / OP2_OF[name]), build_dataframe=False, debug=None,
                       log=SimpleLogger(level="critical"))
        out["op2"] = OP2_OF[name]
        if op2.eigenvalues:
            (lama,) = op2.eigenvalues.values()
            out["lama"] = {"mode": np.asarray(lama.mode, int).tolist(),
                           "eigenvalue": np.asarray(lama.eigenvalues, float).tolist(),
                           "generalized_mass": np.asarray(lama.generalized_mass, float).tolist()}
        for label, tables in (("eigenvectors", op2.eigenvectors), ("spc_forces", op2.spc_forces)):
            if tables:
                (t,) = tables.values()
                out[label] = {"mode": np.asarray(t.modes, int).tolist(),
                              "eigenvalue": np.asarray(t.eigns, float).tolist(),
                              "grids": {str(int(g)): np.asarray(t.data[:, i, :6], float).tolist()
                                        for i, (g, gt) in enumerate(t.node_gridtype) if gt == 1}}
    return out


def _close(a, b, rtol):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= rtol * np.maximum(np.abs(a), np.abs(b))))


def compare(res, answers: dict) -> list:
    """Disagreements between satdyn's :class:`~satdyn.io.F06Results` and pyNastran's answers
    (an empty list when they agree)."""
    problems = []
    lam, gm = res.eigenvalues, res.generalized_mass
    if "f06_matrices" in answers:
        # pyNastran's parser sorts its diagonal by eigenvalue
        want = sorted(zip(answers["f06_matrices"]["eigenvalues"], answers["f06_matrices"]["generalized_mass"]))
        got = sorted(zip(lam.tolist(), gm.tolist()))
        if len(want) != len(got) or not _close(got, want, RTOL_VALUE):
            problems.append(f"eigenvalue table: satdyn {got} != pyNastran F06 {want}")
    if "lama" in answers:
        a = answers["lama"]
        if res.modes.tolist() != a["mode"]:
            problems.append(f"modes: satdyn {res.modes.tolist()} != pyNastran OP2 {a['mode']}")
        else:
            # a repeated eigenvalue's eigenvectors are any basis of its eigenspace: their MAX or
            # POINT normalisations, hence generalised masses, differ between runs (the shapes
            # are compared below); simple eigenvalues' generalised masses must agree
            simple = np.array([np.sum(np.abs(lam - x) <= RTOL_VALUE * abs(x)) == 1 for x in lam])
            if not (_close(lam, a["eigenvalue"], RTOL_VALUE)
                    and _close(gm[simple], np.asarray(a["generalized_mass"])[simple], RTOL_VALUE)):
                problems.append("eigenvalues / generalised masses differ from the OP2's LAMA table")
    if "eigenvectors" in answers:
        problems += _compare_shapes(res, answers["eigenvectors"], answers.get("lama"))
    if "spc_forces" in answers:
        grids = answers["spc_forces"]["grids"]
        B = np.stack([np.asarray(grids[g]) for g in grids], axis=1)                  # (modes, grids, 6)
        n = B.shape[0]
        # the F06 prints the constrained grids; the OP2 holds zeros for the others
        A = np.stack([np.asarray(res.spc_forces.get(int(g), np.zeros((n, 6))))[:n] for g in grids], axis=1) \
            if res.modes.size >= n else None
        if A is None or A.shape != B.shape:
            problems.append(f"SPC forces of {n} modes in the OP2, of {res.modes.size} in the F06")
            n = 0
        for j in range(n):
            # one sign per mode (the eigenvector's), 7-digit prints: 5e-6 of the mode's largest force
            sign = 1.0 if np.nansum(A[j] * B[j]) >= 0 else -1.0
            err = np.abs(sign * A[j] - B[j]).max()
            if not err <= RTOL_SHAPE * np.abs(B[j]).max():
                problems.append(f"SPC forces of mode {j + 1} differ from the OP2's (largest difference {err:.3g})")
    return problems


def _compare_shapes(res, vec, lama):
    """Mass-normalised eigenvectors of the F06 and of the OP2: equal up to the sign of each
    mode, and within a repeated eigenvalue up to an orthogonal change of basis (the two runs
    pick different bases of the same eigenspace)."""
    problems = []
    grids = [g for g in vec["grids"] if int(g) in res.eigenvectors]
    if not grids:
        return [f"no grid of the OP2's eigenvectors in the F06 ({sorted(vec['grids'])[:5]}...)"]
    modes = vec["mode"]
    missing = [k for k in modes if k not in res.modes]
    if missing:
        return [f"modes {missing} of the OP2's eigenvectors are not in the F06's eigenvalue table"]
    rows = [int(np.flatnonzero(res.modes == k)[0]) for k in modes]
    if not _close(res.eigenvalues[rows], vec["eigenvalue"], RTOL_VALUE):
        problems.append(f"eigenvalues {res.eigenvalues[rows].tolist()} != the OP2 eigenvectors' {vec['eigenvalue']}")
    A = np.stack([res.eigenvectors[int(g)][rows] for g in grids], axis=1).reshape(len(modes), -1)
    A = A / np.sqrt(res.generalized_mass[rows])[:, None]
    B = np.stack([np.asarray(vec["grids"][g]) for g in grids], axis=1).reshape(len(modes), -1)
    m_op2 = np.asarray(lama["generalized_mass"])[[lama["mode"].index(k) for k in modes]] if lama else \
        res.generalized_mass[rows]                   # no LAMA: the F06's masses (same run, same scaling)
    B = B / np.sqrt(m_op2)[:, None]
    lam = np.asarray(vec["eigenvalue"])
    done = set()
    for j in range(len(modes)):
        if j in done:
            continue
        group = [i for i in range(len(modes)) if abs(lam[i] - lam[j]) <= RTOL_VALUE * max(abs(lam[j]), 1e-300)]
        done.update(group)
        Ag, Bg = A[group], B[group]
        Q = np.linalg.lstsq(Bg.T, Ag.T, rcond=None)[0].T           # Ag ~ Q Bg
        err = np.abs(Ag - Q @ Bg).max()
        orth = np.abs(Q.T @ Q - np.eye(len(group))).max()
        if not (err <= RTOL_SHAPE * np.abs(Bg).max() and orth <= 10 * RTOL_SHAPE):
            problems.append(f"eigenvectors of modes {[modes[i] for i in group]}: differ from the OP2's "
                            f"(residual {err:.3g}, basis change off orthogonal by {orth:.3g})")
    return problems
