"""The low-precision float formats of zarr/dtype/lowprec.go, from their definitions.

A module of tests/lowprec/gen_mldtypes.py, which writes the reference tables
from ml_dtypes and checks them against what this module derives from the
format definitions alone (so a table that disagrees with the definitions is
noticed, and each disagreement is listed and explained there):

  - decode(code): the value of a bit pattern, an exact Fraction, by the
    exponent/mantissa/bias rules;
  - expected(...): the encoding of a float64, found by searching all
    representable values for the nearest one (ties to the even bit pattern);
    for the narrow formats the search is done twice, by bisection and by
    brute force over every pattern, and the two must agree;
  - test_points(...): the float64 inputs the tables record.

Sources (public text, read for the rules; no code taken from them):
  [ZE]   zarr-developers/zarr-extensions, data-types/<name>/README.md
         (commit 4da7b37a84f76e660902f6d3de3eaef0e0febae6)
  [MLR]  jax-ml/ml_dtypes README.md, "Specifications of implemented floating
         point formats" (commit b793a6e2864ce20b6680df2fd480a5cd2a75fa82)
  [MLC]  jax-ml/ml_dtypes ml_dtypes/include/float8.h: ConvertImpl (steps 1-7,
         the non-saturating default used by float8(double) constructors) and
         the numeric_limits infinity()/quiet_NaN() of each type;
         ml_dtypes/include/mxfloat.h for float4/float6 (same commit)
  [EIG]  Eigen BFloat16.h float_to_bfloat16_rtne (NaN -> 0x7fc0 / 0xffc0),
         which ml_dtypes' bfloat16 is
  [IEEE] IEEE 754-2019 4.3.1 (round to nearest, ties to even; overflow to
         infinity at magnitude >= b^emax (b - b^(1-p)/2))
  [MX]   OCP Microscaling Formats (MX) v1.0, 5.4.1: E8M0, the scale format
         (8 exponent bits, bias 127, no sign, no mantissa, 0xFF is NaN); the
         [ZE] float8_e8m0fnu README says the same ("No zero, no infinity")
"""

import bisect
import functools
import json
import math
import os
import random
import sys
from fractions import Fraction

# family:
#   "ieee": all-ones biased exponent is Inf (mantissa 0) or NaN    [ZE][MLR]
#   "fn":   no Inf; S.1111.111 is NaN, both signs                    [MLR]
#   "fnuz": no Inf; 0b1000'0000 is the only NaN; no negative zero    [ZE][MLR]
#   "mx":   no Inf, no NaN: every pattern is a number                [ZE][MLR]
FORMATS = [
    # name, total bits, exponent bits, mantissa bits, bias, family
    # [ZE] bfloat16: "8 exponent bits, with bias of 127, 7 mantissa bits,
    # IEEE 754-compliant, with NaN and +/-inf. Subnormal numbers when biased
    # exponent is 0."
    ("bfloat16", 16, 8, 7, 127, "ieee"),
    # [ZE] float8_e3m4: "3 exponent bits, with bias of 3, 4 mantissa bits,
    # IEEE 754-compliant, with NaN and +/-inf."
    ("float8_e3m4", 8, 3, 4, 3, "ieee"),
    # [ZE] float8_e4m3: "4 exponent bits, with bias of 7, 3 mantissa bits,
    # IEEE 754-compliant, with NaN and +/-inf."
    ("float8_e4m3", 8, 4, 3, 7, "ieee"),
    # [MLR] float8_e4m3fn: "Exponent: 4, Mantissa: 3, bias: 7. Extended range:
    # no inf, NaN represented by 0bS111'1111." (not in the [ZE] registry)
    ("float8_e4m3fn", 8, 4, 3, 7, "fn"),
    # [ZE] float8_e4m3fnuz: "4 exponent bits, with bias of 8, 3 mantissa bits,
    # Extended range: no infinity, NaN represented by 0b1000'0000."
    ("float8_e4m3fnuz", 8, 4, 3, 8, "fnuz"),
    # [ZE] float8_e4m3b11fnuz: "4 exponent bits, with bias of 11, 3 mantissa
    # bits, Extended range: no infinity, NaN represented by 0b1000'0000."
    ("float8_e4m3b11fnuz", 8, 4, 3, 11, "fnuz"),
    # [ZE] float8_e5m2: "5 exponent bits, with bias of 15, 2 mantissa bits,
    # IEEE 754-compliant, with NaN and +/-inf."
    ("float8_e5m2", 8, 5, 2, 15, "ieee"),
    # [ZE] float8_e5m2fnuz: "5 exponent bits, with bias of 16, 2 mantissa bits,
    # Extended range: no infinity, NaN represented by 0b1000'0000."
    ("float8_e5m2fnuz", 8, 5, 2, 16, "fnuz"),
    # [ZE] float4_e2m1fn: "2 exponent bits, with bias of 1, 1 mantissa bit,
    # Extended range: no infinity, no NaN." Byte 0bXXXXSEEM.
    ("float4_e2m1fn", 4, 2, 1, 1, "mx"),
    # [ZE] float6_e2m3fn: "2 exponent bits, with bias of 1, 3 mantissa bits,
    # Extended range: no infinity, no NaN." Byte 0bXXSEEMMM.
    ("float6_e2m3fn", 6, 2, 3, 1, "mx"),
    # [ZE] float6_e3m2fn: "3 exponent bits, with bias of 3, 2 mantissa bits,
    # Extended range: no infinity, no NaN." Byte 0bXXSEEEMM.
    ("float6_e3m2fn", 6, 3, 2, 3, "mx"),
]

