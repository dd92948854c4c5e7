#!/usr/bin/python3
"""Check Zarr stores against a cases.json file, reading them with zarr-python 2.

Usage:
    /usr/bin/python3 tests/python/verify_cases.py <data_root> <cases.json>

For every case, opens <data_root>/<store> with zarr-python, reads <path> with the
case's NumPy-style basic selection and compares the result with the expected
values recorded in the case (shape, dtype, little-endian element bytes, strings,
objects, and the raw fill_value when one is recorded).

Prints one line per case, "ok <name>" or "FAIL <name>: <reason>", then
"N passed, M failed"; exits 1 if any case failed (2 on a usage error).

The helpers (parse_selection, read_case_array, encode_result, ...) are also used
by tests/fixtures/v2/gen.py, so the generator and this checker encode values
in exactly the same way.

Opening rules:
  * zarr_format 1 (a "meta" key, the v1 spec): all keys of the store directory
    are copied into a dict, converted with zarr.storage.migrate_1to2 (zarr 2.13
    can read v1 only through this migration) and opened from that dict.
  * a store with a root ".zmetadata" is opened with zarr.open_consolidated, so
    the consolidated metadata is what zarr-python uses.
  * otherwise zarr.DirectoryStore; the chunk key separator comes from the
    array's "dimension_separator" metadata (zarr-python's own rule).
"""

import base64
import json
import math
import os
import sys
import warnings

import numpy as np

import zarr
import zarr.storage


# --------------------------------------------------------------------------
# selections

def _parse_index(tok, whole):
    tok = tok.strip()
    if tok == "...":
        return Ellipsis
    if ":" in tok:
        parts = tok.split(":")
        if len(parts) > 3:
            raise ValueError("bad slice %r in selection %r" % (tok, whole))
        vals = []
        for p in parts:
            p = p.strip()
            vals.append(int(p) if p else None)
        while len(vals) < 3:
            vals.append(None)
        return slice(vals[0], vals[1], vals[2])
    if tok == "":
        raise ValueError("empty index in selection %r" % (whole,))
    return int(tok)


def parse_selection(s):
    """Parse a NumPy-style basic selection string into an indexing tuple.

    "" means the whole array (Ellipsis). Supported items: integers (negative
    allowed), slices "a:b:c" with optional parts, and "...". Items are
    separated by commas; surrounding brackets/parentheses are tolerated.
    """
    s = (s or "").strip()
    if len(s) >= 2 and s[0] + s[-1] in ("[]", "()"):
        s = s[1:-1].strip()
    if s == "":
        return (Ellipsis,)
    toks = s.split(",")
    if toks[-1].strip() == "" and len(toks) > 1:  # trailing comma "3,"
        toks = toks[:-1]
    return tuple(_parse_index(t, s) for t in toks)


# --------------------------------------------------------------------------
# opening

def decode_dtype(d):
    """dtype from its metadata JSON form (string, or descr list for structured)."""
    def conv(x):
        if isinstance(x, list):
            return [(k[0], conv(k[1])) + tuple(tuple(e) if isinstance(e, list) else e
                                               for e in k[2:]) for k in x]
        return x
    return np.dtype(conv(d))


def _load_dir_as_dict(root):
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for fn in files:
            full = os.path.join(dirpath, fn)
            key = os.path.relpath(full, root).replace(os.sep, "/")
            with open(full, "rb") as f:
                out[key] = f.read()
    return out


def open_case_array(data_root, case):
    """Open the zarr.Array that a case refers to (read-only)."""
    store_dir = os.path.join(data_root, case["store"])
    path = case.get("path", "") or ""
    if not os.path.isdir(store_dir):
        raise FileNotFoundError("store directory %s does not exist" % store_dir)
    zf = case.get("zarr_format", 2)
    if zf == 1:
        arr_dir = os.path.join(store_dir, path) if path else store_dir
        d = _load_dir_as_dict(arr_dir)
        if "meta" not in d:
            raise FileNotFoundError("no v1 'meta' key in %s" % arr_dir)
        if "attrs" not in d:
            d["attrs"] = b"{}"
        zarr.storage.migrate_1to2(d)
        return zarr.open_array(store=d, mode="r")
    if zf != 2:
        raise ValueError("unsupported zarr_format %r" % (zf,))
    if os.path.exists(os.path.join(store_dir, ".zmetadata")):
        node = zarr.open_consolidated(store_dir, mode="r")
        if path:
            node = node[path]
        if not isinstance(node, zarr.Array):
            raise TypeError("%r is not an array" % path)
        return node
    store = zarr.DirectoryStore(store_dir)
    return zarr.open_array(store=store, path=path or None, mode="r")


