#!/usr/bin/python3
"""Reference tables of the low-precision float formats, as ml_dtypes computes them.

ml_dtypes (github.com/jax-ml/ml_dtypes, Apache-2.0) is the implementation
zarr-python uses for the registry's bfloat16, float8_*, float6_* and
float4_e2m1fn data types. This script writes, for each format,
tests/testdata/ml_dtypes/<format>.json with

  "source"   the ml_dtypes and NumPy versions that computed the table;
  "finfo"    ml_dtypes.finfo: bits, nexp, nmant, max, smallest_subnormal;
  "values"   every bit pattern 0 .. 2^bits-1 viewed as the ml_dtypes type and
             cast to float64 (numbers, or "nan", "-nan", "inf", "-inf",
             "-0.0"; the sign of a NaN is np.signbit's);
  "from_float64"        [x, bits]: the ml_dtypes scalar type called on the
             Python float x (one rounding, float64 -> format);
  "from_float64_array"  [x, bits]: np.array([x]).astype(type), which is what
             zarr-python does to a float64 array (ml_dtypes' NumPy cast goes
             through float32, so it may round twice);
  "from_float32"        [x, bits]: np.array([x], np.float32).astype(type), the
             cast of a float32 (the values a JavaScript Float32Array holds).

x is a hex float string (float.hex, which Go's strconv.ParseFloat and the
Node test read exactly) or "nan", "-nan", "inf", "-inf". The float64 test
points are formats.test_points: every representable value and midpoint and
their float64 neighbours, subnormal and overflow boundaries, random values,
zeros, infinities and NaNs; the float32 points are those rounded to float32
with their float32 neighbours.

Each table is also compared with what formats.py derives from the format
definitions; the disagreements are printed (and must be the known ones,
KNOWN_DIFFERENCES below, or the script fails).

Run with an interpreter that has ml_dtypes and NumPy, from the repository
root:  python3 tests/lowprec/gen_mldtypes.py
ml_dtypes 0.5.4 builds against Debian 12's NumPy 1.24 (later versions need
NumPy 2): see tests/testdata/README.md for how these tables were made.
"""

import json
import math
import os
import sys

import numpy as np

import ml_dtypes

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import formats  # noqa: E402  (this directory)

FLOATS = [
    "bfloat16", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4",
    "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
]


def known_difference(name, x, definition_bits, ml_bits):
    """Where ml_dtypes' scalar conversion is known to differ from the
    definitions formats.py encodes; None when it does not."""
    if name == "float8_e8m0fnu" and 2.0 ** -127 < x < 1.5 * 2.0 ** -127:
        # ml_dtypes' ConvertImpl rounds (2^-127, 1.5 x 2^-127) up to 2^-126,
        # although 2^-127 (code 0) is nearer.
        if definition_bits == 0 and ml_bits == 1:
            return "float8_e8m0fnu: values just above 2^-127 round up to 2^-126"
    if name == "bfloat16" and not math.isnan(x):
        # ml_dtypes' bfloat16 is Eigen's, whose bfloat16(double) converts to
        # float32 first: two roundings.
        with np.errstate(over="ignore"):
            x32 = float(np.float32(x))
        if ml_bits == formats.encoder(name)(x32):
            return "bfloat16(double) rounds through float32"
    return None


def value_json(v):
    v = float(v)
    if math.isnan(v):
        return "-nan" if np.signbit(v) else "nan"
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    if v == 0 and np.signbit(v):
        return "-0.0"
    return v


def bits_of(arr, storage):
    return [int(b) for b in np.ascontiguousarray(arr).view(storage)]


def float32_points(xs):
    """The float64 points as float32 values, with their float32 neighbours."""
    out = set()
    with np.errstate(over="ignore"):
        for x in xs:
            if math.isnan(x):
                continue
            f = np.float32(x)
            for g in (f, np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(-np.inf))):
                out.add(float(g))
    pts = sorted(out, key=lambda v: (v, math.copysign(1, v)))
    nans = [math.nan, -math.nan]
    return pts + nans


def table(name, seed):
    t = getattr(ml_dtypes, name)
    fi = ml_dtypes.finfo(t)
    storage = np.uint16 if fi.bits == 16 else np.uint8
    codes = np.arange(1 << fi.bits, dtype=storage)
    with np.errstate(invalid="ignore"):
        decoded = codes.view(t).astype(np.float64)
    values = [value_json(v) for v in decoded]

    def_values, def_points = formats.definition(name, seed)
    xs = [x for x, _ in def_points]
    with np.errstate(all="ignore"):
        scalar = [bits_of(np.array([t(x)]), storage)[0] for x in xs]
        array = bits_of(np.array(xs, dtype=np.float64).astype(t), storage)
        x32 = float32_points(xs)
        from32 = bits_of(np.array(x32, dtype=np.float32).astype(t), storage)

    # compare with the definitions
    diffs = []
    for c, (a, b) in enumerate(zip(values, def_values)):
        if a != b and not (isinstance(a, str) and isinstance(b, str) and "nan" in a and "nan" in b):
            diffs.append(f"value of {c:#x}: ml_dtypes {a}, definition {b}")
    nan_signs = sum(1 for a, b in zip(values, def_values) if a != b and "nan" in str(a) and "nan" in str(b))
    if nan_signs:
        diffs.append(f"{nan_signs} NaN patterns decode to a NaN of the other sign")
    explained = {}
    for (x, want), got in zip(def_points, scalar):
        if got != want:
            why = known_difference(name, x, want, got)
            if why is None:
                diffs.append(f"from_float64({x!r}): ml_dtypes {got:#x}, definition {want:#x}")
            else:
                explained[why] = explained.get(why, 0) + 1
    doc = {
        "format": name,
        "source": f"ml_dtypes {ml_dtypes.__version__}, NumPy {np.__version__}",
        "finfo": {"bits": int(fi.bits), "nexp": int(fi.nexp), "nmant": int(fi.nmant),
                  "max": float(fi.max), "smallest_subnormal": float(fi.smallest_subnormal)},
        "values": values,
        "from_float64": [[formats.x_json(x), b] for x, b in zip(xs, scalar)],
        "from_float64_array": [[formats.x_json(x), b] for x, b in zip(xs, array)],
        "from_float32": [[formats.x_json(x), b] for x, b in zip(x32, from32)],
    }
    twice = sum(1 for a, b in zip(scalar, array) if a != b)
    return doc, diffs, explained, twice


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    outdir = os.path.join(root, "tests", "testdata", "ml_dtypes")
    os.makedirs(outdir, exist_ok=True)
    unexplained = 0
    for name in FLOATS:
        spec = next((s for s in formats.FORMATS if s[0] == name), None)
        seed = 20250101 + (127 if spec is None else spec[1] * 100 + spec[4])
        doc, diffs, explained, twice = table(name, seed)
        with open(os.path.join(outdir, name + ".json"), "w") as fp:
            json.dump(doc, fp, separators=(",", ":"))
            fp.write("\n")
        print(f"{name}: {len(doc['values'])} patterns, {len(doc['from_float64'])} float64 points "
              f"({twice} rounded differently by the array cast), {len(doc['from_float32'])} float32 points")
        for why, n in explained.items():
            print(f"  known difference from the definition ({n} points): {why}")
        for d in diffs:
            print("  DIFFERS FROM THE DEFINITION:", d)
        unexplained += len([d for d in diffs if "NaN patterns" not in d])
    if unexplained:
        sys.exit(f"{unexplained} unexplained differences between ml_dtypes and the definitions")


if __name__ == "__main__":
    main()