# Largest finite values stated by the sources, checked against the decoding.
DOC_MAX = {
    "bfloat16": float.fromhex("0x1.FEp127"),  # ml_dtypes _finfo.py max_
    "float8_e3m4": 15.5,  # ml_dtypes float8_test.cc NumericLimits
    "float8_e4m3": 240.0,  # idem
    "float8_e4m3fn": 448.0,  # idem
    "float8_e4m3fnuz": 240.0,  # idem
    "float8_e4m3b11fnuz": 30.0,  # idem
    "float8_e5m2": 57344.0,  # idem
    "float8_e5m2fnuz": 57344.0,  # idem
    "float4_e2m1fn": 6.0,  # [MLR] "Possible absolute values: [0, ..., 6]"
    "float6_e2m3fn": 7.5,  # [MLR] "Possible values range: [-7.5; 7.5]"
    "float6_e3m2fn": 28.0,  # [MLR] "Possible values range: [-28; 28]"
}


class Fmt:
    def __init__(self, name, bits, ebits, mbits, bias, family):
        self.name, self.bits, self.ebits, self.mbits = name, bits, ebits, mbits
        self.bias, self.family = bias, family
        self.sign = 1 << (bits - 1)
        self.emax_field = (1 << ebits) - 1

    def fields(self, code):
        s = (code >> (self.bits - 1)) & 1
        e = (code >> self.mbits) & self.emax_field
        m = code & ((1 << self.mbits) - 1)
        return s, e, m

    def magnitude(self, e, m):
        """Exact value of exponent field e, mantissa field m (no specials).

        Subnormal when the biased exponent is 0 [ZE]: 0.m x 2^(1-bias);
        otherwise 1.m x 2^(e-bias). (Standard IEEE-style encoding, which all
        the READMEs describe by "bias of N" and "Subnormal numbers when biased
        exponent is 0".) e may exceed the field here, to name the value one
        step past the largest finite one.
        """
        frac = Fraction(m, 1 << self.mbits)
        if e == 0:
            return frac * Fraction(2) ** (1 - self.bias)
        return (1 + frac) * Fraction(2) ** (e - self.bias)

    def decode(self, code):
        """('nan', s) | ('inf', s) | ('num', s, Fraction magnitude)."""
        s, e, m = self.fields(code)
        if self.family == "ieee" and e == self.emax_field:
            return ("inf", s) if m == 0 else ("nan", s)
        if self.family == "fn" and e == self.emax_field and m == (1 << self.mbits) - 1:
            return ("nan", s)
        if self.family == "fnuz" and code == self.sign:
            return ("nan", s)
        return ("num", s, self.magnitude(e, m))

    # --- encoding rules for the cases that are not plain rounding ---------
    # [MLC] ConvertImpl: Inf input -> +/-infinity() of the target; NaN input
    # -> +/-quiet_NaN(); an overflowing rounded result -> infinity() (the
    # kSaturate=false default); zero keeps its sign. The negation is the
    # type's operator-, which for fnuz leaves 0x00 and 0x80 alone and for MX
    # flips the sign bit. infinity()/quiet_NaN() per type [MLC]:
    #   ieee: infinity = exponent all ones; quiet NaN = that | first mantissa
    #         bit (IEEE 754-2019 6.2.1), e.g. e5m2 0x7e, bfloat16 0x7fc0 [EIG]
    #   fn:   infinity() = quiet_NaN() = 0b0'1111'111
    #   fnuz: infinity() = quiet_NaN() = 0x80
    #   mx:   infinity() = max finite (0b0'11'1 etc.), quiet_NaN() = 0b1'00..0
    def max_code(self):
        if self.family == "ieee":
            return (self.emax_field << self.mbits) - 1
        if self.family == "fn":
            return self.sign - 2
        return self.sign - 1

    def neg(self, code):  # the type's operator-
        if self.family == "fnuz" and code & (self.sign - 1) == 0:
            return code
        return code ^ self.sign

    def inf_code(self):
        if self.family == "ieee":
            return self.emax_field << self.mbits
        if self.family == "fn":
            return self.sign - 1
        if self.family == "fnuz":
            return self.sign
        return self.max_code()

    def nan_code(self):
        if self.family == "ieee":
            return (self.emax_field << self.mbits) | (1 << (self.mbits - 1))
        if self.family == "fn":
            return self.sign - 1
        return self.sign  # fnuz NaN; for mx the -0 pattern

    def signed(self, code, negative):
        return self.neg(code) if negative else code


