"""Structured singular value bounds (the Python counterpart of MATLAB's ``mussv``).

Arguments:
    M : complex array (..., n, m) — one matrix per frequency (or per any batch index).
    blocks : block structure (``BlockStructure``, a sequence of ``UncertaintyBlock``, or
             MATLAB rows: ``[-r, 0]`` repeated real scalar, ``[r, 0]`` repeated complex
             scalar, ``[p, q]`` full complex p-by-q block). n = sum of z sizes, m = sum
             of w sizes.
    frequencies : optional array (...,), rad/s, stored in the result for reference.

Upper bound: D-G scalings by a dedicated batched descent (``mu_upper``); lower bound:
structured power iteration and real-parameter search (``mu_lower``). The optional LMI
cross-check (``lmi_upper_bound``) needs the ``lmi`` extra (cvxpy) and is imported lazily.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np

from .._validation import as_float_array
from .checks import check_bool, check_callable, check_fraction, check_int
from .lfr_access import lfr_to_mdelta, simplified
from .mu_branch import tighten_real_upper
from .mu_centers import direct_start, needs_refinement, refine_rows, refine_supremum
from .mu_lower import mu_lower_bound
from .mu_upper import DGScalings, mu_upper_bound, osborne_scalings
from .structure import BlockStructure, real_block

__all__ = ["MussvResult", "mussv", "lmi_upper_bound", "lmi_margin", "check_mu_matrix"]


@dataclass(frozen=True)
class MussvResult:
    """Bounds of mu for a stack of matrices.

    Attributes
    ----------
    upper, lower : ndarray (...,)
        lower <= mu <= upper at each index.
    frequencies : ndarray (...,) or None
        The frequencies (rad/s) the matrices belong to, when given.
    scalings : DGScalings
        Certificate of ``upper`` (arrays with the leading shape of M):
        ``M^H Dz M + j (G M - M^H G^H) - upper^2 Dw <= 0``.
    destabilizing_delta : complex ndarray (..., m, n)
        Structured Delta with det(I - M Delta) = 0 and sigma_max(Delta) = 1/lower
        (zeros where lower == 0).
    structure : BlockStructure
    dg_upper : ndarray (...,)
        The D-G bound certified by ``scalings``; ``upper`` is smaller where the branch and
        bound on the parameter box (purely real structures) proved a tighter bound.
    delta_channels_before, delta_channels_after : int or None
        For ``mussv`` on an LFR: its Delta channels as given and as analysed (after
        ``satdyn.lfr.reduce``); None for matrices.
    """

    upper: np.ndarray
    lower: np.ndarray
    frequencies: object
    scalings: DGScalings
    destabilizing_delta: np.ndarray
    structure: BlockStructure
    dg_upper: np.ndarray
    delta_channels_before: int | None = None
    delta_channels_after: int | None = None

    @property
    def peak_index(self):
        """Index (into the flattened stack) of the largest upper bound."""
        return int(np.argmax(np.ravel(self.upper)))

    def to_dict(self) -> dict:
        return {
            "upper": self.upper,
            "lower": self.lower,
            "frequencies": self.frequencies,
            "blocks": [(b.kind, b.w_size, b.z_size) for b in self.structure.blocks],
        }


def check_mu_matrix(M, structure: BlockStructure, name: str = "M") -> np.ndarray:
    """Validate M (..., n, m) against the structure; returns a complex array."""
    try:
        array = np.asarray(M, dtype=complex)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`{name}` must be a numeric array of shape (..., n, m)") from exc
    if array.ndim < 2:
        raise ValueError(f"`{name}` must have shape (..., n, m); got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"`{name}` must contain only finite numbers (no NaN or inf)")
    structure.check_matrix_shape(array.shape, name)
    return array


def mussv(M, blocks=None, frequencies=None, *, lower: bool = True, accuracy: float = 1e-4,
          iterations: int = 40, seed: int = 0, branch_and_bound: bool = True,
          refine="peak", progress=None, simplify: bool = True) -> MussvResult:
    """Upper and lower bounds of the structured singular value mu_Delta(M).

    Parameters
    ----------
    M : array_like (..., n, m), or a satdyn LFR
        One complex matrix per frequency; or an LFR with uncertain real parameters, whose
        Delta loop M11(jw) is analysed at ``frequencies`` (its blocks give the structure).
    blocks : BlockStructure, sequence of UncertaintyBlock, or MATLAB-style rows
        Required for matrices; must be None for an LFR.
    frequencies : array_like (...,), optional
        Stored in the result (rad/s); required (1-D) for an LFR.
    lower : bool
        Compute the lower bound (default True).
    accuracy : float
        Relative accuracy target of the upper bound's descent.
    iterations : int
        Descent iterations per continuation stage.
    seed : int
        Seed of the lower bound's random restarts.
    branch_and_bound : bool
        For purely real structures of at most 4 blocks (the splitting grows as 2^blocks), try to
        prove an upper bound within 0.8 % (then 1.8 %) of the lower bound by splitting the
        parameter box (``mu_branch``), where the D-G bound leaves a larger gap.
    refine : {"peak", True, False}
        Structures with repeated scalar blocks (possibly with full blocks too; elsewhere the
        descent converges by itself): finish the D-G optimisation by the method of centres (``mu_centers``).
        "peak" (default) refines the largest bounds until no unrefined bound exceeds the
        refined maximum, so ``upper.max()`` is converged; True refines every matrix
        (~100 Newton steps each); False keeps the fast descent's bounds (valid, but up to
        tens of per cent above the D-G optimum).
    progress : callable(done, total, message), optional
        Called as refinement proceeds.
    simplify : bool
        LFR only: reduce it first (``satdyn.lfr.reduce``, default True); the channel counts
        are on the result.

    Returns
    -------
    MussvResult
    """
    if hasattr(M, "blocks") and hasattr(M, "A"):
        return _mussv_lfr(M, blocks, frequencies, simplify, dict(
            lower=lower, accuracy=accuracy, iterations=iterations, seed=seed,
            branch_and_bound=branch_and_bound, refine=refine, progress=progress))
    if blocks is None:
        raise TypeError("`blocks` is required for a matrix `M` (e.g. [real_block(2), complex_block()])")
    lower = check_bool(lower, "lower")
    accuracy = check_fraction(accuracy, "accuracy")
    iterations = check_int(iterations, "iterations", 1)
    seed = check_int(seed, "seed", 0)
    branch_and_bound = check_bool(branch_and_bound, "branch_and_bound")
    check_callable(progress, "progress")
    if not (isinstance(refine, str) and refine == "peak") and refine is not True and refine is not False:
        raise ValueError(f"`refine` must be 'peak', True or False; got {refine!r}")
    structure = BlockStructure.parse(blocks)
    array = check_mu_matrix(M, structure)
    lead = array.shape[:-2]
    if frequencies is not None:
        try:
            frequencies = np.asarray(frequencies, dtype=float)
        except (TypeError, ValueError):
            raise TypeError("`frequencies` must be an array of frequencies (rad/s)") from None
        if frequencies.shape != lead:
            raise ValueError(
                f"`frequencies` must have the leading shape of `M` {lead}; got {frequencies.shape}"
            )
        if not np.all(np.isfinite(frequencies)) or np.any(frequencies < 0):
            raise ValueError("`frequencies` must be finite and >= 0 (rad/s)")
    flat = array.reshape((-1,) + array.shape[-2:])
    start = direct_start(flat, structure) if refine is True and needs_refinement(structure) else None
    if start is None:
        upper, scalings, _ = mu_upper_bound(flat, structure, iterations=iterations, accuracy=accuracy)
    else:   # a few small matrices, all to be converged: the method of centres from Osborne
        upper, scalings = start
    if refine is not False and needs_refinement(structure):
        if refine is True:
            upper, scalings = refine_rows(flat, structure, upper, scalings, np.arange(flat.shape[0]),
                                          accuracy=accuracy, progress=progress)
        else:
            upper, scalings, _ = refine_supremum(flat, structure, upper, scalings, accuracy=accuracy,
                                                 progress=progress)
    if lower:
        low, delta = mu_lower_bound(flat, structure, seed=seed)
    else:
        low = np.zeros(flat.shape[0])
        delta = np.zeros((flat.shape[0], structure.m, structure.n), complex)
    # the lower bound is exact where found; never report it above the (valid) upper bound
    # by more than rounding
    upper = np.maximum(upper, low)
    dg_upper = upper.copy()
    if branch_and_bound and lower and structure.all_real and len(structure.blocks) <= 4:
        for i in np.flatnonzero(upper > low * 1.008):
            upper[i] = tighten_real_upper(flat[i], structure, upper[i], low[i])
    shaped = DGScalings(
        scalings.Dz.reshape(lead + scalings.Dz.shape[1:]),
        scalings.Dw.reshape(lead + scalings.Dw.shape[1:]),
        scalings.G.reshape(lead + scalings.G.shape[1:]),
    )
    return MussvResult(
        upper=upper.reshape(lead),
        lower=low.reshape(lead),
        frequencies=frequencies,
        scalings=shaped,
        destabilizing_delta=delta.reshape(lead + delta.shape[1:]),
        structure=structure,
        dg_upper=dg_upper.reshape(lead),
    )


def _mussv_lfr(lfr, blocks, frequencies, simplify, options):
    """mussv of an LFR's Delta loop M11(jw) at ``frequencies`` (its own real block structure)."""
    lfr, before, after = simplified(lfr, simplify)
    if blocks is not None:
        raise ValueError("`blocks` must be None for an LFR: its Delta blocks give the structure")
    if frequencies is None:
        raise ValueError("`frequencies` (rad/s) are required for mussv on an LFR")
    freqs = np.atleast_1d(as_float_array(frequencies, "frequencies"))
    if freqs.ndim != 1 or np.any(freqs < 0):
        raise ValueError(f"`frequencies` must be a 1-D array of values >= 0 (rad/s); got shape {freqs.shape}")
    system, _ = lfr_to_mdelta(lfr)
    M11 = system.response(freqs)[:, : system.ndelta, : system.ndelta]
    result = mussv(M11, [real_block(r) for r in system.block_sizes], freqs, **options)
    return replace(result, delta_channels_before=before, delta_channels_after=after)


