"""Named signals and named groups of signals (a TITOP port is a group of 6).

A side (inputs or outputs) of an LFR is a tuple of unique signal names plus a
mapping ``group name -> tuple of member signal names``.  Naming follows
python-control: a single string ``"u"`` for ``n > 1`` signals expands to
``u[0] ... u[n-1]`` and defines the group ``"u"``.

Functions
---------
expand_names(spec, n, prefix)  -> (names, groups)
resolve(key, names, groups, side) -> list of indices
"""

from __future__ import annotations

import re

import numpy as np

__all__ = ["expand_names", "resolve", "default_names", "is_default", "subset_groups", "check_groups"]

_DEFAULT = re.compile(r"^[uy]\[\d+\]$")


def default_names(prefix: str, n: int) -> tuple[str, ...]:
    """``prefix[0] ... prefix[n-1]``."""
    return tuple(f"{prefix}[{i}]" for i in range(n))


def is_default(names) -> bool:
    """True when every name is a python-control style default ``u[i]`` / ``y[i]``."""
    return all(_DEFAULT.match(n) for n in names)


def expand_names(spec, n: int, prefix: str, what: str = "signals") -> tuple[tuple[str, ...], dict]:
    """Signal names and groups from a user specification.

    Parameters
    ----------
    spec : None, str, or sequence
        None: defaults ``prefix[i]``.  str: one signal (n == 1) or the group
        ``spec[0..n-1]``.  Sequence: items are a name, or ``(group, k)`` (k signals
        ``group[i]``), or ``(group, [names])``.
    n : int
        Expected number of signals.
    """
    groups: dict[str, tuple[str, ...]] = {}
    if spec is None:
        return default_names(prefix, n), groups
    if isinstance(spec, str):
        if n == 1:
            return (spec,), groups
        names = default_names(spec, n)
        groups[spec] = names
        return names, groups
    names: list[str] = []
    for item in spec:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            group, members = item
            if isinstance(members, (int, np.integer)):
                members = default_names(group, int(members))
            members = tuple(members)
            if not all(isinstance(m, str) for m in members):
                raise TypeError(f"{what}: members of group {group!r} must be str")
            groups[group] = members
            names.extend(members)
        else:
            raise TypeError(f"{what}: each item must be a name or (group, count | names); got {item!r}")
    if len(names) != n:
        raise ValueError(f"{what}: expected {n} names, got {len(names)}")
    names_t = tuple(names)
    _check_unique(names_t, what)
    check_groups(names_t, groups, what)
    return names_t, groups


def check_groups(names, groups: dict, what: str) -> None:
    """Members of every group exist; group names do not shadow signal names."""
    known = set(names)
    for group, members in groups.items():
        if group in known and members != (group,):
            raise ValueError(f"{what}: group name {group!r} is also a signal name")
        missing = [m for m in members if m not in known]
        if missing:
            raise ValueError(f"{what}: group {group!r} refers to unknown signals {missing}")


def _check_unique(names, what: str) -> None:
    seen = set()
    dups = {n for n in names if n in seen or seen.add(n)}
    if dups:
        raise ValueError(f"{what}: duplicate signal names {sorted(dups)}")


def resolve(key, names, groups: dict, side: str) -> list[int]:
    """Indices selected by ``key``: int, slice, name, group name, bool mask or a list of these."""
    n = len(names)
    if isinstance(key, slice):
        return list(range(n))[key]
    if isinstance(key, (int, np.integer)):
        k = int(key)
        if not -n <= k < n:
            raise IndexError(f"{side} index {k} out of range for {n} {side}s")
        return [k % n]
    if isinstance(key, str):
        if key in groups:
            index = {name: i for i, name in enumerate(names)}
            return [index[m] for m in groups[key]]
        try:
            return [names.index(key)]
        except ValueError:
            raise KeyError(
                f"unknown {side} signal {key!r}; known {side}s: {list(names)[:20]}"
                + (" ..." if n > 20 else "")
                + (f", groups: {list(groups)}" if groups else "")
            ) from None
    array = np.asarray(key) if not isinstance(key, (list, tuple)) else None
    if array is not None and array.dtype == bool:
        if array.shape != (n,):
            raise IndexError(f"{side} boolean mask must have shape ({n},); got {array.shape}")
        return [int(i) for i in np.flatnonzero(array)]
    try:
        items = list(key)
    except TypeError:
        raise TypeError(f"cannot select {side}s with {type(key).__name__}") from None
    out: list[int] = []
    for item in items:
        out.extend(resolve(item, names, groups, side))
    return out


def subset_groups(names, groups: dict, indices) -> tuple[tuple[str, ...], dict]:
    """Names after selecting ``indices``; groups fully contained are kept."""
    selected = tuple(names[i] for i in indices)
    if len(set(selected)) != len(selected):
        # Repeated selection of one signal: names must stay unique, fall back to defaults.
        return selected, None
    chosen = set(selected)
    kept = {g: m for g, m in groups.items() if all(x in chosen for x in m)}
    return selected, kept
