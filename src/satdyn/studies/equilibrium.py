"""The ``satdyn equilibrium`` study: the paper's Fig. 5 and Fig. 6 for the two-link arm.

* Fig. 5: relative error ``||(G1 - G2) G2^-1||_inf`` over a grid of ``(theta1, theta2)``
  between the LFT model ``G1`` (built once, evaluated in one batch) and ``G2``, the
  numerical trim + central-difference linearisation of the non-linear arm in
  :mod:`satdyn.multibody` at each configuration (:mod:`satdyn.equilibrium.comparator`).
* Fig. 6: singular values of ``dT -> dtheta`` at ``(70 deg, 30 deg)``: the nominal LFT
  model, ``n_samples`` random samples of the uncertain parameters (uniform in the +-20 %
  box, angles fixed) and the numerical comparator at the nominal.

Arguments used below
--------------------
geometry : str     zero configuration of the arm ("hanging", "upright", "horizontal")
g0 : float | str   gravity (see load_two_link_arm)
grid_step_deg      grid step of Fig. 5 [deg] over [-170, 170]
n_samples          uncertain samples of Fig. 6
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..equilibrium.arm import GEOMETRIES, load_two_link_arm, two_link_arm_data, two_link_arm_lfr
from ..equilibrium.comparator import multibody_arm, multibody_trim_linearise
from ..equilibrium.reference import frequency_response, relative_error
from ..runtime import limit_blas_threads

__all__ = ["EquilibriumStudy", "equilibrium_study", "COMPARATOR",
           "GEOMETRIES"]  # re-exported for the CLI (defined in satdyn.equilibrium.arm)

COMPARATOR = ("satdyn.multibody (articulated-body forward dynamics of the non-linear arm): "
              "numerical trim by root finding + central finite differences, per configuration")


@dataclass(frozen=True)
class EquilibriumStudy:
    """Result of :func:`equilibrium_study` (angles in degrees, frequencies in rad/s).

    Attributes
    ----------
    geometry, g0, option, comparator : run settings
    theta1_deg (N1,), theta2_deg (N2,) : Fig. 5 grid
    relative_error (N2, N1) : ``||(G1 - G2) G2^-1||_inf`` on ``frequencies``
    stiffness_sigma_min (N2, N1) : smallest singular value of ``K_g + Kp`` [N m/rad]
    stiffness_threshold : the ``sigma_min`` above which the 1e-6 claim is checked [N m/rad]
    max_error_stiff : worst relative error where ``sigma_min > stiffness_threshold``
    frequencies (F,)
    fig6_point_deg (2,) ; sigma_nominal (F, 2) ; sigma_samples (S, F, 2) ; sigma_comparator (F, 2)
    sample_values : dict name -> (S,) physical values of the uncertain samples
    lfr_ndelta, lfr_blocks : size of the model's Delta and occurrences per parameter
    build_seconds, lfr_seconds, comparator_seconds : wall-clock times of the three parts
    """

    geometry: str
    g0: float
    option: str
    comparator: str
    theta1_deg: np.ndarray
    theta2_deg: np.ndarray
    relative_error: np.ndarray
    stiffness_sigma_min: np.ndarray
    stiffness_threshold: float
    max_error_stiff: float
    frequencies: np.ndarray
    fig6_point_deg: np.ndarray
    sigma_nominal: np.ndarray
    sigma_samples: np.ndarray
    sigma_comparator: np.ndarray
    sample_values: dict
    lfr_ndelta: int
    lfr_blocks: dict
    build_seconds: float
    lfr_seconds: float
    comparator_seconds: float

    def to_dict(self) -> dict:
        return {
            "geometry": self.geometry, "g0": self.g0, "option": self.option, "comparator": self.comparator,
            "fig5": {"theta1_deg": self.theta1_deg, "theta2_deg": self.theta2_deg,
                     "relative_error": self.relative_error, "stiffness_sigma_min": self.stiffness_sigma_min,
                     "stiffness_threshold": self.stiffness_threshold, "max_error_stiff": self.max_error_stiff,
                     "max_error": float(np.nanmax(self.relative_error))},
            "fig6": {"point_deg": self.fig6_point_deg, "frequencies": self.frequencies,
                     "sigma_nominal": self.sigma_nominal, "sigma_comparator": self.sigma_comparator,
                     "sigma_samples_min": self.sigma_samples.min(axis=0),
                     "sigma_samples_max": self.sigma_samples.max(axis=0),
                     "n_samples": int(self.sigma_samples.shape[0]), "sample_values": self.sample_values},
            "lfr": {"ndelta": self.lfr_ndelta, "blocks": self.lfr_blocks},
            "timing_s": {"build": self.build_seconds, "lfr_evaluation": self.lfr_seconds,
                         "comparator": self.comparator_seconds},
        }


def _sigmas(A, B, C, omega):
    G = frequency_response(A, B, C, np.zeros(C.shape[:-1] + (B.shape[-1],)), omega)
    return np.linalg.svd(G, compute_uv=False)


def equilibrium_study(geometry: str = "hanging", g0=None, *, grid_step_deg: float = 10.0,
                      n_samples: int = 300, option: str = "B", seed: int = 0,
                      frequencies=None, stiffness_threshold: float = 1.0, progress=None) -> EquilibriumStudy:
    """Fig. 5 and Fig. 6 of the paper for the two-link arm (see module docstring).

    Parameters
    ----------
    geometry, g0 : see :func:`~satdyn.equilibrium.load_two_link_arm`
    grid_step_deg : float
        Step of the (theta1, theta2) grid over [-170, 170] deg (default 10).
    n_samples : int
        Random samples of the uncertain parameters for Fig. 6 (default 300).
    option : {"B", "A"}
        Assembly route of the LFT model.
    seed : int
        Seed of the Fig. 6 samples.
    frequencies : array_like, optional
        Frequency grid [rad/s] (default ``logspace(-2, 2, 200)``).
    stiffness_threshold : float
        ``sigma_min(K_g + Kp)`` above which the error is summarised [N m/rad] (default 1).
    progress : callable, optional
        ``progress(done, total)`` after each comparator configuration.
    """
    if not (np.isfinite(grid_step_deg) and 0.0 < grid_step_deg <= 170.0):
        raise ValueError(f"grid_step_deg must be in (0, 170] degrees, got {grid_step_deg!r}")
    if not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}")
    omega = np.logspace(-2, 2, 200) if frequencies is None else np.asarray(frequencies, dtype=float)
    if omega.ndim != 1 or omega.size == 0 or np.any(omega < 0) or not np.all(np.isfinite(omega)):
        raise ValueError("frequencies must be a non-empty 1-D array of non-negative rad/s")
    # many small dense problems: BLAS threads only fight for the cores
    with limit_blas_threads():
        arm = load_two_link_arm(geometry, g0)

        t0 = time.perf_counter()
        model = two_link_arm_lfr(option=option, arm=arm)
        build = time.perf_counter() - t0

        grid = np.arange(-170.0, 170.0 + 1e-9, grid_step_deg)
        t1, t2 = np.meshgrid(np.deg2rad(grid), np.deg2rad(grid))  # rows: theta2, columns: theta1
        t0 = time.perf_counter()
        batch = model.plant.evaluate_batch({"theta1": t1.ravel(), "theta2": t2.ravel()})
        G1 = frequency_response(batch.A, batch.B, batch.C[:, :2], batch.D[:, :2], omega)
        lfr_time = time.perf_counter() - t0

        mb_model = multibody_arm(arm)
        total = t1.size
        err = np.empty(total)
        smin = np.empty(total)
        t0 = time.perf_counter()
        for i, (a, b) in enumerate(zip(t1.ravel(), t2.ravel())):
            trim = multibody_trim_linearise(arm, np.array([a, b]), model=mb_model)
            G2 = frequency_response(trim.A, trim.B, np.eye(4)[:2], np.zeros((2, 2)), omega)
            err[i] = relative_error(G1[i], G2)
            K = -np.linalg.solve(trim.B[2:], trim.A[2:, :2])
            smin[i] = np.linalg.svd(K, compute_uv=False).min()
            if progress is not None:
                progress(i + 1, total)
        comparator_time = time.perf_counter() - t0
        err = err.reshape(t1.shape)
        smin = smin.reshape(t1.shape)
        stiff = smin > stiffness_threshold
        max_stiff = float(err[stiff].max()) if stiff.any() else float("nan")

        # Fig. 6
        point = np.array(two_link_arm_data()["figure6_point_deg"], dtype=float)
        th = np.deg2rad(point)
        nominal = model.plant.evaluate({"theta1": th[0], "theta2": th[1]})
        s_nom = _sigmas(nominal.A, nominal.B, nominal.C[:2], omega)
        rng = np.random.default_rng(seed)
        ranges = arm.parameter_ranges()
        samples = {k: rng.uniform(lo, hi, n_samples) for k, (lo, hi) in ranges.items() if k in model.plant.parameters}
        values = dict(samples, theta1=np.full(n_samples, th[0]), theta2=np.full(n_samples, th[1]))
        sb = model.plant.evaluate_batch(values)
        s_samples = _sigmas(sb.A, sb.B, sb.C[:, :2], omega)
        trim = multibody_trim_linearise(arm, th, model=mb_model)
        s_cmp = _sigmas(trim.A, trim.B, np.eye(4)[:2], omega)

    return EquilibriumStudy(
        geometry=geometry, g0=arm.g0, option=option, comparator=COMPARATOR,
        theta1_deg=grid, theta2_deg=grid, relative_error=err, stiffness_sigma_min=smin,
        stiffness_threshold=float(stiffness_threshold), max_error_stiff=max_stiff, frequencies=omega,
        fig6_point_deg=point, sigma_nominal=s_nom, sigma_samples=s_samples, sigma_comparator=s_cmp,
        sample_values=samples, lfr_ndelta=model.plant.ndelta,
        lfr_blocks={b.parameter.name: b.size for b in model.plant.blocks},
        build_seconds=build, lfr_seconds=lfr_time, comparator_seconds=comparator_time)