def nearest_bisect(cands, vals, a):
    """Index into cands of the nearest value to a >= 0; ties to even code."""
    i = bisect.bisect_left(vals, a)
    if i < len(vals) and vals[i] == a:
        return i
    if i == 0:
        return 0
    if i == len(vals):
        return len(vals) - 1
    lo, hi = vals[i - 1], vals[i]
    dl, dh = a - lo, hi - a
    if dl < dh:
        return i - 1
    if dh < dl:
        return i
    return i - 1 if cands[i - 1][1] % 2 == 0 else i


def nearest_brute(cands, a):
    best = None
    for j, (v, c) in enumerate(cands):
        d = abs(a - v)
        if best is None or d < best[0] or (d == best[0] and c % 2 == 0):
            best = (d, j)
    return best[1]


def expected(f, cands, vals, x, brute):
    """Expected encoding of float64 x."""
    if math.isnan(x):
        negative = math.copysign(1.0, x) < 0
        return f.signed(f.nan_code(), negative)
    negative = math.copysign(1.0, x) < 0
    if math.isinf(x):
        return f.signed(f.inf_code(), negative)
    a = abs(Fraction(x))
    j = nearest_bisect(cands, vals, a)
    if brute:
        k = nearest_brute(cands, a)
        assert j == k, (f.name, x, j, k)
    code = cands[j][1]
    if code > f.max_code():
        # Rounded past the largest finite value: overflow, [MLC] step 6
        # ("result_bits > kToMaxFinite" -> infinity()). For ieee this is
        # [IEEE] 4.3.1: magnitude >= max + ulp/2 rounds to infinity.
        return f.signed(f.inf_code(), negative)
    return f.signed(code, negative)


def candidates(f):
    """Nonnegative finite (value, code) pairs, sorted, plus the virtual value
    one step past the largest finite one ("as if the exponent range were
    unbounded", which is how [MLC] rounds before its overflow check)."""
    out = []
    for code in range(f.sign):
        d = f.decode(code)
        if d[0] == "num":
            out.append((d[2], code))
    out.sort()
    assert out[-1][1] == f.max_code(), f.name
    nxt = f.max_code() + 1
    out.append((f.magnitude(nxt >> f.mbits, nxt & ((1 << f.mbits) - 1)), nxt))
    return out


def value_json(d):
    if d[0] == "nan":
        return "-nan" if d[1] else "nan"
    if d[0] == "inf":
        return "-inf" if d[1] else "inf"
    v = float(d[2])
    assert Fraction(v) == d[2]  # every value is exact in float64
    if d[1]:
        return "-0.0" if v == 0 else -v
    return v


def x_json(x):
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    return x.hex()


def test_points(f, cands, rng):
    """Float64 test inputs: representable values and their float64
    neighbours, midpoints of adjacent values and their neighbours, tiny
    values around half the smallest subnormal, overflow values, specials."""
    pts = set()
    vals = [v for v, _ in cands]
    idx = range(len(vals))
    if f.bits > 8:
        # bfloat16: every subnormal, the binades around the normal range's
        # ends and around 1, and a random sample of the rest.
        n = len(vals)
        keep = set(range(0, 160)) | set(range(n - 160, n))
        one = bisect.bisect_left(vals, 1)
        keep |= set(range(one - 130, one + 130))
        keep |= set(rng.sample(range(n), 400))
        idx = sorted(i for i in keep if 0 <= i < n)
    for i in idx:
        v = float(vals[i])
        if math.isinf(v):
            continue
        pts.update([v, math.nextafter(v, math.inf), math.nextafter(v, -math.inf)])
        if i + 1 < len(vals):
            mid = (vals[i] + vals[i + 1]) / 2
            m = float(mid)
            assert Fraction(m) == mid  # midpoints need one more bit: exact
            pts.update([m, math.nextafter(m, math.inf), math.nextafter(m, -math.inf)])
    tiny = float(vals[1])  # smallest subnormal
    for t in [tiny / 2, tiny / 4, tiny * 0.75, 5e-324, 2.2250738585072014e-308,
              1e-300, float.fromhex("0x1p-1022") * 3]:
        pts.update([t, math.nextafter(t, math.inf), math.nextafter(t, -math.inf)])
    top = float(vals[-2])
    for big in [top * 2, float(vals[-1]), top * 1.5, 1e30, 3.4e38, 3.5e38,
                float.fromhex("0x1p128"), 1e300, sys.float_info.max]:
        pts.update([big, math.nextafter(big, math.inf), math.nextafter(big, -math.inf)])
    for _ in range(300):  # log-uniform random values over the format's range
        e = rng.uniform(math.log2(tiny) - 2, math.log2(top) + 2)
        pts.add(2.0 ** e)
    pts.discard(0.0)
    out = []
    for p in sorted(pts):
        out += [p, -p]
    out += [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan]
    return out


