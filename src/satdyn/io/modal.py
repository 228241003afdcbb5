"""Modal data of a flexible appendage as the TITOP model needs it, and its table files.

A :class:`ModalTable` holds clamped-free modal data at the attachment point P of an
appendage (the interface grid of its FE model), in SI units and one stated frame:

* ``frequencies`` (n,) [rad/s], ``damping`` (n,) [-];
* ``L_P`` (n, 6): participation factors of the mass-normalised modes at P, columns
  [Tx Ty Tz Rx Ry Rz] (units sqrt(kg) and sqrt(kg) m), ``L_P[j] = phi_j^T M D_r``;
* ``ports``: other points C with their position ``r`` (3,) from P [m] and mode shapes
  ``Phi`` (6, n) of the mass-normalised modes (per unit modal coordinate of sqrt(kg) m:
  translations 1/sqrt(kg), rotations 1/(sqrt(kg) m));
* ``D_P`` (6, 6) rigid mass matrix at P, or None when the model file gives it.

Table files (``read_modal_table``):

CSV -- ``#`` header lines ``# key: value`` state ``frame``, ``frequency_unit`` (Hz or
rad/s), ``length_unit`` (m or mm), ``mass_unit`` (kg or t) and, per extra port,
``port C: x, y, z`` (position from P in the length unit); then a header row and one row
per mode with the columns ``mode, frequency, damping, L_Tx, L_Ty, L_Tz, L_Rx, L_Ry, L_Rz``
and optionally ``C_T1 .. C_R3`` (mode shape at port C).

JSON -- ``{"frame", "frequency_unit", "length_unit", "mass_unit", "modes": [{"frequency",
"damping", "L_P": [6]}...], "ports": {"C": {"r": [3], "Phi": [[6] per mode]}}, "D_P":
optional 6x6}``.

Units are converted to SI once, here (NASTRAN's mm-t-s system is common). A column or key
stated twice (two ``frequency`` columns, two ``# frequency_unit:`` lines, a JSON key repeated
in one object) is refused, naming both places: taking either would be a guess.
"""

from __future__ import annotations

import csv
import io as _io
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import ModelFileError

__all__ = ["ModalTable", "read_modal_table", "write_modal_table", "effective_masses",
           "FREQUENCY_UNITS", "LENGTH_UNITS", "MASS_UNITS"]

FREQUENCY_UNITS = {"Hz": 2.0 * np.pi, "rad/s": 1.0}
LENGTH_UNITS = {"m": 1.0, "mm": 1e-3}
MASS_UNITS = {"kg": 1.0, "t": 1e3}
_DOFS = ("T1", "T2", "T3", "R1", "R2", "R3")
_L_COLUMNS = ("L_Tx", "L_Ty", "L_Tz", "L_Rx", "L_Ry", "L_Rz")


@dataclass(frozen=True)
class ModalTable:
    """Clamped-free modal data at an attachment point (module docstring), SI units."""

    frequencies: np.ndarray
    damping: np.ndarray
    L_P: np.ndarray
    frame: str
    ports: dict = field(default_factory=dict)
    D_P: np.ndarray | None = None
    source: str = ""

    @property
    def frequencies_hz(self) -> np.ndarray:
        return self.frequencies / (2.0 * np.pi)

    @property
    def effective_masses(self) -> np.ndarray:
        """(n, 6) modal effective masses ``L_P**2`` [kg, kg m^2] (NASTRAN's MEFFMASS)."""
        return effective_masses(self.L_P)

    def children(self) -> dict:
        """``{port: (r (3,), Phi (6, n))}`` as :func:`satdyn.titop.flexible_body` takes them."""
        return {k: (np.asarray(v["r"], float), np.asarray(v["Phi"], float)) for k, v in self.ports.items()}


def effective_masses(L_P) -> np.ndarray:
    """Modal effective masses ``L_P**2`` (n, 6) of mass-normalised participation factors."""
    return np.asarray(L_P, dtype=float) ** 2


def si_factors(length_unit: str, mass_unit: str):
    """Scale factors to SI: (L_P (6,), Phi (6,), r, D_P (6, 6)) for mass-normalised data."""
    s_l, s_m = LENGTH_UNITS[length_unit], MASS_UNITS[mass_unit]
    sq = np.sqrt(s_m)
    L = np.r_[np.full(3, sq), np.full(3, sq * s_l)]
    Phi = np.r_[np.full(3, 1.0 / sq), np.full(3, 1.0 / (sq * s_l))]
    lever = np.r_[np.ones(3), np.full(3, s_l)]
    D = s_m * np.outer(lever, lever)
    return L, Phi, s_l, D


def _unit(meta, key, table, file):
    value = meta.get(key)
    if value not in table:
        raise ModelFileError(file, key, f"the unit must be stated as one of {sorted(table)}; got {value!r}")
    return value


