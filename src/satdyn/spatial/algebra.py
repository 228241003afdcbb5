"""6-vector algebra: skew matrices, the kinematic model tau, 6x6 frame changes, adjoint transforms.

Conventions (docs/conventions.md): 6-vectors are ``[linear; angular]``;
``tau(r_PB) = [[I, skew(PB)], [0, I]]`` so that ``acc_P = tau(r_PB) @ acc_B`` and
``W_B = tau(r_PB).T @ W_P``; the DCM ``P_ab`` maps components in frame a to frame b.
Every function accepts leading batch dimensions.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_batch_of, broadcast_batches

__all__ = [
    "skew",
    "vee",
    "tau",
    "frame_change_matrix",
    "motion_transform",
    "wrench_transform",
]


def _skew(v: np.ndarray) -> np.ndarray:
    out = np.zeros(v.shape[:-1] + (3, 3))
    out[..., 0, 1] = -v[..., 2]
    out[..., 0, 2] = v[..., 1]
    out[..., 1, 0] = v[..., 2]
    out[..., 1, 2] = -v[..., 0]
    out[..., 2, 0] = -v[..., 1]
    out[..., 2, 1] = v[..., 0]
    return out


def skew(v) -> np.ndarray:
    """Skew-symmetric cross-product matrix, ``skew(v) @ u == cross(v, u)``.

    Parameters
    ----------
    v : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    return _skew(as_batch_of(v, (3,), "v"))


def vee(matrix) -> np.ndarray:
    """Inverse of :func:`skew`: the vector of the skew-symmetric part of ``matrix``.

    Parameters
    ----------
    matrix : array_like, shape (..., 3, 3)

    Returns
    -------
    ndarray, shape (..., 3)
    """
    m = as_batch_of(matrix, (3, 3), "matrix")
    return 0.5 * np.stack(
        [m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1]], axis=-1
    )


def _tau(r: np.ndarray) -> np.ndarray:
    out = np.zeros(r.shape[:-1] + (6, 6))
    out[..., :3, :3] = np.eye(3)
    out[..., 3:, 3:] = np.eye(3)
    out[..., :3, 3:] = _skew(r)
    return out


def tau(r_PB) -> np.ndarray:
    """Kinematic model ``tau_PB = [[I, skew(PB)], [0, I]]`` of the vector from P to B.

    It moves an acceleration twist from B to P, ``acc_P = tau_PB @ acc_B``
    (``a_P = a_B + omega_dot x BP``), and a wrench from P to B,
    ``W_B = tau_PB.T @ W_P`` (``T_B = T_P + BP x F``). ``tau(-r) == inv(tau(r))``.

    Parameters
    ----------
    r_PB : array_like, shape (..., 3)
        Vector from P to B [m], in the frame of the 6-vectors.

    Returns
    -------
    ndarray, shape (..., 6, 6)
    """
    return _tau(as_batch_of(r_PB, (3,), "r_PB"))


def _frame_change(P: np.ndarray) -> np.ndarray:
    out = np.zeros(P.shape[:-2] + (6, 6))
    out[..., :3, :3] = P
    out[..., 3:, 3:] = P
    return out


def frame_change_matrix(P_ab) -> np.ndarray:
    """The 6x6 frame change ``diag(P_ab, P_ab)``: ``[x]_b = frame_change_matrix(P_ab) @ [x]_a``.

    Valid for twists, acceleration twists and wrenches alike (both halves rotate).

    Parameters
    ----------
    P_ab : array_like, shape (..., 3, 3)
        DCM from frame a to frame b (columns: a's axes in b).

    Returns
    -------
    ndarray, shape (..., 6, 6)
    """
    return _frame_change(as_batch_of(P_ab, (3, 3), "P_ab"))


def _placement(P_ab, r_BA):
    P = as_batch_of(P_ab, (3, 3), "P_ab")
    r = as_batch_of(r_BA, (3,), "r_BA")
    broadcast_batches((P, 2, "P_ab"), (r, 1, "r_BA"))
    return P, r


def motion_transform(P_ab, r_BA) -> np.ndarray:
    """6x6 map of a twist from frame a at point A to frame b at point B.

    ``[v_B]_b = motion_transform(P_ab, r_BA) @ [v_A]_a`` with ``v = [linear; angular]``
    and ``r_BA`` the vector from B to A in frame b. Equal to ``tau(r_BA) @ diag(P_ab, P_ab)``
    and to the action matrix of Pinocchio's ``SE3(P_ab, r_BA)`` (placement of a in b).
    Also valid for classical acceleration twists when the velocity terms vanish.

    Parameters
    ----------
    P_ab : array_like, shape (..., 3, 3)
    r_BA : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 6, 6)
    """
    P, r = _placement(P_ab, r_BA)
    return _tau(r) @ _frame_change(P)


def wrench_transform(P_ab, r_BA) -> np.ndarray:
    """6x6 map of a wrench from frame a about point A to frame b about point B.

    ``[W_B]_b = wrench_transform(P_ab, r_BA) @ [W_A]_a``; the dual of :func:`motion_transform`
    (its inverse transpose), so that the power ``W . v`` is the same on both sides.
    Equal to Pinocchio's ``SE3(P_ab, r_BA).act(Force)``.

    Parameters
    ----------
    P_ab : array_like, shape (..., 3, 3)
    r_BA : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 6, 6)
    """
    P, r = _placement(P_ab, r_BA)
    # W_B = tau_AB^T W_A with tau_AB = tau(-r_BA), i.e. tau(r_BA)^{-T}.
    return np.swapaxes(_tau(-r), -1, -2) @ _frame_change(P)
