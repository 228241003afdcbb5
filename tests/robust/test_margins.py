"""Disk and classical loop margins checked against python-control (stability_margins,
disk_margins with slycot's mu for the multiloop margin) and the disk-margin formulas."""

from __future__ import annotations

import control
import numpy as np
import pytest

from satdyn.lfr import ss, ureal
from satdyn.robust import disk_gain_phase, loop_margins

W = np.geomspace(1e-2, 1e2, 3000)


@pytest.mark.parametrize("P, K", [
    (control.tf([1], [1, 1, 0]), control.tf([2, 1], [0.1, 1])),
    (control.tf([4], [1, 0.8, 1.5, 0.2]), control.tf([0.2], [1])),
    (control.tf([1, 3], [1, 2, 5, 0.5]), control.tf([5, 1], [1, 0])),
])
def test_siso_margins_equal_python_control(P, K):
    res = loop_margins(control.ss(P), control.ss(K), frequencies=W).nominal
    L = K * P
    gm, pm, _, _, wpc, _ = control.stability_margins(L)
    # classical margins: both refine the crossings (control from the polynomials, we by root
    # finding on the grid): agreement to 1e-7 relative
    assert np.isclose(res.phase_margin_input[0], pm, rtol=1e-7)
    assert np.isclose(res.gain_margin_input[0], gm, rtol=1e-7) or (np.isinf(gm) and np.isinf(res.gain_margin_input[0]))
    # disk margin on the same grid: the same formula |S - 1/2| evaluated twice (1e-10)
    dm, dgm, dpm = control.disk_margins(L, W)
    assert np.isclose(res.disk_input[0], dm, rtol=1e-10)
    lo, hi, ph = disk_gain_phase(res.disk_input[0])
    assert np.isclose(20 * np.log10(hi), dgm, rtol=1e-10) and np.isclose(ph, dpm, rtol=1e-10)
    assert res.stable


def test_disk_gain_phase_formulas():
    # balanced disk: gains (2 - a)/(2 + a) and its inverse, phase 2 atan(a/2) (Seiler et al. 2020)
    a = np.array([0.2, 0.8, 1.5])
    lo, hi, ph = disk_gain_phase(a)
    assert np.allclose(lo, (2 - a) / (2 + a)) and np.allclose(hi, (2 + a) / (2 - a))
    assert np.allclose(ph, np.degrees(2 * np.arctan(a / 2)))
    # skew 1 (disk of S): f = 1/(1 - d), gains [1/(1 + a), 1/(1 - a)], unbounded for a >= 1
    lo1, hi1, _ = disk_gain_phase(np.array([0.5, 1.2]), skew=1.0)
    assert np.allclose(lo1, 1 / (1 + np.array([0.5, 1.2]))) and np.isclose(hi1[0], 2.0) and np.isinf(hi1[1])


def test_mimo_multiloop_disk_margin_equals_python_control():
    # the spinning-body example of python-control's disk_margins docstring (MATLAB diskmargin)
    P = control.ss([[0, 10], [-10, 0]], np.eye(2), [[1, 10], [-10, 1]], 0)
    K = control.ss([], [], [], [[1, -2], [0, 1]])
    w = np.logspace(-1, 3, 1000)      # 1000 points: none on the imaginary-axis poles +-10j
    res = loop_margins(P, K, frequencies=w).nominal
    # python-control bounds mu with slycot's AB13MD, we with satdyn.robust.mussv: both D-scaling
    # upper bounds of complex scalar blocks (exact for 2 blocks), each optimised to ~1e-4
    # relative (docs/robust.md), hence 2e-4
    dm_in, _, _ = control.disk_margins(K * P, w)
    dm_out, _, _ = control.disk_margins(P * K, w)
    assert np.isclose(res.multiloop_disk_input, dm_in, rtol=2e-4)
    assert np.isclose(res.multiloop_disk_output, dm_out, rtol=2e-4)
    # loop at a time: the diagonal of S_i = (I + K P)^-1 from python-control's evaluation of K P
    for k in range(2):
        S = np.array([np.linalg.inv(np.eye(2) + (K * P)(1j * x))[k, k] for x in w])
        assert np.isclose(res.disk_input[k], 1 / np.abs(S - 0.5).max(), rtol=1e-10)


def test_margins_over_samples_equal_python_control():
    # an uncertain plant: each sample's margins equal python-control's on the evaluated sample
    k = ureal("k", 2.0, percent=40)
    a = ureal("a", 1.0, range=(0.5, 2.0))
    P = ss([[0, 1], [0, -a]], [[0], [k]], [[1, 0]], [[0]])
    K = control.tf([3, 1], [0.05, 1])
    res = loop_margins(P, K, frequencies=W, n_samples=5, seed=4)
    assert len(res.samples) == 5
    for i, m in enumerate(res.samples):
        sys = P.evaluate({n: v[i] for n, v in res.sample_values.items()})
        _, pm, _, _, _, _ = control.stability_margins(K * sys)
        assert np.isclose(m.phase_margin_input[0], pm, rtol=1e-7)
        dm, _, _ = control.disk_margins(K * sys, W)
        assert np.isclose(m.disk_input[0], dm, rtol=1e-10)
    assert res.worst["disk_input"] == min(s.disk_input[0] for s in (res.nominal, *res.samples))


def test_unstable_loop_reported():
    P = control.ss(control.tf([1], [1, -1]))
    res = loop_margins(P, control.ss([], [], [], [[0.5]]), frequencies=W).nominal
    assert not res.stable


@pytest.mark.parametrize("kwargs, match", [
    ({"controller": "K"}, "controller"),
    ({"controller": control.ss([], [], [], np.ones((2, 2)))}, "controller"),
    ({"skew": 2.0}, "skew"),
    ({"n_samples": -1}, "n_samples"),
    ({"frequencies": [1.0]}, "frequencies"),
    ({"frequencies": [2.0, 1.0]}, "frequencies"),
])
def test_margins_bad_arguments(kwargs, match):
    args = {"plant": control.ss(control.tf([1], [1, 1, 0])), "controller": control.ss(control.tf([2], [1]))}
    args.update(kwargs)
    with pytest.raises((ValueError, TypeError), match=match):
        loop_margins(args.pop("plant"), args.pop("controller"), **args)