def lmi_upper_bound(M, blocks, *, solver: str | None = "CLARABEL", tol: float = 1e-6):
    """Same D-G upper bound from the LMI, by bisection on beta with cvxpy (cross-check only).

    Each step solves the LMI's optimal margin (``lmi_margin``) and moves the upper end where
    the solver returns a negative margin (status "optimal", its reduced-accuracy
    "optimal_inaccurate" -- Clarabel reports it even at clear margins -- or "unbounded");
    a failed solve near the boundary cannot lower the bound.

    Needs the optional ``lmi`` extra (cvxpy). Slow; use ``mussv`` in production.

    Parameters
    ----------
    M : array_like (n, m), one matrix.
    blocks : block structure.
    solver : str, optional
        cvxpy solver name (default: cvxpy's choice for SDPs).
    tol : float
        Relative bisection tolerance on beta.

    Returns
    -------
    float
    """
    tol = check_fraction(tol, "tol")
    if solver is not None and not isinstance(solver, str):
        raise TypeError(f"`solver` must be None or a cvxpy solver name (str); got {solver!r}")
    structure = BlockStructure.parse(blocks)
    M = _balanced_single(M, structure, None)
    margin_at = _margin_problem(M, structure, solver)
    hi = float(np.linalg.norm(M, 2)) * (1 + 1e-6) + 1e-12  # D = I, G = 0 certify ||M||
    lo = 0.0
    while hi - lo > tol * hi:
        mid = 0.5 * (lo + hi)
        margin, status = margin_at(mid)
        if margin < 0:  # nan (a failed solve) compares False: it never lowers the bound
            hi = mid
        else:
            lo = mid
    return hi


