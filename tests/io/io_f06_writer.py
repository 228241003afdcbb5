"""Write normal-modes results in the fixed layout of NASTRAN F06 text (test helper).

MSC layout: MODAL PARTICIPATION FACTORS / MODAL EFFECTIVE MASS with six columns T1..R3.
NX layout: the same tables split into (FOR TRANSLATIONAL ...) and (FOR ROTATIONAL ...) parts,
and the "SIMCENTER NASTRAN" page header. Page headers (carriage control '1') break the
tables every ``page_lines`` lines, as NASTRAN does.
"""

from __future__ import annotations

import numpy as np


def e(x):
    return f"{x:13.6E}"


def vec(x):
    return "0.0           " if x == 0.0 else f"{x:13.6E} "


class _Pages:
    def __init__(self, program, page_lines):
        self.lines, self.page, self.program, self.page_lines, self.count = [], 0, program, page_lines, 0

    def header(self):
        self.page += 1
        self.lines.append(f"1    SATDYN TEST BEAM{' ' * 50}NOVEMBER  25, 2026  {self.program}   PAGE {self.page:5d}")
        self.lines.append(" ")
        self.lines.append(f"0{' ' * 100}SUBCASE 1")
        self.count = 0

    def add(self, line, repeat=()):
        if self.count >= self.page_lines:
            self.header()
            self.lines.extend(repeat)
            self.count += len(repeat)
        self.lines.append(line)
        self.count += 1


def write_f06(path, omega, shapes, gen_mass, grids, participation, effective, *, layout="MSC",
              rigid_mass=None, reference_point=1, page_lines=40):
    """omega (n,), shapes (n, G, 6) as printed, gen_mass (n,), grids (G,) ids,
    participation / effective (n, 6), rigid_mass (6, 6) at grid ``reference_point``."""
    program = "SIMCENTER NASTRAN 2306" if layout == "NX" else "MSC Nastran 2023.1"
    P = _Pages(program, page_lines)
    P.header()
    n = omega.size
    if rigid_mass is not None:
        P.add("                           O U T P U T   F R O M   G R I D   P O I N T   W E I G H T   G E N E R A T O R")  # noqa: E501 (fixed-width NASTRAN columns)
        P.add(f"0                                                     REFERENCE POINT = {reference_point:8d}")
        P.add("                                                                M O")
        for row in rigid_mass:
            P.add("                      * " + " ".join(e(v) for v in row) + " *")
        P.add("                                                                 S")
        for row in np.eye(3):
            P.add("                                             * " + " ".join(e(v) for v in row) + " *")
    P.header()
    title = ["                                              R E A L   E I G E N V A L U E S",
             "   MODE    EXTRACTION      EIGENVALUE            RADIANS             CYCLES            GENERALIZED         GENERALIZED",  # noqa: E501 (fixed-width NASTRAN columns)
             "    NO.       ORDER                                                                       MASS              STIFFNESS"]  # noqa: E501 (fixed-width NASTRAN columns)
    for t in title:
        P.add(t)
    for j in range(n):
        lam = omega[j] ** 2
        P.add(f"{j + 1:9d}{j + 1:10d}        {e(lam)}       {e(omega[j])}       {e(omega[j] / 2 / np.pi)}"
              f"       {e(gen_mass[j])}       {e(gen_mass[j] * lam)}", repeat=title)
    for j in range(n):
        P.header()
        head = [f"      EIGENVALUE = {e(omega[j] ** 2)}",
                f"          CYCLES = {e(omega[j] / 2 / np.pi)}         R E A L   E I G E N V E C T O R   N O . {j + 1:10d}",  # noqa: E501 (fixed-width NASTRAN columns)
                " ",
                "      POINT ID.   TYPE          T1             T2             T3             R1             R2             R3"]  # noqa: E501 (fixed-width NASTRAN columns)
        for t in head:
            P.add(t)
        for g, gid in enumerate(grids):
            P.add(f"{gid:14d}      G     " + " ".join(vec(v) for v in shapes[j, g]), repeat=head)
    freq = omega / 2 / np.pi
    for title_text, table in (("MODAL PARTICIPATION FACTORS", participation), ("MODAL EFFECTIVE MASS", effective)):
        P.header()
        parts = [("", slice(0, 6), "T1             T2             T3             R1             R2             R3")]
        if layout == "NX":
            parts = [("(FOR TRANSLATIONAL DEGREES OF FREEDOM)", slice(0, 3), "T1             T2             T3"),
                     ("(FOR ROTATIONAL DEGREES OF FREEDOM)", slice(3, 6), "R1             R2             R3")]
        P.add(f"                                          {title_text}")
        for label, cols, names in parts:
            head = ([f"                                    {label}"] if label else []) + [
                f"   MODE NO.     FREQUENCY (HZ)     {names}"]
            for t in head:
                P.add(t)
            for j in range(n):
                P.add(f"{j + 1:8d}      {e(freq[j])}  " + "  ".join(e(v) for v in table[j, cols]), repeat=head)
        if title_text == "MODAL EFFECTIVE MASS":
            P.header()
            P.add("                                          MODAL EFFECTIVE MASS FRACTION")
            P.add("   MODE NO.     FREQUENCY (HZ)     T1             T2             T3")
            for j in range(n):
                P.add(f"{j + 1:8d}      {e(freq[j])}  " + "  ".join(e(0.1) for _ in range(3)))
    P.header()
    P.add("                                   * * * END OF JOB * * *")
    path.write_text("\n".join(P.lines) + "\n")


def normalise(shapes, M_full, kind, point=None):
    """Scale mass-normalised shapes (n, G, 6) as NASTRAN's NORM option: 'MASS', 'MAX' or
    ('POINT', grid index, dof). Returns (printed shapes, generalised masses)."""
    n = shapes.shape[0]
    s = np.ones(n)
    if kind == "MAX":
        flat = shapes.reshape(n, -1)
        s = 1.0 / np.abs(flat).max(axis=1)
    elif kind == "POINT":
        g, dof = point
        s = 1.0 / shapes[:, g, dof]
    printed = shapes * s[:, None, None]
    flat = printed.reshape(n, -1)
    gen = np.einsum("ji,ik,jk->j", flat, M_full, flat)
    return printed, gen
