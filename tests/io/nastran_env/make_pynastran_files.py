"""Write the beam's normal modes with pyNastran (an independent writer of NASTRAN's layouts).

Run in an environment of its own (pyNastran 1.4 requires numpy < 2); `.ci/run` does this
before the main suite, with `pip install -e ".[nastran]" "numpy<2"`. By hand:

    python -m venv /tmp/nas-venv
    /tmp/nas-venv/bin/pip install pyNastran control jsonschema pyyaml tqdm threadpoolctl networkx
    PYTHONPATH=src /tmp/nas-venv/bin/python tests/io/nastran_env/make_pynastran_files.py OUTDIR

It writes OUTDIR/beam_pynastran.f06 with pyNastran's F06 writers (real eigenvalues and
eigenvectors, MAX-normalised), reads it back with satdyn.io.read_f06 and checks it against
the beam's own modes. The F06 is committed as tests/io/data/beam_pynastran.f06 for the main
suite (tests/io/test_nastran.py). It also writes OUTDIR/beam_pynastran.op2 with pyNastran's
OP2 writer and reads it with satdyn.io.read_op2 (pyNastran 1.4.1 writes the eigenvectors,
table code 7, but skips the eigenvalue table LAMA: frequencies then come from the
eigenvector table and the generalised masses are unknown).

Then it reads the real MSC / NX / Simcenter F06 files of tests/io/data/nastran_real with
satdyn.io.read_f06 and with pyNastran (its OP2 reader on the runs' OP2 files, its F06
eigenvalue parser where it accepts the file; real_files.py) and fails loudly, naming the
file, on any disagreement; and it checks that the committed pynastran_answers.json (the
oracle of the main suite) is what pyNastran answers today. ``--write-json`` rewrites that
JSON (done once, when files are added).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from io_beam_fe import beam_modes  # noqa: E402
from io_f06_writer import normalise  # noqa: E402

N_EL, LENGTH, N_MODES = 8, 2.0, 4


def main(out: Path):
    from pyNastran.op2.tables.lama_eigenvalues.lama_objects import RealEigenvalues
    from pyNastran.op2.tables.oug.oug_eigenvectors import RealEigenvectorArray

    b = beam_modes(N_EL, LENGTH, N_MODES)
    printed, gen = normalise(b.shapes, b.M, "MAX")
    nodes = np.arange(1, N_EL + 2)
    node_gridtype = np.column_stack([nodes, np.ones(nodes.size, int)])
    modes = np.arange(1, N_MODES + 1)
    lam = b.omega ** 2
    vec = RealEigenvectorArray.add_modal_case("OUGV1", node_gridtype, printed, 1, modes, lam, b.omega / 2 / np.pi,
                                              is_sort1=True)
    eig = RealEigenvalues("beam", "LAMA", nmodes=N_MODES)
    eig.mode[:] = modes
    eig.extraction_order[:] = modes
    eig.eigenvalues[:] = lam
    eig.radians[:] = b.omega
    eig.cycles[:] = b.omega / 2 / np.pi
    eig.generalized_mass[:] = gen
    eig.generalized_stiffness[:] = gen * lam
    out.mkdir(parents=True, exist_ok=True)
    from pyNastran.op2.op2 import OP2

    vec.table_code = 7                      # real eigenvectors (add_modal_case leaves displacement's 1)
    op2 = OP2()
    op2.eigenvectors[1] = vec
    op2.eigenvalues["beam"] = eig
    op2.set_mode("msc")
    op2.write_op2(str(out / "beam_pynastran.op2"))
    stamp = "1    BEAM                                          NOVEMBER  25, 2026  MSC Nastran  PAGE %8i\n"
    with open(out / "beam_pynastran.f06", "w") as f06:
        page = eig.write_f06(f06, header=[], page_stamp=stamp, page_num=1)
        vec.write_f06(f06, header=["0                                                                                                            SUBCASE 1\n"],  # noqa: E501 (fixed-width NASTRAN columns)
                      page_stamp=stamp, page_num=page + 1)

    from satdyn.io import read_f06, read_op2

    for res in (read_f06(out / "beam_pynastran.f06"), read_op2(out / "beam_pynastran.op2")):
        # pyNastran stores float32: 7 significant digits at best
        assert np.allclose(res.radians, b.omega, rtol=1e-6), res.radians
        if res.layout != "OP2":
            assert np.allclose(res.generalized_mass, gen, rtol=1e-6)
        tip = res.eigenvectors[N_EL + 1]
        assert np.abs(tip - printed[:, -1]).max() <= 1e-6 * np.abs(printed[:, -1]).max()
        print(res.layout, "ok:", res.modes.size, "modes,", len(res.eigenvectors), "grids")


def check_real_files(write_json: bool = False):
    """satdyn's F06 reader against pyNastran on every real file; raises on any disagreement."""
    import pyNastran

    from real_files import ANSWERS, F06_FILES, OP2_OF, REAL, compare, pynastran_answers
    from satdyn.io import read_f06, read_op2

    live = {"pyNastran": pyNastran.__version__, "files": {}}
    failures = []
    for name in F06_FILES:
        answers = pynastran_answers(name)
        live["files"][name] = answers
        res = read_f06(REAL / name)
        problems = compare(res, answers)
        if "eigenvectors" in answers:
            # satdyn's OP2 path (pyNastran underneath) on the same run: same modes and eigenvalues
            # (float32 in the OP2: 1e-6), same SPC forces up to the sign of each mode
            op2 = read_op2(REAL / OP2_OF[name])
            if op2.modes.tolist() != res.modes.tolist() or not np.allclose(op2.eigenvalues, res.eigenvalues,
                                                                           rtol=1e-6, atol=0):
                problems.append(f"satdyn.io.read_op2({OP2_OF[name]}) modes/eigenvalues differ from the F06's")
            for gid, q in res.spc_forces.items():
                sign = np.sign(np.sum(q * op2.spc_forces[gid], axis=1))[:, None]
                if np.abs(sign * op2.spc_forces[gid] - q).max() > 5e-6 * np.abs(q).max():
                    problems.append(f"satdyn.io.read_op2({OP2_OF[name]}) SPC forces of grid {gid} differ")
        failures += [f"{name}: {msg}" for msg in problems]
        readers = "+".join(k for k in sorted(answers) if k != "op2")
        print(f"{name}: " + (f"pyNastran {readers}: {'MISMATCH' if problems else 'agrees'}" if readers else
                             "no pyNastran reader accepts it (main suite: printed identities, values read by hand)"))
    if failures:
        raise SystemExit("satdyn's F06 reader disagrees with pyNastran:\n  " + "\n  ".join(failures))
    if write_json:
        ANSWERS.write_text(json.dumps(live, indent=None, separators=(",", ":")) + "\n")
        print("wrote", ANSWERS)
    else:
        committed = json.loads(ANSWERS.read_text())
        if committed["files"] != json.loads(json.dumps(live["files"])):
            msg = (f"{ANSWERS} is not what pyNastran {live['pyNastran']} answers today: regenerate it with "
                   "--write-json and review the difference")
            if committed["pyNastran"] == live["pyNastran"]:
                raise SystemExit(msg)
            # another pyNastran release: satdyn agrees with it (checked above); the JSON of
            # the main suite stays the one of the version it names
            print(f"note: written by pyNastran {committed['pyNastran']}; {msg}")
        else:
            print(ANSWERS.name, "matches pyNastran", live["pyNastran"])


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(Path(args[0]) if args else Path("."))
    check_real_files(write_json="--write-json" in sys.argv)