def _margin_problem(M, structure, solver):
    """``beta -> (s*, status)``: the optimal margin of the D-G LMI at level beta (one cvxpy problem)."""
    cp, constraints, Dz, Dw, G = _lmi_variables(structure)
    m = M.shape[1]
    margin = cp.Variable()
    beta2 = cp.Parameter(nonneg=True)
    MH = M.conj().T
    lmi = MH @ Dz @ M + 1j * (G @ M - MH @ G.H) - beta2 * Dw
    lmi = 0.5 * (lmi + lmi.H)
    problem = cp.Problem(cp.Minimize(margin),
                         constraints + [lmi << margin * np.eye(m), cp.real(cp.trace(Dw)) == m])

    def solve(beta):
        beta2.value = float(beta) ** 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                problem.solve(solver=solver)
            except cp.error.SolverError:
                return np.nan, "solver_error"
        if problem.status == "unbounded":  # the LMI holds with any margin (e.g. mu = 0)
            return -np.inf, "unbounded"
        value = problem.value if problem.status in ("optimal", "optimal_inaccurate") else None
        return (np.nan if value is None else float(value)), str(problem.status)

    return solve


def _balanced_single(M, structure, similarity):
    """One (n, m) matrix, balanced by a block similarity P M P^-1 (mu and the D-G bound unchanged).

    ``similarity`` (n, n) block-diagonal positive definite D: P = chol(D_i)^H per block
    (scalar blocks); None: Osborne balancing. Badly scaled data make interior-point solvers
    fail near the optimum.
    """
    M = check_mu_matrix(M, structure)
    if M.ndim != 2:
        raise ValueError(f"`M` must be one (n, m) matrix for the LMI cross-check; got {M.shape}")
    if similarity is None:
        d = np.sqrt(osborne_scalings(M[None], structure)[0])
        z_scale = np.repeat(d, [b.z_size for b in structure.blocks])
        w_scale = np.repeat(d, [b.w_size for b in structure.blocks])
        return M * z_scale[:, None] / w_scale[None, :]
    if not all(b.is_scalar for b in structure.blocks):
        raise ValueError("`similarity` needs a structure of scalar blocks")
    similarity = np.asarray(similarity, dtype=complex)
    if similarity.shape != (structure.n, structure.n):
        raise ValueError(f"`similarity` must have shape {(structure.n, structure.n)}; got {similarity.shape}")
    P = np.zeros_like(similarity)
    for zs in structure.z_slices:
        try:
            P[zs, zs] = np.linalg.cholesky(similarity[zs, zs]).conj().T
        except np.linalg.LinAlgError:
            raise ValueError("`similarity` must be positive definite on every block") from None
    return P @ M @ np.linalg.inv(P)