def e8m0_values():
    """float8_e8m0fnu [MX][ZE]: code c < 255 is 2^(c-127), 255 is NaN."""
    vals = [Fraction(2) ** (c - 127) for c in range(255)]
    values = [float(v) for v in vals] + ["nan"]
    assert all(Fraction(v) == vals[c] for c, v in enumerate(values[:255]))
    return values


def e8m0_expected(x):
    """float8_e8m0fnu encoding of float64 x by the definition: the nearest
    power of two, a tie (1.5 x 2^k) up, as [MLC] ConvertImpl rounds it
    (round-to-nearest-even on a significand whose only kept bit is the
    implicit 1, so the tie carries). Values with no representation give
    NaN, [MLC]'s non-saturating result: zero (no zero in the format),
    negative numbers (unsigned), NaN, +/-Inf, and values that round past
    2^127. Values below 2^-127 give 0x00 (2^-127, the nearest)."""
    if math.isnan(x) or math.isinf(x) or x <= 0:
        return 0xFF
    a = Fraction(x)
    lo = Fraction(2) ** -127
    if a <= lo:
        return 0
    k = 0
    while Fraction(2) ** (k - 127) < a:  # 2^(k-128) < a <= 2^(k-127)
        k += 1
    hi, lo = Fraction(2) ** (k - 127), Fraction(2) ** (k - 128)
    code = k if hi - a <= a - lo else k - 1  # a tie goes up
    return 0xFF if code > 254 else code


def e8m0_points(rng):
    """Float64 test inputs for float8_e8m0fnu: every power of two and
    midpoint (1.5 x 2^k) of the range and their float64 neighbours, values
    beyond both ends, random values, specials."""
    pts = set()
    for c in range(256):
        v = math.ldexp(1.0, c - 127)
        mid = v * 1.5
        for p in (v, mid):
            pts.update([p, math.nextafter(p, math.inf), math.nextafter(p, -math.inf)])
    for p in [float.fromhex("0x1p-128"), float.fromhex("0x1.4p-127"), 5e-324, 1e-300,
              float.fromhex("0x1.fffffep127"), 1e300, sys.float_info.max]:
        pts.update([p, math.nextafter(p, math.inf), math.nextafter(p, -math.inf)])
    for _ in range(300):
        pts.add(2.0 ** rng.uniform(-130, 130))
    pts.discard(0.0)
    xs = []
    for p in sorted(pts):
        xs += [p, -p]
    xs += [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan]
    return xs


def _fmt(name):
    f = Fmt(*next(spec for spec in FORMATS if spec[0] == name))
    cands = candidates(f)
    vals = [v for v, _ in cands]
    assert float(vals[-2]) == DOC_MAX[f.name], (f.name, float(vals[-2]))
    return f, cands, vals


@functools.lru_cache(maxsize=None)
def encoder(name):
    """The definition's encoding of a float64, as a function."""
    if name == "float8_e8m0fnu":
        return e8m0_expected
    f, cands, vals = _fmt(name)
    return lambda x: expected(f, cands, vals, x, brute=f.bits <= 8)


def definition(name, seed):
    """(values, [(x, expected bits)]) of a format by its definition: the
    value of every bit pattern (value_json form) and the expected encoding
    of each float64 test point."""
    rng = random.Random(seed)
    enc = encoder(name)
    if name == "float8_e8m0fnu":
        return e8m0_values(), [(x, enc(x)) for x in e8m0_points(rng)]
    f, cands, _ = _fmt(name)
    values = [value_json(f.decode(c)) for c in range(1 << f.bits)]
    return values, [(x, enc(x)) for x in test_points(f, cands, rng)]
