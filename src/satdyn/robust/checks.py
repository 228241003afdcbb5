"""Argument checks at the public boundary of ``satdyn.robust`` (errors name the argument).

Every public function validates its options here before any work starts, so a typo ends in
one clear ``TypeError``/``ValueError`` naming the offending argument and what was expected,
never in a numpy message from deep inside or a silently wrong answer.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["check_bool", "check_callable", "check_int", "check_fraction", "refuse_uncertain"]


def check_bool(value, name: str) -> bool:
    """``value`` must be a bool (numpy bools too); returns it as a Python bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"`{name}` must be True or False; got {value!r}")
    return bool(value)


def check_int(value, name: str, minimum: int | None = None) -> int:
    """``value`` must be an integer (not a bool, not a float) >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"`{name}` must be an integer; got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}; got {value!r}")
    return int(value)


def check_fraction(value, name: str) -> float:
    """``value`` must be a real number in the open interval (0, 1) (a relative tolerance)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be a number in (0, 1); got {value!r}")
    if not 0.0 < float(value) < 1.0:
        raise ValueError(f"`{name}` must be in (0, 1); got {value!r}")
    return float(value)


def check_callable(value, name: str):
    """``value`` must be None or a callable ``(done, total, message)``."""
    if value is not None and not callable(value):
        raise TypeError(f"`{name}` must be None or a callable progress(done, total, message); got {value!r}")
    return value


def refuse_uncertain(obj, name: str, function: str) -> None:
    """Refuse an LFR that still has Delta blocks (or an M-Delta system) where a plain LTI system is needed.

    An LFR's ``A, B, C, D`` include its Delta channels; reading them as a state-space system
    would give the norm of the open Delta loop, not of the system (a silent wrong answer).
    """
    blocks = getattr(obj, "blocks", None)
    if blocks is not None and len(blocks) > 0:
        names = []
        for blk in blocks:
            par = getattr(blk, "parameter", None)
            label = getattr(par, "name", None) or getattr(blk, "name", None) or "?"
            if label not in names:
                names.append(str(label))
        raise ValueError(
            f"`{name}` is an LFR with {len(blocks)} uncertain/varying block(s) ({', '.join(names)}); "
            f"{function} needs a plain LTI system: call `{name}.nominal()` (nominal values) or "
            f"`{name}.sample(...)` / `{name}.evaluate_batch(...)` (parameter samples) first"
        )
    if getattr(obj, "block_sizes", None) is not None:
        raise ValueError(
            f"`{name}` is an M-Delta system (its A, B, C, D include the Delta channels); {function} "
            f"needs a plain LTI system: use `{name}.closed_loop(deltas)` for given parameter values"
        )
