"""The :class:`Scene` object: one view's data, written as one self-contained HTML file.

The file inlines three.js (package data, MIT licence, see ``static/README.md``), satdyn's viewer
script and the scene's data as JSON, so it opens offline in any browser from ``file://``, with no
server.  In a notebook the same scene shows itself as an iframe (``_repr_html_``).

Numbers are written with about 6 significant digits relative to each array's largest entry
(float32 display precision; a pixel of an 800 px view is 1/800 of the scene, far coarser).
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from .._validation import SatdynInputError

__all__ = ["Scene", "VizInputError", "fit_camera"]

SIGNIFICANT_DIGITS = 6
DEFAULT_VIEW_DIRECTION = (1.0, -1.6, 1.2)     # from the target towards the eye: above, in front, to the right
KINDS = ("modes", "robot", "trajectory", "assembly")


class VizInputError(SatdynInputError):
    """Bad input to a satdyn.viz view (names the argument and what was expected)."""


def _static(name: str) -> str:
    return resources.files("satdyn.viz").joinpath("static", name).read_text(encoding="utf-8")


def rounded(array, digits: int = SIGNIFICANT_DIGITS) -> list:
    """Flat list of ``array``'s entries rounded to ``digits`` significant digits of its largest |entry|."""
    a = np.asarray(array, dtype=float).ravel()
    if a.size == 0:
        return []
    if not np.all(np.isfinite(a)):
        raise VizInputError("data to display must be finite (got NaN or inf)")
    top = float(np.abs(a).max())
    decimals = digits - 1 - math.floor(math.log10(top)) if top > 0 else 0
    out = np.round(a, decimals)
    return [float(x) + 0.0 for x in out]          # + 0.0: no "-0.0" in the file


def fit_camera(lower, upper, direction=DEFAULT_VIEW_DIRECTION, fov: float = 40.0, aspect: float = 4.0 / 3.0,
               margin: float = 1.05) -> dict:
    """Camera (eye, target, fov [deg], near, far, up = +z) that frames the box ``lower``..``upper`` [m].

    The target is the box centre; the eye sits along ``direction`` at the distance where the box's
    bounding sphere (radius times ``margin``) fits the narrower of the vertical field of view and the
    horizontal one at ``aspect`` (width / height).
    """
    lo, hi = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    centre = 0.5 * (lo + hi)
    radius = max(0.5 * float(np.linalg.norm(hi - lo)), 1e-3)
    d = np.asarray(direction, dtype=float)
    d = d / np.linalg.norm(d)
    half_v = math.radians(fov) / 2
    half = min(half_v, math.atan(math.tan(half_v) * aspect))
    dist = margin * radius / math.sin(half)
    return {"eye": rounded(centre + dist * d), "target": rounded(centre), "up": [0.0, 0.0, 1.0], "fov": float(fov),
            "near": float(dist / 100), "far": float(dist * 100)}


# a script error shows on the page (and in the DOM, where the tests look for it)
_ERROR_HANDLER = ("<script>window.addEventListener('error', function (e) { var d = document.createElement('div');"
                  " d.id = 'satdyn-error'; d.textContent = 'satdyn.viz: ' + e.message;"
                  " document.body.appendChild(d); });"
                  "</script>\n")


@dataclass
class Scene:
    """One 3D view: ``kind`` (modes, robot, trajectory, assembly), its JSON-able ``data`` and a title.

    Build it with the view functions of :mod:`satdyn.viz`; then ``scene.save("view.html")``,
    ``scene.to_html()``, or show it in a notebook (``_repr_html_``).  The URL hash of the saved
    file sets the initial state (docs/viz.md), e.g. ``view.html#mode=3&t=0.5``.
    """

    kind: str
    data: dict
    title: str = "satdyn"
    camera: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise VizInputError(f"`kind` must be one of {KINDS}; got {self.kind!r}")

    def payload(self) -> dict:
        """The JSON object the viewer reads."""
        return {"kind": self.kind, "title": self.title, "camera": self.camera, **self.data}

    def to_html(self) -> str:
        """The whole self-contained HTML document (str)."""
        data = json.dumps(self.payload(), separators=(",", ":"), allow_nan=False)
        # inside <script> only "</" can end the element early; "<\/" is the same JSON string
        data = data.replace("</", "<\\/")
        return "".join([
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
            f"<title>{html.escape(self.title)}</title>\n<style>\n", _static("viewer.css"), "</style></head>\n<body>\n",
            "<div id=\"satdyn-panel\"></div><div id=\"satdyn-help\">drag: turn, shift/right drag: pan, wheel: "
            "zoom</div>",
            "<pre id=\"satdyn-state\" hidden></pre>\n",
            _ERROR_HANDLER,
            "<script type=\"application/json\" id=\"satdyn-data\">", data, "</script>\n",
            "<!-- three.js r159, MIT licence, Copyright 2010-2023 three.js authors -->\n<script>\n",
            _static("three.min.js"), "\n</script>\n<script>\n", _static("viewer.js"), "\n</script>\n</body></html>\n",
        ])

    def save(self, path) -> Path:
        """Write the HTML file; returns its path."""
        path = Path(path)
        if path.suffix.lower() not in (".html", ".htm"):
            raise VizInputError(f"`path` must end in .html; got {str(path)!r}")
        path.write_text(self.to_html(), encoding="utf-8")
        return path

    def _repr_html_(self) -> str:
        return (f"<iframe srcdoc=\"{html.escape(self.to_html(), quote=True)}\" style=\"width: 100%; height: 520px; "
                "border: 1px solid #ccc;\" sandbox=\"allow-scripts\" title=\""
                f"{html.escape(self.title, quote=True)}\"></iframe>")
