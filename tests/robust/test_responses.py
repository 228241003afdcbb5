"""Uncertain frequency / time responses checked against python-control on the sampled systems."""

from __future__ import annotations

import control
import numpy as np
import pytest

from satdyn.lfr import ss, ureal, vreal
from satdyn.robust import uncertain_frequency_response, uncertain_time_response


def _two_mass():
    """Two masses and a spring, uncertain stiffness and mass, a varying damping: 4 states, 1 in, 2 out."""
    k = ureal("k", 4.0, percent=30)
    m = ureal("m", 2.0, range=(1.5, 3.0))
    c = vreal("c", 0.2, range=(0.1, 0.4))
    A = [[0, 1, 0, 0], [-k, -c, k, c], [0, 0, 0, 1], [k / m, c / m, -k / m, -c / m - 0.05]]
    return ss(A, [[0], [1], [0], [0]], [[1, 0, 0, 0], [0, 0, 1, 0]], [[0], [0]], inputs=["F"], outputs=["x1", "x2"])


def _sampled_systems(lfr, values, at):
    """control.StateSpace of every sample, evaluated one by one (the oracle's inputs)."""
    n = len(next(iter(values.values())))
    return [lfr.evaluate({**at, **{k: v[i] for k, v in values.items()}}) for i in range(n)]


@pytest.mark.parametrize("kind", ["step", "impulse", "initial", "input"])
def test_time_responses_equal_python_control(kind):
    G = _two_mass()
    t = np.linspace(0, 20, 801)
    rng = np.random.default_rng(3)
    u = rng.standard_normal(t.size)
    x0 = np.array([0.1, 0.0, -0.2, 0.3])
    kw = {"u": u} if kind == "input" else {"x0": x0} if kind == "initial" else {}
    res = uncertain_time_response(G, t, kind=kind, n_samples=6, seed=1, at={"c": 0.3}, **kw)
    systems = _sampled_systems(G, res.sample_values, {"c": 0.3})
    # oracle: python-control's own simulations of each evaluated sample (exact discretisation
    # with linear input interpolation on both sides: agreement to rounding, 1e-9 of the peak)
    for y, sys in zip(res.samples, systems):
        if kind == "step":
            ref = control.step_response(sys, t).outputs
        elif kind == "impulse":
            ref = control.impulse_response(sys, t).outputs
        elif kind == "initial":
            ref = control.initial_response(sys, t, x0).outputs
        else:
            ref = control.forced_response(sys, t, u).outputs
        ref = np.asarray(ref).reshape(2, -1).T
        assert np.abs(y - ref).max() <= 1e-9 * max(1.0, np.abs(ref).max())
    # envelope and worst sample: invariants of their definitions
    assert np.all(res.envelope_low <= res.samples + 1e-15) and np.all(res.envelope_high >= res.samples - 1e-15)
    peaks = np.abs(res.samples).max(axis=(1, 2))
    assert res.worst_peak == peaks.max() and res.worst_index == int(np.argmax(peaks))


def test_frequency_response_samples_and_worst_case():
    G = _two_mass()
    w = np.geomspace(0.3, 10, 25)
    res = uncertain_frequency_response(G, w, outputs="x2", n_samples=8, seed=2, at={"c": 0.2})
    systems = _sampled_systems(G, res.sample_values, {"c": 0.2})
    # samples: python-control's frequency response of each evaluated sample (same algebra: 1e-12)
    for g, sys in zip(res.samples, systems):
        ref = np.asarray(sys.frequency_response(w).complex)[1, 0]
        assert np.abs(g[:, 0, 0] - ref).max() <= 1e-12 * np.abs(ref).max()
    nom = np.asarray(G.evaluate({"c": 0.2}).frequency_response(w).complex)[1, 0]
    assert np.allclose(res.nominal[:, 0, 0], nom, rtol=1e-12)
    # worst-case upper bound: a certificate, so it must dominate every gain in the box; the
    # box is 2-D, a 41 x 41 grid of it gives gains the bound must not undercut (1e-6: the
    # bisection's own tolerance is relative 1e-3 *above* the optimum, never below)
    kk, mm = np.meshgrid(np.linspace(2.8, 5.2, 41), np.linspace(1.5, 3.0, 41))
    grid = G.subs({"c": 0.2})[["x2"], :].freqresp(w, {"k": kk.ravel(), "m": mm.ravel()})
    dense = np.abs(grid[:, :, 0, 0]).max(axis=0)
    assert np.all(res.worst_case_upper >= dense * (1 - 1e-6))
    assert np.all(res.worst_case_lower <= dense * (1 + 1e-12))


@pytest.mark.parametrize("call, match", [
    (lambda G: uncertain_frequency_response(G, [-1.0, 2.0]), "frequencies"),
    (lambda G: uncertain_frequency_response(G, [1.0], n_samples=-1), "n_samples"),
    (lambda G: uncertain_frequency_response(G, [1.0], outputs="nope"), "outputs"),
    (lambda G: uncertain_frequency_response(G, [1.0], at={"k": 3.0}), "at"),
    (lambda G: uncertain_frequency_response("G", [1.0]), "lfr"),
    (lambda G: uncertain_time_response(G, [0, 1, 3]), "time"),
    (lambda G: uncertain_time_response(G, [1, 2, 3]), "time"),
    (lambda G: uncertain_time_response(G, np.linspace(0, 1, 5), kind="ramp"), "kind"),
    (lambda G: uncertain_time_response(G, np.linspace(0, 1, 5), kind="input"), "u"),
    (lambda G: uncertain_time_response(G, np.linspace(0, 1, 5), kind="input", u=np.ones(4)), "u"),
    (lambda G: uncertain_time_response(G, np.linspace(0, 1, 5), kind="initial"), "x0"),
    (lambda G: uncertain_time_response(G, np.linspace(0, 1, 5), x0=np.zeros(4)), "x0"),
    (lambda G: uncertain_time_response(G, np.linspace(0, 1, 5), input_index=3), "input_index"),
])
def test_response_bad_arguments(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call(_two_mass())


def test_figures_draw_with_units():
    # satdyn.plotting.uncertain draws the result objects; axis labels carry the units given
    from satdyn.plotting import plot_uncertain_bode, plot_uncertain_sigma, plot_uncertain_time_response

    G = _two_mass()
    fr = uncertain_frequency_response(G, np.geomspace(0.3, 10, 12), n_samples=3, input_unit="N", output_unit="m")
    figs = {**plot_uncertain_bode(fr, output=1), **plot_uncertain_sigma(fr)}
    assert "[m / N]" in figs["sigma"].axes[0].get_ylabel() and "[m / N]" in figs["bode"].axes[0].get_ylabel()
    tr = uncertain_time_response(G, np.linspace(0, 5, 51), n_samples=3, output_unit="m")
    fig = plot_uncertain_time_response(tr)["step_response"]
    assert len(fig.axes) == 2 and "[m]" in fig.axes[0].get_ylabel()
