"""Errors of model files and modal-data files: they name the file, the key path and the line."""

from __future__ import annotations

from .._validation import SatdynInputError

__all__ = ["ModelFileError", "format_key_path"]


def format_key_path(path) -> str:
    """``("bodies", 2, "mass")`` -> ``"bodies[2].mass"`` (``"<root>"`` for the empty path)."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "<root>"


class ModelFileError(SatdynInputError):
    """A model or modal-data file that does not describe a valid model.

    Attributes
    ----------
    file : str
        The file (or ``"<string>"``).
    key_path : str
        Where in the document, e.g. ``"bodies[1].modal.L_P"``.
    line : int or None
        1-based line of that key in the file, when known.
    expected : str
        What was expected there.
    """

    def __init__(self, file, key_path, expected: str, line: int | None = None):
        self.file = str(file)
        self.key_path = key_path if isinstance(key_path, str) else format_key_path(key_path)
        self.line = line
        self.expected = " ".join(str(expected).split("\n"))   # one line, whatever the source said
        where = f"{self.file}" + (f", line {line}" if line else "")
        super().__init__(f"{where}: at {self.key_path}: {self.expected}")
