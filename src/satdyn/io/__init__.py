"""satdyn.io: users' model files and modal-data import.

* :func:`load_model` / :func:`loads_model` / :func:`save_model` -- a YAML/JSON description of
  bodies, joints, parameters and ports, validated against :data:`MODEL_SCHEMA`;
  :func:`build_model` -> blocks of :mod:`satdyn.titop` -> ``connect`` -> one LFR.
* :func:`read_modal_table` / :func:`write_modal_table` -- CSV/JSON modal tables (units and
  frame stated); :func:`read_f06` (NASTRAN text output, MSC and NX layouts),
  :func:`read_op2` (pyNastran, optional), :func:`modal_table_from_nastran`.
* :func:`example_path` -- the example model files shipped in ``satdyn/data/models``.

Errors in files are :class:`ModelFileError` (a ``ValueError``) naming the file, key path,
line and what was expected. See docs/io.md.
"""

from .errors import ModelFileError
from .examples import EXAMPLES, example_path
from .modal import ModalTable, effective_masses, read_modal_table, write_modal_table
from .model import BuiltModel, ModelSpec, build_model, load_model, loads_model, model_from_dict, save_model
from .nastran import F06Results, modal_table_from_nastran, read_f06, read_op2
from .schema import MODEL_SCHEMA

__all__ = [
    "ModelFileError", "MODEL_SCHEMA",
    "ModelSpec", "BuiltModel", "load_model", "loads_model", "save_model", "build_model", "model_from_dict",
    "ModalTable", "read_modal_table", "write_modal_table", "effective_masses",
    "F06Results", "read_f06", "read_op2", "modal_table_from_nastran",
    "EXAMPLES", "example_path",
]
