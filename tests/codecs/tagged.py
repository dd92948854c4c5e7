"""Python values as the tagged JSON the Go tests read (zarr/codec's
numcodecs_test.go untag): {"t": kind, "v": value}, floats as hex, ints as
decimal strings, bytes as base64. Shared by gen_vectors.py and
check_go_encodings.py."""

import base64

import numpy as np


def tag(v):
    if v is None:
        return {"t": "none"}
    if isinstance(v, (bool, np.bool_)):
        return {"t": "bool", "v": bool(v)}
    if isinstance(v, (int, np.integer)):
        return {"t": "int", "v": str(int(v))}
    if isinstance(v, (float, np.floating)):
        return {"t": "float", "v": float(v).hex()}
    if isinstance(v, str):
        return {"t": "str", "v": v}
    if isinstance(v, (bytes, bytearray)):
        return {"t": "bytes", "v": base64.b64encode(bytes(v)).decode()}
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return {"t": "list", "v": [tag(x) for x in v]}
    if isinstance(v, dict):
        return {"t": "dict", "v": [[k, tag(x)] for k, x in v.items()]}
    raise TypeError(type(v))
