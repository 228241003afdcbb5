"""Draw the figures of the documentation site with satdyn itself.

``python docs/_gen/figures.py OUTDIR [NAME ...]`` writes ``OUTDIR/<name>.png`` for every figure
below (or the ones named) and prints the seconds each took. The mkdocs hook (``docs/_gen/hook.py``)
runs it at every build and caches the result by a hash of satdyn's sources and of this file,
so a page's figure always comes from the code of the same checkout and is never committed.

Every figure is a small case of what its page describes (a coarse mesh, a few samples, a
short simulation): the whole set draws in well under a minute on one core. Figures go through
:mod:`satdyn.plotting` where it has a function for them; the others are drawn here from the
results of satdyn's public API (this file computes no physics of its own).
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

DPI = 80
FIGURES = {}


def figure(*names):
    """Register ``fn() -> Figure`` as the figure ``<name>.png`` (one name), or
    ``fn() -> {name: Figure}`` as several figures drawn from one computation."""
    def register(fn):
        FIGURES[names] = fn
        return fn
    return register


def _hub_two_arrays():
    from satdyn.io import build_model, example_path, load_model

    return build_model(load_model(example_path("hub_two_arrays")))


def _attitude_loop():
    """The PD attitude loop of the robust-attitude-control tutorial (drive angle 0.5 rad)."""
    from satdyn.studies.model import attitude_closed_loop, attitude_pid_controller, mass_summary

    model = _hub_two_arrays()
    port = model.system.ports["hub.G"]
    plant = model.lfr.subs({"array_angle": 0.5})
    _, _, J = mass_summary(plant, port)
    kp, kd = np.diag(J) * 0.1 ** 2, 2 * 0.7 * np.diag(J) * 0.1
    return plant, attitude_pid_controller(kp, kd), attitude_closed_loop(plant, port, kp, kd)


# ---------------------------------------------------------------- package pages and home page

@figure("fe-modes", "home-mode")
def fe_modes():
    from satdyn.studies.fe import fe_study
    from satdyn.plotting.fe import plot_fe

    # F_3 on a coarse mesh (4 elements per tile edge): the first six clamped-free modes, and
    # for the home page the second out-of-plane mode alone
    study = fe_study(3, elements_per_edge=4, n_modes=6)
    j = [k for k, t in enumerate(study.mode_types) if t == "out-of-plane"][1]
    one = dataclasses.replace(study, frequencies_hz=study.frequencies_hz[j:j + 1],
                              mode_types=study.mode_types[j:j + 1], node_shapes=study.node_shapes[:, :, j:j + 1])
    home = plot_fe(one)["mode_shapes"]
    home.set_size_inches(5.2, 4.0)
    home.axes[0].set_title(f"mode {j + 1} of F3: {study.frequencies_hz[j]:.3f} Hz (out of plane)", fontsize=9)
    home.suptitle("")
    return {"fe-modes": plot_fe(study)["mode_shapes"], "home-mode": home}


@figure("assembly-plan")
def assembly_plan():
    from satdyn.studies.assembly import walk_example
    from satdyn.plotting.assembly import plot_assembly

    # the flagship's walk on the small structure F_10 (tile 1 on leg R1 -> tile 10 on leg R2),
    # weighted by the H-infinity norm of the wrench transfer only; only F_10's tiles drawn
    study = walk_example(costs=("hinf_wrench",), n=10, start=(1, 1), target=(10, 2), enumerate_min_hop=False)
    fig = plot_assembly(dataclasses.replace(study, centres=study.centres[:10]))["plan"]
    fig.axes[0].set_ylim(-1.2, 3.2)
    fig.set_size_inches(6.8, 3.9)
    return fig


@figure("mu-attitude")
def mu_attitude():
    from satdyn.robust import robust_stability

    _, _, loop = _attitude_loop()
    rs = robust_stability(loop, frequencies=np.geomspace(0.02, 40, 40))
    fig = Figure(figsize=(6.4, 3.4), layout="constrained")
    ax = fig.subplots()
    ax.semilogx(rs.frequencies, rs.mu_upper, ".-", label="μ upper bound on the frequency grid")
    ax.axhline(1 / rs.lower, color="tab:red", ls="--", lw=1,
               label=f"its peak: stable for {rs.lower:.3g} × the ranges (margin ≤ {rs.upper:.3g})")
    ax.set(xlabel="frequency [rad/s]", ylabel="μ", ylim=(0, None),
           title="Robust stability of the PD attitude loop (array frequencies ±20 %)")
    ax.title.set_fontsize(9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return fig


@figure("titop-modes-vs-angle")
def titop_modes_vs_angle():
    model = _hub_two_arrays()
    angles = np.deg2rad(np.linspace(0, 180, 37))
    batch = model.lfr.evaluate_batch({"array_angle": angles})
    fig = Figure(figsize=(6.4, 3.4), layout="constrained")
    ax = fig.subplots()
    for a, A in zip(angles, batch.A):
        ev = np.linalg.eigvals(A)
        f = np.sort(np.abs(ev[ev.imag > 0])) / (2 * np.pi)
        ax.plot(np.full(f.size, np.rad2deg(a)), f, "o", ms=3, color="tab:blue")
    ax.set(xlabel="solar-array drive angle [deg]", ylabel="frequency [Hz]", yscale="log",
           title="Flexible modes of the hub with two solar arrays versus the drive angle")
    ax.title.set_fontsize(9)
    ax.grid(alpha=0.3, which="both")
    return fig


@figure("lfr-bode")
def lfr_bode():
    from satdyn.lfr import ss, ureal
    from satdyn.plotting import plot_uncertain_bode
    from satdyn.robust import uncertain_frequency_response

    m = ureal("m", 2.0, percent=20)
    k = ureal("k", 50.0, percent=10)
    c = 0.4
    sys_ = ss([[0, 1], [-k / m, -c / m]], [[0], [1 / m]], [[1, 0]], [[0]])
    resp = uncertain_frequency_response(sys_, np.geomspace(1, 20, 200), n_samples=20, worst_case=False,
                                        input_unit="N", output_unit="m")
    return plot_uncertain_bode(resp)["bode"]


@figure("spatial-inertia")
def spatial_inertia():
    from satdyn.studies.demo import rigid_spacecraft_inertia
    from satdyn.plotting import plot_rigid_spacecraft_inertia

    return next(iter(plot_rigid_spacecraft_inertia(rigid_spacecraft_inertia()).values()))


@figure("equilibrium-error")
def equilibrium_error():
    from satdyn.studies.equilibrium import equilibrium_study
    from satdyn.plotting import plot_equilibrium_study

    study = equilibrium_study(grid_step_deg=30.0, n_samples=20)
    return next(iter(plot_equilibrium_study(study).values()))


@figure("freefloating-motion")
def freefloating_motion():
    from satdyn.studies.freefloating import run_freefloating_study
    from satdyn.plotting import plot_freefloating

    # P4S only, no final settling, rtol 1e-4: the base rates agree with a 1e-6 run to 1e-4 of
    # their peak, far below a pixel (the study's 1e-10 matter for momentum conservation, not drawn here)
    study = run_freefloating_study(systems=("p4s",), settle=0.0, sample_dt=0.5, rtol=1e-4, atol=1e-6)
    return next(f for name, f in plot_freefloating(study).items() if name.endswith("motion"))


@figure("detumbling-rates")
def detumbling_rates():
    from satdyn.detumbling import load_scenario, simulate
    from satdyn.plotting import plot_detumbling_run

    run = simulate(load_scenario(), "B", duration=4.0)
    return plot_detumbling_run(run)["link_rates"]


@figure("blocks-balloon")
def blocks_balloon():
    from satdyn.multibody import BlockDiagram, FloatingBodyBlock, PrismaticBlock, RevoluteBlock
    from satdyn.spatial import dcm_from_euler_sequence

    # the example G of docs/multibody-blocks.md (the paper's Fig. 16)
    g = np.array([0.0, -9.81, 0.0])
    J = np.array([[5.0, 0, 0], [0, 10, -7], [0, -7, 10]])
    d = BlockDiagram("G")
    d.add("balloon", FloatingBodyBlock(10.0, inertia=J, ports={"C": [0, -2.0, 0]}, gravity=g))
    d.add("slider", PrismaticBlock([1, 0, -1], 1.0, ports={"S": [0, 0, 0]}, gravity=g, stiffness=10, damping=1),
          parent="balloon", port="C")
    d.add("p1", RevoluteBlock([0, 0, 1], 2.0, com=[0, -1.2, 0], ports={"P1": [0, -1.2, 0]}, gravity=g,
                              damping=0.1), parent="slider", port="S")
    d.add("p2", RevoluteBlock([0, 0, 1], 3.0, com=[0, -1.6, 0], gravity=g, damping=0.1), parent="p1", port="P1")
    d.add_external_wrench("balloon", lambda t, m: np.r_[dcm_from_euler_sequence(m[15:18]).T @ (-16.0 * g), 0, 0, 0])
    x0 = np.zeros(d.n_states)
    x0[13], x0[14] = np.deg2rad(170), np.deg2rad(-170)
    sim = d.simulate((0.0, 0.6), x0, t_eval=np.linspace(0, 0.6, 61), rtol=1e-5, atol=1e-7)
    names = list(d.state_names)
    fig = Figure(figsize=(6.4, 3.4), layout="constrained")
    ax = fig.subplots()
    for i in (12, 13, 14):
        ax.plot(sim.t, sim.x[:, i], label=names[i])
    ax.set(xlabel="t [s]", ylabel="joint coordinate [m or rad]",
           title="Example G (balloon, slider, double pendulum): joint coordinates")
    ax.title.set_fontsize(9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


# ---------------------------------------------------------------- tutorials

@figure("tutorial-pointing-sigma")
def tutorial_pointing_sigma():
    from satdyn.plotting import plot_uncertain_sigma
    from satdyn.robust import uncertain_frequency_response

    _, _, loop = _attitude_loop()
    resp = uncertain_frequency_response(loop, np.geomspace(0.005, 20, 60), n_samples=10, worst_case=False,
                                        input_unit="N m", output_unit="rad")
    return plot_uncertain_sigma(resp)["sigma"]


@figure("tutorial-margins")
def tutorial_margins():
    from satdyn.plotting import plot_loop_margins
    from satdyn.robust import loop_margins

    plant, K, _ = _attitude_loop()
    rot = plant[[f"hub:G:acc[{i}]" for i in range(3, 6)], [f"hub:G:W[{i}]" for i in range(3, 6)]]
    lm = loop_margins(rot, K, frequencies=np.geomspace(0.005, 30, 150), n_samples=2, seed=1)
    return plot_loop_margins(lm)["loop_margins"]


@figure("tutorial-step")
def tutorial_step():
    from satdyn.plotting import plot_uncertain_time_response
    from satdyn.robust import uncertain_time_response

    _, _, loop = _attitude_loop()
    t = np.linspace(0, 120, 601)
    step = uncertain_time_response(loop, t, kind="step", input_index=0, n_samples=10, seed=0, output_unit="rad")
    return plot_uncertain_time_response(step)["step_response"]


@figure("tutorial-nastran-effective-mass")
def tutorial_nastran_effective_mass():
    from satdyn.io import example_path, modal_table_from_nastran

    f06 = example_path("telecom").parent / "synthetic_array_beam.f06"
    table = modal_table_from_nastran(f06, interface_grid=1, ports={"tip": {"grid": 25, "r": [5.0, 0.0, 0.0]}},
                                     damping=0.005, frame="wing")
    eff = table.effective_masses
    labels = ["Tx", "Ty", "Tz", "Rx", "Ry", "Rz"]
    fig = Figure(figsize=(6.4, 3.4), layout="constrained")
    ax = fig.subplots(1, 2)
    x = np.arange(eff.shape[0])
    for _k, ax_, cols, unit in ((0, ax[0], range(3), "kg"), (1, ax[1], range(3, 6), "kg m²")):
        width = 0.8 / 3
        for i, col in enumerate(cols):
            ax_.bar(x + (i - 1) * width, eff[:, col], width, label=labels[col])
        ax_.set(xticks=x, xticklabels=[f"{f:.2f} Hz" for f in table.frequencies_hz],
                ylabel=f"effective mass [{unit}]")
        ax_.tick_params(axis="x", labelsize=7, rotation=45)
        ax_.legend(fontsize=7)
    fig.suptitle("Effective masses of the F06 wing's modes at the interface grid (MEFFMASS)", fontsize=9)
    return fig


@figure("tutorial-sol103-tip")
def tutorial_sol103_tip():
    from satdyn.io import read_f06

    root = Path(__file__).resolve().parents[2]
    res = read_f06(root / "tests" / "io" / "data" / "nastran_real" / "beam_modes.f06")
    tip = res.eigenvectors[11] / np.sqrt(res.generalized_mass)[:, None]
    fig = Figure(figsize=(6.4, 3.4), layout="constrained")
    ax = fig.subplots()
    im = ax.imshow(tip.T, cmap="RdBu_r", vmin=-np.abs(tip).max(), vmax=np.abs(tip).max(), aspect="auto")
    ax.set(xticks=range(res.modes.size), xticklabels=[f"{m}\n{f:.0f} Hz" for m, f in zip(res.modes, res.cycles)],
           yticks=range(6), yticklabels=["T1", "T2", "T3", "R1", "R2", "R3"],
           title="Mass-normalised mode shapes at the tip grid 11 (real Simcenter SOL 103 run)")
    ax.tick_params(axis="x", labelsize=7)
    ax.title.set_fontsize(9)
    fig.colorbar(im, ax=ax, shrink=0.8)
    return fig


@figure("tutorial-arm-inertia")
def tutorial_arm_inertia():
    import copy

    from satdyn.io import build_model, example_path, load_model, model_from_dict

    doc = copy.deepcopy(load_model(example_path("robotic_arm")).document)
    doc["name"], doc["synthetic"] = "hub_with_arm", True
    doc["bodies"].insert(0, {"name": "hub", "type": "rigid", "mass": 400.0,
                             "inertia": [[120, 0, 0], [0, 110, 0], [0, 0, 90]],
                             "ports": {"mount": [0.6, 0.0, 0.5]}, "frame": "R.l0"})
    doc["connections"].insert(0, ["hub.mount", "R_L0.Ji"])
    doc["external"], doc["free"] = ["hub.G"], ["R_L5.Jn"]
    sc = build_model(model_from_dict(doc)).lfr
    a2 = np.linspace(-np.pi * 0.95, np.pi * 0.95, 61)
    fig = Figure(figsize=(6.4, 3.4), layout="constrained")
    ax = fig.subplots()
    for j, a3 in enumerate((-1.2, 0.0, 1.2)):            # colour: elbow angle; line style: axis
        D = np.linalg.inv(sc.evaluate_batch({"R.alpha2": a2, "R.alpha3": np.full_like(a2, a3)}))
        for i, ls in ((0, "-"), (1, "--"), (2, ":")):
            ax.plot(np.rad2deg(a2), D[:, 3 + i, 3 + i], ls, color=f"C{j}",
                    label=f"J{'xyz'[i]}{'xyz'[i]}, α3 = {a3:+.1f} rad")
    ax.set(xlabel="shoulder angle α2 [deg]", ylabel="inertia at the hub CoM [kg m²]",
           title="Inertia seen by the hub over the arm's configurations")
    ax.title.set_fontsize(9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6, ncol=3)
    return fig


@figure("tutorial-four-bar")
def tutorial_four_bar():
    import satdyn.multibody as mb

    b = mb.ModelBuilder(name="four_bar")
    b.add_body(mb.body("ground", 0.0, ports={"A": [0, 0, 0], "D": [2, 0, 0]}), mb.fixed_root("ground"))
    b.add_body(mb.body("crank", 1.0, com=[0, 0.5, 0], inertia=np.diag([0.08, 1e-3, 0.08]), ports={"B": [0, 1, 0]}),
               mb.revolute_joint("qA", [0, 0, 1], damping=0.05), parent="ground", port="A")
    b.add_body(mb.body("coupler", 2.0, com=[1, 0, 0], inertia=np.diag([1e-3, 0.67, 0.67]), ports={"C": [2, 0, 0]}),
               mb.revolute_joint("qB", [0, 0, 1], damping=0.05), parent="crank", port="B")
    b.add_body(mb.body("rocker", 1.0, com=[0, -0.5, 0], inertia=np.diag([0.08, 1e-3, 0.08]), ports={"D": [0, -1, 0]}),
               mb.revolute_joint("qC", [0, 0, 1], damping=0.05), parent="coupler", port="C")
    k = np.diag([2e4, 2e4, 2e4, 0, 0, 0])
    b.add_loop_closure("close_D", "rocker", "ground", stiffness=k, damping=0.02 * k, port_a="D", port_b="D")
    model = b.build()
    t = np.linspace(0, 1.0, 51)
    res = mb.simulate(model, (0.0, 1.0), (np.zeros(3), np.zeros(3)), efforts=lambda t, q, v: np.array([0.5, 0, 0]),
                      t_eval=t, method="Radau", rtol=1e-6, atol=1e-8)
    fig = Figure(figsize=(6.4, 3.4), layout="constrained")
    ax = fig.subplots()
    for i, name in enumerate(("qA (crank)", "qB (coupler)", "qC (rocker)")):
        ax.plot(res.t, res.q[:, i], label=name)
    ax.set(xlabel="t [s]", ylabel="joint angle [rad]",
           title="Four-bar parallelogram driven by 0.5 N m at A: qB = −qA, qC = qA")
    ax.title.set_fontsize(9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    out = Path(argv[0])
    known = [n for names in FIGURES for n in names]
    wanted = argv[1:] or known
    unknown = sorted(set(wanted) - set(known))
    if unknown:
        print(f"figures.py: unknown figure names {unknown}; known: {sorted(known)}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    for names, fn in FIGURES.items():
        if not set(names) & set(wanted):
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        figs = fn()
        figs = figs if isinstance(figs, dict) else {names[0]: figs}
        if sorted(figs) != sorted(names):
            raise RuntimeError(f"figure function {fn.__name__} drew {sorted(figs)}, registered as {sorted(names)}")
        for name, fig in figs.items():
            fig.savefig(out / f"{name}.png", dpi=DPI)
        print(f"{', '.join(names)}: {time.perf_counter() - t0:.2f} s ({time.process_time() - c0:.2f} s CPU)",
              file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