def _finish(file, meta, freq, damping, L, ports_r, ports_phi, D_P=None) -> ModalTable:
    fu = _unit(meta, "frequency_unit", FREQUENCY_UNITS, file)
    lu = _unit(meta, "length_unit", LENGTH_UNITS, file)
    mu = _unit(meta, "mass_unit", MASS_UNITS, file)
    frame = meta.get("frame")
    if not isinstance(frame, str) or not frame:
        raise ModelFileError(file, "frame", "the frame of the data must be stated (a frame label)")
    freq = np.asarray(freq, float) * FREQUENCY_UNITS[fu]
    n = freq.size
    if n == 0:
        raise ModelFileError(file, "modes", "at least one mode")
    if np.any(~np.isfinite(freq)) or np.any(freq <= 0):
        raise ModelFileError(file, "frequency", f"positive finite frequencies; got {freq / FREQUENCY_UNITS[fu]}")
    damping = np.asarray(damping, float)
    if np.any(damping < 0) or np.any(~np.isfinite(damping)):
        raise ModelFileError(file, "damping", "damping ratios >= 0")
    fL, fPhi, s_l, fD = si_factors(lu, mu)
    L = np.asarray(L, float).reshape(n, 6) * fL
    ports = {}
    for name, r in ports_r.items():
        if name not in ports_phi:
            raise ModelFileError(file, f"ports.{name}", f"mode shapes of port {name!r} (columns {name}_T1..{name}_R3)")
        ports[name] = {"r": np.asarray(r, float) * s_l,
                       "Phi": np.asarray(ports_phi[name], float).reshape(6, n) * fPhi[:, None]}
    extra = sorted(set(ports_phi) - set(ports_r))
    if extra:
        raise ModelFileError(file, f"ports.{extra[0]}",
                             f"the position of port {extra[0]!r} ('# port {extra[0]}: x, y, z')")
    D = None if D_P is None else np.asarray(D_P, float).reshape(6, 6) * fD
    return ModalTable(freq, damping, L, frame, ports, D, str(file))


def _read_csv(path: Path) -> ModalTable:
    text = path.read_text()
    meta, ports_r, body, seen = {}, {}, [], {}
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith("#"):
            if ":" in s:
                key, value = (x.strip() for x in s[1:].split(":", 1))
                if key in seen:
                    # a key stated twice (e.g. two frequency units): which one is meant is a guess
                    raise ModelFileError(path, key, f"one '# {key}:' line; stated on lines {seen[key]} and {lineno}",
                                         lineno)
                seen[key] = lineno
                if key.startswith("port "):
                    try:
                        ports_r[key[5:].strip()] = [float(x) for x in value.split(",")]
                    except ValueError:
                        raise ModelFileError(path, key, "a position 'x, y, z' (numbers)", lineno) from None
                    if len(ports_r[key[5:].strip()]) != 3:
                        raise ModelFileError(path, key, "a position of 3 numbers", lineno)
                else:
                    meta[key] = value
        elif s:
            body.append((lineno, line))
    if not body:
        raise ModelFileError(path, "modes", "a header row and one row per mode")
    reader = csv.reader(_io.StringIO("\n".join(b for _, b in body)))
    rows = list(reader)
    header = [h.strip() for h in rows[0]]
    for i, h in enumerate(header):
        if h in header[:i]:
            # two columns of one name (e.g. two "frequency" columns, one in Hz, one not): the
            # reader would take one of them silently
            first = header.index(h)
            raise ModelFileError(path, f"columns.{h}", f"one column {h!r}; columns {first + 1} and {i + 1} of the "
                                 "header are both named so", body[0][0])
    need = ["mode", "frequency", "damping", *_L_COLUMNS]
    missing = [c for c in need if c not in header]
    if missing:
        raise ModelFileError(path, f"columns.{missing[0]}", f"the columns {need} (missing {missing})", body[0][0])
    cols = {h: i for i, h in enumerate(header)}
    data = []
    for (lineno, _), row in zip(body[1:], rows[1:]):
        if len(row) != len(header):
            raise ModelFileError(path, f"row {lineno}", f"{len(header)} values as in the header; got "
                                                        f"{len(row)}", lineno)
        try:
            data.append([float(x) for x in row])
        except ValueError:
            raise ModelFileError(path, f"row {lineno}", "numbers only", lineno) from None
    data = np.array(data).reshape(-1, len(header))
    mode_line = {}
    for (lineno, _), mode in zip(body[1:], data[:, cols["mode"]]):
        if mode in mode_line:
            raise ModelFileError(path, f"row {lineno}", f"one row per mode; mode {mode:g} is on lines "
                                 f"{mode_line[mode]} and {lineno}", lineno)
        mode_line[mode] = lineno
    phis = {}
    for h in header:
        if "_" in h and h.rsplit("_", 1)[1] in _DOFS and not h.startswith("L_"):
            port = h.rsplit("_", 1)[0]
            phis.setdefault(port, {})[h.rsplit("_", 1)[1]] = data[:, cols[h]]
    ports_phi = {}
    for port, comps in phis.items():
        if len(comps) != 6:
            raise ModelFileError(path, f"columns.{port}", f"all six columns {port}_T1..{port}_R3")
        ports_phi[port] = np.vstack([comps[d] for d in _DOFS])
    return _finish(path, meta, data[:, cols["frequency"]], data[:, cols["damping"]],
                   data[:, [cols[c] for c in _L_COLUMNS]], ports_r, ports_phi)


