"""The worked examples of docs/equilibrium.md run (so they cannot drift from the code)."""

import re
from pathlib import Path

import numpy as np

DOC = Path(__file__).resolve().parents[2] / "docs" / "equilibrium.md"


def test_equilibrium_page_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 3
    scope = {}
    exec(compile(blocks[0], "docs/equilibrium.md[0]", "exec"), scope)
    assert scope["sys"].A.shape == (4, 4)
    assert len(scope["batch"]) == scope["th1"].size and scope["batch"].valid.all()
    # holding torques of the hanging arm at (1.0, 0.2) rad: c1 sin(1.0) + c2 sin(1.2), c2 sin(1.2)
    c1, c2 = 9.81 * 7.9, 9.81 * 6.0
    np.testing.assert_allclose(scope["Tbar"], [c1 * np.sin(1.0) + c2 * np.sin(1.2), c2 * np.sin(1.2)], rtol=1e-10)
    scope = {}
    exec(compile(blocks[1], "docs/equilibrium.md[1]", "exec"), scope)
    A = scope["model"].plant.evaluate({"m": 2.0, "theta": 0.0}).A
    # (m l^2) theta'' + Kd theta' + (m g l + Kp) theta = T
    np.testing.assert_allclose(A[1], [-(2.0 * 9.81 * 0.7 + 0.1) / (2.0 * 0.49), -0.1 / (2.0 * 0.49)], rtol=1e-10)
    # The buoyant vehicle: buoyancy balances the weights (22 g0), the hull still needs the moment
    # of the arm's weight about P: -m g0 (0.5 + 0.4 cos q) about y (r x F with r in the x-z plane).
    scope = {}
    exec(compile(blocks[2], "docs/equilibrium.md[2]", "exec"), scope)
    assert scope["sys"].A.shape == (14, 14)
    np.testing.assert_allclose(scope["Wu"], [0, 0, 0, 0, -2.0 * 9.81 * (0.5 + 0.4 * np.cos(0.5)), 0],
                               rtol=0, atol=1e-12 * 22 * 9.81)