def read_metadata(data_root, case):
    """The array's metadata document (.zarray, or v1 'meta') as parsed JSON."""
    store_dir = os.path.join(data_root, case["store"])
    path = case.get("path", "") or ""
    base = os.path.join(store_dir, path) if path else store_dir
    if case.get("zarr_format", 2) == 1:
        fn = os.path.join(base, "meta")
    else:
        fn = os.path.join(base, ".zarray")
        zm = os.path.join(store_dir, ".zmetadata")
        if os.path.exists(zm):
            with open(zm, "rb") as f:
                cons = json.loads(f.read().decode("utf-8"))
            key = (path + "/.zarray") if path else ".zarray"
            if key in cons.get("metadata", {}):
                return cons["metadata"][key]
    with open(fn, "rb") as f:
        return json.loads(f.read().decode("utf-8"))


def read_case_array(data_root, case):
    """Read the case's selection with zarr-python; returns (ndarray, zarr.Array).

    Scalars (integer selections of every dimension) come back as 0-d arrays
    of the array's dtype.
    """
    arr = open_case_array(data_root, case)
    sel = parse_selection(case.get("selection", ""))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = arr[sel]
    if not isinstance(v, np.ndarray):
        # a scalar: wrap it in a 0-d array of the array's dtype (numpy would
        # otherwise shrink S/U scalars to their length, or treat a list
        # element of an object array as a sequence)
        tmp = np.empty(1, dtype=arr.dtype)
        tmp[0] = v
        v = tmp.reshape(())
    elif v.dtype != arr.dtype:
        v = v.astype(arr.dtype)
    return v, arr


# --------------------------------------------------------------------------
# value encodings (shared with gen.py)

def le_bytes(x):
    """Element bytes in C order with every (nested) field little-endian."""
    x = np.asarray(x)
    return np.ascontiguousarray(x.astype(x.dtype.newbyteorder("<"))).tobytes()


def b64(b):
    return base64.standard_b64encode(bytes(b)).decode("ascii")


def strings_of(x):
    """Values of an S or U array as str (S: latin-1, trailing NULs dropped)."""
    x = np.asarray(x)
    if x.dtype.kind == "S":
        return [bytes(v).rstrip(b"\x00").decode("latin-1") for v in x.reshape(-1)]
    if x.dtype.kind == "U":
        return [str(v) for v in x.reshape(-1)]
    return None


