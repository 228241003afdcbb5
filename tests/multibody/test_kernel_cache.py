"""numba's cache of the multibody kernels is cleared when any kernel source changes.

numba alone keys a cache entry on its own file's time stamp, so a kernel would keep the old
machine code of callees in another file (compiled_lanes -> compiled -> compiled_trig).
"""

import pytest

from satdyn.multibody import kernel_cache

numba = pytest.importorskip("numba")


def _touch(path, text="x"):
    path.write_text(text)
    return path


def test_a_directory_without_the_current_stamp_loses_only_the_kernels_entries(tmp_path):
    kernel_entries = [_touch(tmp_path / "compiled._aba-284.py311.nbi"),
                      _touch(tmp_path / "compiled._aba-284.py311.1.nbc"),
                      _touch(tmp_path / "compiled_lanes.lanes_state_derivative-90.py311.nbi"),
                      _touch(tmp_path / "integrate._advance-132.py311.2.nbc")]
    others = [_touch(tmp_path / "hamiltonian_eigs._qr-40.py311.nbi"),     # another package's kernel
              _touch(tmp_path / "compiled_model.cpython-311.pyc"),
              _touch(tmp_path / "satdyn-kernels-0123456789abcdef")]      # a stale stamp is replaced
    assert kernel_cache.refresh_directory(tmp_path, stamp="feedfacecafebeef")
    assert not any(p.exists() for p in kernel_entries)
    assert others[0].exists() and others[1].exists() and not others[2].exists()
    assert (tmp_path / "satdyn-kernels-feedfacecafebeef").exists()
    # Same sources again: the entries compiled since are kept.
    fresh = _touch(tmp_path / "compiled._aba-284.py311.nbi")
    assert not kernel_cache.refresh_directory(tmp_path, stamp="feedfacecafebeef")
    assert fresh.exists()


def test_the_fingerprint_covers_every_kernel_source(tmp_path, monkeypatch):
    # A change in any one kernel file changes the fingerprint (compared with hashing a copy).
    here = tmp_path / "multibody"
    here.mkdir()
    for module in kernel_cache.KERNEL_MODULES:
        (here / f"{module}.py").write_bytes((kernel_cache.Path(kernel_cache.__file__).parent
                                             / f"{module}.py").read_bytes())
    monkeypatch.setattr(kernel_cache, "__file__", str(here / "kernel_cache.py"))
    reference = kernel_cache.fingerprint()
    assert reference == kernel_cache._FINGERPRINT
    for module in kernel_cache.KERNEL_MODULES:
        source = here / f"{module}.py"
        original = source.read_bytes()
        source.write_bytes(original + b"\n# edited\n")
        assert kernel_cache.fingerprint() != reference, module
        source.write_bytes(original)


def test_the_kernels_cache_directory_was_checked_at_import():
    # Guards against a numba release that moves FunctionCache._cache_path: the check would then
    # silently stop running.
    from satdyn.multibody import compiled
    directory = compiled._aba._cache._cache_path
    assert directory in kernel_cache._checked_directories
    assert (kernel_cache.Path(directory) / f"satdyn-kernels-{kernel_cache._FINGERPRINT}").exists()
