"""Headless Chromium for the satdyn.viz tests, and a textbook pinhole camera to predict pixels.

Each page is loaded from ``file://`` with the network cut (every host name resolves to nothing),
WebGL on SwiftShader (software), 800 x 600; the URL hash sets the view's state and ``ui=0`` hides
the control panel so that nothing covers the scene.  One Chromium run gives both the screenshot
and the DOM after the first frames, whose ``#satdyn-state`` holds what the page computed.
"""

from __future__ import annotations

import html
import importlib.metadata
import json
import re
import shutil
import subprocess
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest

WIDTH, HEIGHT = 800, 600
CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-unsafe-swiftshader", "--use-angle=swiftshader", "--host-resolver-rules=MAP * ~NOTFOUND",
         f"--window-size={WIDTH},{HEIGHT}", "--hide-scrollbars", "--virtual-time-budget=1500"]


def _panda_dir():
    """Franka Panda of example-robot-data (a test extra; a cmeel package installing its files
    under site-packages/cmeel.prefix/share), or None."""
    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots/panda_description"))
    return path if path.is_dir() else None


PANDA = _panda_dir()


class Browser:
    def __init__(self, workdir):
        self.workdir = workdir
        self.count = 0

    def render(self, path, hashes):
        """Screenshots (H, W, 3) in 0..255 and page states of ``path#hash`` for each hash (run in
        parallel); ``path`` may be a list, one page per hash."""
        paths = path if isinstance(path, (list, tuple)) else [path] * len(hashes)
        runs = []
        for page, h in zip(paths, hashes):
            self.count += 1
            png = self.workdir / f"shot{self.count}.png"
            cmd = [CHROMIUM, *FLAGS, f"--user-data-dir={self.workdir / f'profile{self.count}'}",
                   f"--screenshot={png}", "--dump-dom", f"{page.resolve().as_uri()}#{h}"]
            runs.append((png, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)))
        out = []
        for png, proc in runs:
            dom, _ = proc.communicate(timeout=120)
            match = re.search(r'<pre id="satdyn-state"[^>]*>(.*?)</pre>', dom.decode("utf-8", "replace"), re.DOTALL)
            assert match and match.group(1), "the page wrote no state (script error?)"
            assert "id=\"satdyn-error\"" not in dom.decode("utf-8", "replace"), "the page reported a script error"
            image = matplotlib.image.imread(png)[:, :, :3] * 255.0
            shutil.rmtree(png.parent / png.name.replace("shot", "profile").replace(".png", ""), ignore_errors=True)
            out.append((image, json.loads(html.unescape(match.group(1)))))
        return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (Debian: apt-get install -y chromium); the browser tests need it")
    return Browser(tmp_path_factory.mktemp("chromium"))


def project(camera, points, width=WIDTH, height=HEIGHT):
    """Pixel (column, row) of world points (n, 3) for a perspective camera looking from ``eye`` at
    ``target`` with ``up`` and a vertical field of view ``fov`` [deg] (the textbook pinhole, as
    OpenGL's lookAt + perspective): an oracle independent of three.js."""
    eye, target, up = (np.asarray(camera[k], dtype=float) for k in ("eye", "target", "up"))
    forward = (target - eye) / np.linalg.norm(target - eye)
    right = np.cross(forward, up)
    right /= np.linalg.norm(right)
    true_up = np.cross(right, forward)
    d = np.asarray(points, dtype=float) - eye
    x, y, z = d @ right, d @ true_up, d @ forward
    f = 1.0 / np.tan(np.radians(camera["fov"]) / 2)
    ndc_x, ndc_y = f * x / (z * width / height), f * y / z
    return np.column_stack([(ndc_x + 1) * width / 2, (1 - ndc_y) * height / 2])


def pixel_box(mask):
    """(col_min, col_max, row_min, row_max) of the True pixels, or None."""
    rows, cols = np.nonzero(mask)
    if rows.size == 0:
        return None
    return cols.min(), cols.max(), rows.min(), rows.max()


def projected_box(camera, points, image):
    """Pixel box of the projected points in a screenshot ``image`` (its size sets the aspect: the
    page follows the window, which headless Chromium sets to the screenshot size before capture)."""
    uv = project(camera, points, image.shape[1], image.shape[0])
    return uv[:, 0].min(), uv[:, 0].max(), uv[:, 1].min(), uv[:, 1].max()


def saturated(image, threshold=60.0):
    """Coloured (not grey) pixels: max - min channel above ``threshold`` (the background, the grey
    ghost wireframe and grey shapes stay below it)."""
    return image.max(axis=2) - image.min(axis=2) > threshold