def obj_to_json(o):
    """One object-array element as a JSON value (bytes -> {"base64": ...})."""
    if o is None:
        return None
    if isinstance(o, (bytes, np.bytes_, bytearray)):
        return {"base64": b64(o)}
    if isinstance(o, (str, np.str_)):
        return str(o)
    if isinstance(o, (bool, np.bool_)):
        return bool(o)
    if isinstance(o, (int, np.integer)):
        return int(o)
    if isinstance(o, (float, np.floating)):
        f = float(o)
        if not math.isfinite(f):
            raise ValueError("non-finite float %r in an object array" % f)
        return f
    if isinstance(o, dict):
        return {str(k): obj_to_json(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [obj_to_json(v) for v in o]
    if isinstance(o, np.ndarray):
        return [obj_to_json(v) for v in o.tolist()]
    raise TypeError("cannot represent %r (%s) in JSON" % (o, type(o).__name__))


def objects_of(x):
    x = np.asarray(x, dtype=object)
    return [obj_to_json(v) for v in x.reshape(-1)]


def encode_result(v):
    """The expected-value fields of a case for the ndarray v."""
    out = {"shape": list(v.shape)}
    if v.dtype.hasobject:
        out["objects"] = objects_of(v)
    else:
        out["bytes"] = b64(le_bytes(v))
        s = strings_of(v)
        if s is not None:
            out["strings"] = s
    return out


# --------------------------------------------------------------------------
# comparison

def json_equal(a, b):
    """JSON equality; numbers compare by value (1 == 1.0), bool is not a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return a == b
    if isinstance(a, str) or isinstance(b, str):
        return type(a) is type(b) and a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return False


def _short(v, n=120):
    s = json.dumps(v, ensure_ascii=True) if not isinstance(v, str) else repr(v)
    return s if len(s) <= n else s[:n] + "..."


def _first_diff_bytes(got, exp, itemsize):
    n = min(len(got), len(exp))
    for i in range(n):
        if got[i] != exp[i]:
            if itemsize:
                e = i // itemsize
                return "element %d (byte %d): got %s expected %s" % (
                    e, i, got[e * itemsize:(e + 1) * itemsize].hex(),
                    exp[e * itemsize:(e + 1) * itemsize].hex())
            return "byte %d" % i
    return "length %d != %d" % (len(got), len(exp))


def check_case(data_root, case):
    """None if the case holds, else a reason string."""
    v, arr = read_case_array(data_root, case)

    if list(v.shape) != list(case["shape"]):
        return "shape %s, expected %s" % (list(v.shape), case["shape"])

    if "dtype" in case:
        try:
            want = decode_dtype(case["dtype"])
        except Exception as e:  # noqa: BLE001
            return "cannot parse case dtype %r: %s" % (case["dtype"], e)
        if want.subdtype is not None:  # top-level subarray dtypes are stored as base
            want = want.base
        if arr.dtype != want:
            return "dtype %s, expected %s" % (arr.dtype, want)

    if "fill_value_raw" in case:
        meta = read_metadata(data_root, case)
        if not json_equal(meta.get("fill_value"), case["fill_value_raw"]):
            return "fill_value %s in metadata, expected %s" % (
                _short(meta.get("fill_value")), _short(case["fill_value_raw"]))

    if v.dtype.hasobject:
        if "objects" not in case:
            return "object array but the case has no 'objects'"
        got = objects_of(v)
        exp = case["objects"]
        if len(got) != len(exp):
            return "%d objects, expected %d" % (len(got), len(exp))
        for i, (g, e) in enumerate(zip(got, exp)):
            if not json_equal(g, e):
                return "object %d: got %s expected %s" % (i, _short(g), _short(e))
        return None

    if "bytes" not in case:
        return "fixed-size dtype but the case has no 'bytes'"
    got = le_bytes(v)
    try:
        exp = base64.standard_b64decode(case["bytes"])
    except Exception as e:  # noqa: BLE001
        return "bad base64 in case: %s" % e
    if got != exp:
        return "bytes differ: " + _first_diff_bytes(got, exp, v.dtype.itemsize)

    if "strings" in case:
        s = strings_of(v)
        if s is None:
            return "case has 'strings' but dtype %s is not S/U" % v.dtype
        if s != case["strings"]:
            for i, (g, e) in enumerate(zip(s, case["strings"])):
                if g != e:
                    return "string %d: got %r expected %r" % (i, g, e)
            return "%d strings, expected %d" % (len(s), len(case["strings"]))
    return None


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: %s <data_root> <cases.json>\n" % argv[0])
        return 2
    data_root, cases_fn = argv[1], argv[2]
    with open(cases_fn, "rb") as f:
        cases = json.loads(f.read().decode("utf-8"))
    passed = failed = 0
    for case in cases:
        name = case.get("name", "?")
        try:
            reason = check_case(data_root, case)
        except Exception as e:  # noqa: BLE001
            reason = "%s: %s" % (type(e).__name__, str(e).replace("\n", " "))
        if reason is None:
            passed += 1
            print("ok %s" % name)
        else:
            failed += 1
            print("FAIL %s: %s" % (name, reason))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
