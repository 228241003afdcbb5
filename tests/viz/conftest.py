"""Headless Chromium for the satdyn.viz tests, and a textbook pinhole camera to predict pixels.

One Chromium per test session, driven through the DevTools protocol on a pipe (no network port,
no websocket): each page is opened from ``file://`` in a fresh tab of 800 x 600 CSS pixels with
the network cut (every host name resolves to nothing), WebGL on SwiftShader (software); the URL
hash sets the view's state and ``ui=0`` hides the control panel so that nothing covers the scene.
After the page has drawn a few frames the tab gives its screenshot and the state the page
computed (``#satdyn-state``).
"""

from __future__ import annotations

import base64
import fcntl
import importlib.metadata
import io
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest

WIDTH, HEIGHT = 800, 600
CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-unsafe-swiftshader", "--use-angle=swiftshader", "--host-resolver-rules=MAP * ~NOTFOUND",
         f"--window-size={WIDTH},{HEIGHT}", "--hide-scrollbars", "--remote-debugging-pipe"]
FRAMES = 3           # frames drawn before the screenshot (the first has every object in place)
PAGE_TIMEOUT = 60.0  # [s] a page that draws nothing by then has failed


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
    """Chromium's DevTools protocol on fds 3 (commands in) and 4 (replies out), NUL-separated JSON."""

    def __init__(self, profile):
        to_chrome, self._write = os.pipe()
        self._read, from_chrome = os.pipe()

        def fds():
            # in the child: the pipe ends onto fds 3 and 4, where Chromium expects them (moved
            # above 10 first, in case either already sits on 3 or 4); close_fds=False because
            # subprocess would close 3 and 4 after this hook (Python's own fds are not inherited);
            # only fcntl/dup2 here (async-signal-safe), so the hook is safe in a threaded parent
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_chrome, from_chrome)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                     close_fds=False, preexec_fn=fds,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome)
        os.close(from_chrome)
        self._buffer, self._id = b"", 0

    def send(self, method, params=None, session=None):
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._read, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:          # (events have no id)
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def shot(self, url):
        """(image (H, W, 3) in 0..255, state dict) of one page."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        try:
            session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            self.send("Emulation.setDeviceMetricsOverride",
                      {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False}, session)
            self.send("Page.navigate", {"url": url}, session)
            probe = ("JSON.stringify([(document.getElementById('satdyn-state') || {}).textContent || '',"
                     " (document.getElementById('satdyn-error') || {}).textContent || ''])")
            deadline = time.monotonic() + PAGE_TIMEOUT
            while True:
                value = self.send("Runtime.evaluate", {"expression": probe, "returnByValue": True}, session)
                state, error = json.loads(value["result"].get("value", '["", ""]'))
                assert not error, f"the page reported a script error: {error}"
                if state and json.loads(state)["frames"] >= FRAMES:
                    break
                assert time.monotonic() < deadline, f"the page drew no frame in {PAGE_TIMEOUT} s: {url}"
                time.sleep(0.05)
            png = base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"}, session)["data"])
        finally:
            self.send("Target.closeTarget", {"targetId": target})
        image = matplotlib.image.imread(io.BytesIO(png), format="png")[:, :, :3] * 255.0
        return image, json.loads(state)

    def render(self, path, hashes):
        """Screenshots and page states of ``path#hash`` for each hash; ``path`` may be a list,
        one page per hash."""
        paths = path if isinstance(path, (list, tuple)) else [path] * len(hashes)
        return [self.shot(f"{page.resolve().as_uri()}#{h}") for page, h in zip(paths, hashes)]

    def close(self):
        os.close(self._write)
        self.proc.terminate()
        self.proc.wait(timeout=30)
        os.close(self._read)


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (Debian: apt-get install -y chromium); the browser tests need it")
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield b
    b.close()


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
