"""Block structure of the uncertainty Delta in a mu problem.

Delta = blockdiag(Delta_1, ..., Delta_k) maps the outputs z of M to its inputs w
(M is (n, m): n = sum of z sizes, m = sum of w sizes; det(I - M Delta) is the test).
Each block is one of

- ``"real"``:    delta * I_r, delta real (repeated real scalar, r >= 1);
- ``"complex"``: delta * I_r, delta complex (repeated complex scalar);
- ``"full"``:    a full complex (w_size x z_size) matrix (square or not).

``BlockStructure.parse`` also takes MATLAB's ``mussv`` notation: a row ``[-r, 0]`` is a
repeated real scalar of size r, ``[r, 0]`` a repeated complex scalar, ``[p, q]`` (q > 0) a
full complex p-by-q block (``[1, 1]`` is a complex scalar).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["UncertaintyBlock", "BlockStructure", "real_block", "complex_block", "full_block"]

_KINDS = ("real", "complex", "full")


@dataclass(frozen=True)
class UncertaintyBlock:
    """One block of Delta: ``kind`` in {"real", "complex", "full"}; Delta_i is (w_size, z_size)."""

    kind: str
    w_size: int
    z_size: int

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"`blocks`: block kind must be one of {_KINDS}; got {self.kind!r}")
        for name in ("w_size", "z_size"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"`blocks`: {name} must be a positive integer; got {value!r}")
        if self.kind != "full" and self.w_size != self.z_size:
            raise ValueError("`blocks`: a repeated scalar block must be square")

    @property
    def is_scalar(self) -> bool:
        return self.kind != "full"


def _size(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"`{name}` must be a positive integer; got {value!r}")
    if value < 1:
        raise ValueError(f"`{name}` must be a positive integer; got {value!r}")
    return int(value)


def real_block(size: int = 1) -> UncertaintyBlock:
    """Repeated real scalar delta * I_size."""
    size = _size(size, "size")
    return UncertaintyBlock("real", size, size)


def complex_block(size: int = 1) -> UncertaintyBlock:
    """Repeated complex scalar delta * I_size."""
    size = _size(size, "size")
    return UncertaintyBlock("complex", size, size)


def full_block(w_size: int, z_size: int | None = None) -> UncertaintyBlock:
    """Full complex block of shape (w_size, z_size) (square when z_size is omitted)."""
    w_size = _size(w_size, "w_size")
    return UncertaintyBlock("full", w_size, w_size if z_size is None else _size(z_size, "z_size"))


@dataclass(frozen=True)
class BlockStructure:
    """An ordered tuple of blocks with the index ranges they occupy in M's rows and columns."""

    blocks: tuple

    def __post_init__(self):
        if len(self.blocks) == 0:
            raise ValueError("`blocks` must contain at least one block")

    @classmethod
    def parse(cls, blocks) -> "BlockStructure":
        """Build from a BlockStructure, a sequence of UncertaintyBlock, or MATLAB rows [a, b]."""
        if isinstance(blocks, BlockStructure):
            return blocks
        if isinstance(blocks, UncertaintyBlock):
            return cls((blocks,))
        try:
            items = list(blocks)
        except TypeError:
            raise TypeError(
                "`blocks` must be a sequence of UncertaintyBlock or of MATLAB-style rows [a, b]"
            ) from None
        parsed = []
        for item in items:
            if isinstance(item, UncertaintyBlock):
                parsed.append(item)
                continue
            try:
                row = np.asarray(item, dtype=float)
            except (TypeError, ValueError):
                raise ValueError(f"`blocks`: each MATLAB-style row must be two integers; got {item!r}") from None
            if row.shape != (2,) or not np.all(np.isfinite(row)) or not np.all(np.equal(np.mod(row, 1), 0)):
                raise ValueError(f"`blocks`: each MATLAB-style row must be two integers; got {item!r}")
            a, b = int(row[0]), int(row[1])
            if b == 0 and a < 0:
                parsed.append(real_block(-a))
            elif b == 0 and a > 0:
                parsed.append(complex_block(a))
            elif a > 0 and b > 0:
                parsed.append(complex_block(1) if (a, b) == (1, 1) else full_block(a, b))
            else:
                raise ValueError(f"`blocks`: invalid MATLAB-style block row {item!r}")
        return cls(tuple(parsed))

    @property
    def n(self) -> int:
        """Rows of M (= total z size)."""
        return int(sum(b.z_size for b in self.blocks))

    @property
    def m(self) -> int:
        """Columns of M (= total w size)."""
        return int(sum(b.w_size for b in self.blocks))

    @property
    def z_slices(self) -> tuple:
        out, start = [], 0
        for b in self.blocks:
            out.append(slice(start, start + b.z_size))
            start += b.z_size
        return tuple(out)

    @property
    def w_slices(self) -> tuple:
        out, start = [], 0
        for b in self.blocks:
            out.append(slice(start, start + b.w_size))
            start += b.w_size
        return tuple(out)

    @property
    def has_real(self) -> bool:
        return any(b.kind == "real" for b in self.blocks)

    @property
    def all_real(self) -> bool:
        return all(b.kind == "real" for b in self.blocks)

    def check_matrix_shape(self, shape, name: str = "M") -> None:
        """Raise ValueError when the last two dims of ``shape`` are not (n, m)."""
        if tuple(shape[-2:]) != (self.n, self.m):
            raise ValueError(
                f"`blocks` do not add up to the shape of `{name}`: the blocks need {name} of "
                f"shape (..., {self.n}, {self.m}) (rows = sum of z sizes, columns = sum of w "
                f"sizes); got {tuple(shape)}"
            )

    def assemble(self, parts) -> np.ndarray:
        """Block-diagonal Delta (..., m, n) from per-block arrays.

        ``parts[i]`` is (...,) for scalar blocks (delta value) and (..., w_size, z_size) for full.
        """
        lead = np.shape(parts[0])[: np.ndim(parts[0]) - (0 if self.blocks[0].is_scalar else 2)]
        dtype = complex if any(np.iscomplexobj(p) for p in parts) else float
        out = np.zeros(lead + (self.m, self.n), dtype=dtype)
        for blk, ws, zs, part in zip(self.blocks, self.w_slices, self.z_slices, parts):
            if blk.is_scalar:
                out[..., ws, zs] = np.asarray(part)[..., None, None] * np.eye(blk.z_size)
            else:
                out[..., ws, zs] = part
        return out
