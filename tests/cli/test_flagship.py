"""The flagship demo (`satdyn demo`): results.json keys, figures, and physics checks.

Oracles: the rigid-body closed loop of spec 000b section 3.1 (double pole at -w_att per
axis), python-control's H-infinity-free checks (poles, DC gain), and the data themselves
(the first plant mode must lie above the first array cantilever frequency, the total mass
of model 1 is 1100 + 2 x 45 kg).
"""

import json

import numpy as np
import pytest

from satdyn.cli import main
from satdyn.demo import attitude_closed_loop
from satdyn.lfr import as_lfr
from satdyn.titop import rigid_body


@pytest.fixture(scope="module")
def flagship(tmp_path_factory):
    out = tmp_path_factory.mktemp("flagship")
    assert main(["demo", "--samples", "20", "--out", str(out)]) == 0
    return out, json.loads((out / "results.json").read_text())


def test_results_json_keys(flagship):
    out, data = flagship
    for key in ("modes_hz", "hinf", "robust_stability", "worst_case_gain"):
        assert key in data
    for key in ("lower", "upper", "critical_frequency", "worst_case_values"):
        assert key in data["robust_stability"] and key in data["worst_case_gain"]
    assert data["synthetic"] is True
    for name in ("singular_values.png", "robust_analysis.png", "modes_vs_array_angle.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_results_physics(flagship):
    _, data = flagship
    modes = np.array(data["modes_hz"])
    # free-free modes lie above the cantilever ones (0.55 Hz first array mode)
    assert len(modes) == 6 and modes[0] > 0.55
    rs, wc = data["robust_stability"], data["worst_case_gain"]
    assert 1.0 < rs["lower"] <= rs["upper"]       # stable over the +/-20 % box
    # margin ~5: the loop is lost when an array frequency reaches 0 (delta = -1/0.2)
    assert rs["upper"] == pytest.approx(5.0, rel=0.02)
    assert wc["lower"] <= wc["upper"] * (1 + 1e-9)
    assert data["hinf"]["value"] <= wc["lower"] * (1 + 1e-6)
    assert wc["lower"] <= wc["upper"] * (1 + 1e-9)


def test_rigid_closed_loop_has_the_design_poles():
    # spec 000b 3.1 rigid-body check: each axis s^2 + 2 w s + w^2 (double pole at -w).
    J = np.array([[300.0, 5.0, 0.0], [5.0, 200.0, 0.0], [0.0, 0.0, 400.0]])
    hub = rigid_body("hub", 50.0, J, {}, frame="b")
    w = 2 * np.pi * 0.05
    cl = attitude_closed_loop(hub.lfr, J, bandwidth_hz=0.05).nominal()
    np.testing.assert_allclose(np.sort(np.linalg.eigvals(cl.A).real), -w, rtol=1e-5)
    with pytest.raises(ValueError, match="bandwidth_hz"):
        attitude_closed_loop(as_lfr(np.eye(6)), J, bandwidth_hz=0)