class _DuplicateKey(Exception):
    def __init__(self, key):
        self.key = key


def _unique_keys(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _read_json(path: Path) -> ModalTable:
    text = path.read_text()
    try:
        doc = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise ModelFileError(path, "<root>", f"valid JSON ({exc.msg})", exc.lineno) from None
    except _DuplicateKey as dup:
        # json keeps the last of two equal keys silently: name both places instead
        lines = [i for i, s in enumerate(text.splitlines(), 1) if f'"{dup.key}"' in s]
        where = f"lines {', '.join(map(str, lines))}" if len(lines) > 1 else "one object"
        raise ModelFileError(path, dup.key, f"key {dup.key!r} once per object; it appears twice ({where})",
                             lines[-1] if lines else None) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("modes"), list) or not doc["modes"]:
        raise ModelFileError(path, "modes", "a non-empty list of modes {frequency, damping, L_P}")
    freq, damp, L = [], [], []
    for j, m in enumerate(doc["modes"]):
        for key in ("frequency", "damping", "L_P"):
            if not isinstance(m, dict) or key not in m:
                raise ModelFileError(path, ("modes", j, key), f"key {key!r} in every mode")
        if np.shape(m["L_P"]) != (6,):
            raise ModelFileError(path, ("modes", j, "L_P"), "a list of 6 numbers [Tx Ty Tz Rx Ry Rz]")
        freq.append(m["frequency"])
        damp.append(m["damping"])
        L.append(m["L_P"])
    ports_r, ports_phi = {}, {}
    for name, p in (doc.get("ports") or {}).items():
        if np.shape(p.get("r")) != (3,) or np.shape(p.get("Phi")) != (len(freq), 6):
            raise ModelFileError(path, ("ports", name), f"'r' (3 numbers) and 'Phi' ({len(freq)} rows of 6)")
        ports_r[name] = p["r"]
        ports_phi[name] = np.asarray(p["Phi"], float).T
    return _finish(path, doc, freq, damp, L, ports_r, ports_phi, doc.get("D_P"))


def read_modal_table(path) -> ModalTable:
    """Read a CSV or JSON modal table (module docstring) into SI units."""
    p = Path(path)
    if not p.is_file():
        raise ModelFileError(p, "<root>", "an existing modal table file (.csv or .json)")
    suffix = p.suffix.lower()
    if suffix == ".csv":
        return _read_csv(p)
    if suffix == ".json":
        return _read_json(p)
    raise ModelFileError(p, "<root>", f"a .csv or .json modal table; got {suffix!r}")


def write_modal_table(table: ModalTable, path) -> None:
    """Write ``table`` as CSV or JSON (by suffix) in SI units, Hz for frequencies."""
    p = Path(path)
    if p.suffix.lower() == ".json":
        doc = {"frame": table.frame, "frequency_unit": "Hz", "length_unit": "m", "mass_unit": "kg",
               "modes": [{"frequency": float(f), "damping": float(d), "L_P": [float(x) for x in row]}
                         for f, d, row in zip(table.frequencies_hz, table.damping, table.L_P)],
               "ports": {k: {"r": np.asarray(v["r"]).tolist(), "Phi": np.asarray(v["Phi"]).T.tolist()}
                         for k, v in table.ports.items()}}
        if table.D_P is not None:
            doc["D_P"] = np.asarray(table.D_P).tolist()
        p.write_text(json.dumps(doc, indent=1) + "\n")
        return
    lines = [f"# frame: {table.frame}", "# frequency_unit: Hz", "# length_unit: m", "# mass_unit: kg"]
    lines += [f"# port {k}: " + ", ".join(repr(float(x)) for x in v["r"]) for k, v in table.ports.items()]
    header = ["mode", "frequency", "damping", *_L_COLUMNS]
    header += [f"{k}_{d}" for k in table.ports for d in _DOFS]
    lines.append(",".join(header))
    for j in range(table.frequencies.size):
        row = [j + 1, table.frequencies_hz[j], table.damping[j], *table.L_P[j]]
        for v in table.ports.values():
            row += list(np.asarray(v["Phi"])[:, j])
        lines.append(",".join(repr(float(x)) if i else str(x) for i, x in enumerate(row)))
    p.write_text("\n".join(lines) + "\n")