def _lmi_variables(structure):
    """cvxpy variables of the D-G LMI: (cp, constraints, Dz, Dw, G) with D >= 0 per block."""
    try:
        import cvxpy as cp
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the LMI cross-checks need cvxpy: install satdyn[lmi]") from exc
    constraints, variables = [], []
    for blk in structure.blocks:
        if blk.is_scalar:
            Di = cp.Variable((blk.z_size, blk.z_size), hermitian=True)
            constraints.append(Di >> np.eye(blk.z_size) * 1e-9)
            variables.append((blk, Di, Di))
        else:
            d = cp.Variable(nonneg=True)
            constraints.append(d >= 1e-9)
            variables.append((blk, d * np.eye(blk.z_size), d * np.eye(blk.w_size)))
    k = len(variables)
    blk = structure.blocks
    Dz = cp.bmat([[variables[i][1] if i == j else np.zeros((blk[i].z_size, blk[j].z_size)) for j in range(k)]
                  for i in range(k)])
    Dw = cp.bmat([[variables[i][2] if i == j else np.zeros((blk[i].w_size, blk[j].w_size)) for j in range(k)]
                  for i in range(k)])
    G_blocks = []
    for i, blk_i in enumerate(structure.blocks):
        row = []
        for j, blk_j in enumerate(structure.blocks):
            if i == j and blk_i.kind == "real":
                row.append(cp.Variable((blk_i.z_size, blk_i.z_size), hermitian=True))
            else:
                row.append(np.zeros((blk_i.w_size, blk_j.z_size)))
        G_blocks.append(row)
    return cp, constraints, Dz, Dw, cp.bmat(G_blocks)


def lmi_margin(M, blocks, beta, *, similarity=None, solver: str | None = "CLARABEL"):
    """Optimal margin s* of the D-G LMI at level beta, by cvxpy (cross-check only).

    s* = min s over D >= 0 (trace(D_w) = m), G Hermitian, of
    ``M^H D_z M + j(G M - M^H G^H) - beta^2 D_w <= s I``. s* < 0: beta is above the D-G
    optimum (certified by the solver's D, G); s* > 0: beta is below it. Unlike the
    feasibility test of ``lmi_upper_bound`` its sign does not depend on how the solver
    reports a failure near the boundary, so two calls at beta (1 -/+ eps) bracket the optimum.

    Parameters
    ----------
    M : array_like (n, m), one matrix.
    blocks : block structure.
    beta : float > 0
    similarity : ndarray (n, n), optional
        Block-diagonal D > 0 (e.g. ``mussv(...).scalings.Dz``) for a similarity P M P^-1
        that balances M (the bound is invariant); default Osborne balancing.
    solver : str, optional

    Returns
    -------
    (margin, status) : (float, str)
        margin is -inf when the LMI holds with any margin ("unbounded"), nan when the solver
        fails (status says how).
    """
    structure = BlockStructure.parse(blocks)
    if isinstance(beta, bool) or not isinstance(beta, (int, float, np.floating, np.integer)):
        raise TypeError(f"`beta` must be a positive finite number; got {beta!r}")
    if not np.isfinite(beta) or beta <= 0:
        raise ValueError(f"`beta` must be a positive finite number; got {beta!r}")
    return _margin_problem(_balanced_single(M, structure, similarity), structure, solver)(beta)
