"""Static-output-feedback (SOF) H-infinity benchmark plants of COMPleib, with named signals.

COMPleib (F. Leibfritz, *COMPleib: COnstrained Matrix-optimization Problem library -- a
collection of test examples for nonlinear semidefinite programs, control system design and
related problems*, Tech. report, Univ. Trier, 2004) is the standard test set of SOF
synthesis. Each problem is the generalized plant::

    x' = A x  + B1 w  + B2 u
    z  = C1 x + D11 w + D12 u
    y  = C2 x + D21 w            (D22 = 0)

and the SOF problem is ``min ||T_zw(K)||_inf`` over static gains ``u = K y``
(``K``: ``nu x ny``) that stabilise the loop, with the closed loop
``(A + B2 K C2, B1 + B2 K D21, C1 + D12 K C2, D11 + D12 K D21)``.

Data and licence: six small problems (AC4, AC17, HE1, HE2, REA1, REA2) shipped in
``satdyn/data/sof/compleib_sof.json``, read verbatim from the NCAlgebra repository
(github.com/NCAlgebra/NC, commit 4156ae4, ``TESTING/NCSDP/COMPleib/MmaCOMPleib/<name>.m``),
which redistributes COMPleib's data under the BSD 3-Clause licence (the notice is kept in
the JSON file). COMPleib's own MATLAB distribution carries no licence statement, so only
these files are used. Each problem also names the publication its plant comes from.

Public face: :func:`sof_problem_names`, :func:`sof_problem` -> :class:`SOFProblem` (matrices,
dimensions, sources, :meth:`~SOFProblem.plant` as a ``control.StateSpace`` with named
signals ``w[i], u[i]`` -> ``z[i], y[i]``, the :class:`satdyn.control.StaticGain` block and
:class:`satdyn.control.Gain` goal for :func:`satdyn.control.systune`, and
:meth:`~SOFProblem.closed_loop`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

__all__ = ["SOFProblem", "sof_problem", "sof_problem_names", "sof_data_provenance"]

_MATRICES = ("A", "B1", "B2", "C1", "C2", "D11", "D12", "D21")


@lru_cache(maxsize=1)
def _data():
    return json.loads(resources.files("satdyn.data").joinpath("sof/compleib_sof.json").read_text())


@dataclass(frozen=True)
class SOFProblem:
    """One COMPleib SOF problem.

    Attributes
    ----------
    name : str
        COMPleib code (``"HE1"``, ...).
    title : str
        What the plant models.
    original_source : str
        Publication of the plant (COMPleib's citation).
    A : ndarray (nx, nx)
    B1 : ndarray (nx, nw)
        Disturbance input.
    B2 : ndarray (nx, nu)
        Control input (COMPleib's ``B``).
    C1 : ndarray (nz, nx)
        Performance output.
    C2 : ndarray (ny, nx)
        Measurement (COMPleib's ``C``).
    D11 : ndarray (nz, nw)
    D12 : ndarray (nz, nu)
    D21 : ndarray (ny, nw)
    """

    name: str
    title: str
    original_source: str
    A: np.ndarray
    B1: np.ndarray
    B2: np.ndarray
    C1: np.ndarray
    C2: np.ndarray
    D11: np.ndarray
    D12: np.ndarray
    D21: np.ndarray

    @property
    def nx(self) -> int:
        """Number of states."""
        return self.A.shape[0]

    @property
    def nu(self) -> int:
        """Number of controls (rows of K)."""
        return self.B2.shape[1]

    @property
    def ny(self) -> int:
        """Number of measurements (columns of K)."""
        return self.C2.shape[0]

    @property
    def nw(self) -> int:
        """Number of disturbance inputs."""
        return self.B1.shape[1]

    @property
    def nz(self) -> int:
        """Number of performance outputs."""
        return self.C1.shape[0]

    @property
    def disturbances(self) -> list[str]:
        """Names ``w[0] ... w[nw-1]`` of the disturbance inputs."""
        return [f"w[{i}]" for i in range(self.nw)]

    @property
    def controls(self) -> list[str]:
        """Names ``u[0] ... u[nu-1]`` of the control inputs."""
        return [f"u[{i}]" for i in range(self.nu)]

    @property
    def performance(self) -> list[str]:
        """Names ``z[0] ... z[nz-1]`` of the performance outputs."""
        return [f"z[{i}]" for i in range(self.nz)]

    @property
    def measurements(self) -> list[str]:
        """Names ``y[0] ... y[ny-1]`` of the measured outputs."""
        return [f"y[{i}]" for i in range(self.ny)]

    def plant(self):
        """The open-loop generalized plant as a ``control.StateSpace``.

        Returns
        -------
        control.StateSpace
            ``nx`` states; inputs ``[w; u]`` (``nw + nu``) named ``w[i]``, ``u[i]``; outputs
            ``[z; y]`` (``nz + ny``) named ``z[i]``, ``y[i]``; ``D22 = 0``.
        """
        import control

        D = np.block([[self.D11, self.D12], [self.D21, np.zeros((self.ny, self.nu))]])
        return control.ss(self.A, np.hstack([self.B1, self.B2]), np.vstack([self.C1, self.C2]), D,
                          inputs=self.disturbances + self.controls, outputs=self.performance + self.measurements,
                          name=self.name)

    def gain_block(self, init=None, name: str = "K"):
        """The tunable static gain ``u = K y`` (:class:`satdyn.control.StaticGain`).

        Parameters
        ----------
        init : array_like (nu, ny), optional
            Initial gain (default 0).
        name : str
            Block name.
        """
        from satdyn.control import StaticGain

        return StaticGain(name, self.measurements, self.controls, init=init)

    def goal(self):
        """The H-infinity goal ``||T_zw||_inf`` (:class:`satdyn.control.Gain`, from all ``w`` to all ``z``)."""
        from satdyn.control import Gain

        return Gain(self.disturbances, self.performance)

    def closed_loop(self, K):
        """Closed-loop matrices under ``u = K y``.

        Parameters
        ----------
        K : array_like (nu, ny)

        Returns
        -------
        tuple of ndarray
            ``(Acl (nx, nx), Bcl (nx, nw), Ccl (nz, nx), Dcl (nz, nw))``.

        Raises
        ------
        ValueError
            If ``K`` is not ``(nu, ny)`` or not finite.
        """
        K = np.asarray(K, dtype=float)
        if K.shape != (self.nu, self.ny) or not np.all(np.isfinite(K)):
            raise ValueError(f"`K` must be a finite ({self.nu}, {self.ny}) array for {self.name}; "
                             f"got shape {K.shape}")
        from satdyn.control.problem import GenPlant  # the tuner's own closing of a static gain

        plant = GenPlant(*(getattr(self, m)[None] for m in _MATRICES))
        return tuple(M[0] for M in plant.close(K[None]))


def sof_problem_names() -> tuple[str, ...]:
    """COMPleib codes of the shipped problems: ``("AC4", "AC17", "HE1", "HE2", "REA1", "REA2")``."""
    return tuple(_data()["problems"])


def sof_problem(name: str) -> SOFProblem:
    """Load one shipped COMPleib SOF problem.

    Parameters
    ----------
    name : str
        One of :func:`sof_problem_names`.

    Returns
    -------
    SOFProblem

    Raises
    ------
    TypeError
        If ``name`` is not a string.
    ValueError
        If ``name`` is not a shipped problem.
    """
    if not isinstance(name, str):
        raise TypeError(f"`name` must be a COMPleib problem code (str); got {type(name).__name__}")
    problems = _data()["problems"]
    if name not in problems:
        raise ValueError(f"`name` must be one of {sorted(problems)}; got {name!r}")
    entry = problems[name]
    mats = {k: np.array(entry[k], dtype=float) for k in _MATRICES}
    return SOFProblem(name=name, title=entry["title"], original_source=entry["original_source"], **mats)


def sof_data_provenance() -> dict:
    """Provenance and licence of the shipped data.

    Returns
    -------
    dict
        ``{"description", "provenance": {repository, commit, path, conversion, note},
        "licence": {"spdx", "notice"}}`` as stored in the data file.
    """
    d = _data()
    return {k: d[k] for k in ("description", "provenance", "licence")}
