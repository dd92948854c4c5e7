"""zarr-python 2.13 reads arrays zarr-wasm created and wrote through
TensorStore specs (zarr/spec_python_test.go writes them).

usage: check_python.py ROOT CHECKS.json

Each check names an array under ROOT and what zarr-python must see: the
.zarray defaults TensorStore documents (compressor blosc lz4/5/-1/0,
fill_value None, order, filters None, dimension_separator), the chunk
shape, the dtype, and the values (all of them, or of one field of a
structured array, compared with a['x'] as zarr-python reads it).
Prints one OK or FAIL line per check; exits 1 on any FAIL.
"""
import json
import sys

import numpy as np
import zarr
from numcodecs import Blosc


def main():
    root, checks_file = sys.argv[1], sys.argv[2]
    with open(checks_file) as f:
        checks = json.load(f)
    failed = 0
    for c in checks:
        try:
            check(root, c)
            print("OK", c["name"])
        except AssertionError as e:
            failed += 1
            print("FAIL", c["name"], e)
    print("%d checks, %d failed" % (len(checks), failed))
    sys.exit(1 if failed else 0)


def check(root, c):
    a = zarr.open_array(root + "/" + c["path"], mode="r")
    want = c.get("compressor", "tensorstore-default")
    if want == "tensorstore-default":
        # TensorStore's default: {"id": "blosc"} with its defaults filled in.
        exp = Blosc(cname="lz4", clevel=5, shuffle=Blosc.AUTOSHUFFLE, blocksize=0)
        assert a.compressor == exp, "compressor %r, want %r" % (a.compressor, exp)
    elif want is None:
        assert a.compressor is None, "compressor %r, want None" % (a.compressor,)
    if "fill_value" in c:
        fv = a.fill_value
        if c["fill_value"] is None:
            assert fv is None, "fill_value %r, want None" % (fv,)
        else:
            assert fv is not None and fv.tobytes() == bytes.fromhex(c["fill_value"]), "fill_value %r" % (fv,)
    assert a.order == c.get("order", "C"), "order %s" % a.order
    assert a.filters is None, "filters %r" % (a.filters,)
    assert a._dimension_separator == c.get("dimension_separator", "."), "dimension_separator %r" % a._dimension_separator
    assert list(a.chunks) == c["chunks"], "chunks %s, want %s" % (list(a.chunks), c["chunks"])
    assert list(a.shape) == c["shape"], "shape %s, want %s" % (list(a.shape), c["shape"])
    assert a.dtype == np.dtype(eval_dtype(c["dtype"])), "dtype %s, want %s" % (a.dtype, c["dtype"])
    for field, values in c.get("fields", {}).items():
        got = a[field]
        exp = np.array(values, dtype=got.dtype)
        assert got.shape == exp.shape, "a[%r] has shape %s, want %s" % (field, got.shape, exp.shape)
        assert np.array_equal(got, exp), "a[%r] differs:\n%s\nwant\n%s" % (field, got, exp)
    if "values" in c:
        got = a[...]
        exp = np.array(c["values"], dtype=a.dtype)
        assert np.array_equal(got, exp), "values differ:\n%s\nwant\n%s" % (got, exp)


def eval_dtype(d):
    if isinstance(d, list):
        return [tuple(x) if len(x) == 2 else (x[0], x[1], tuple(x[2])) for x in d]
    return d


if __name__ == "__main__":
    main()
