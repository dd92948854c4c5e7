#!/usr/bin/python3
"""Compare the whole-array cases of a cases.json with an oracle's dump.

Usage:
    /usr/bin/python3 tests/oracle/compare_cases.py <expected cases.json> <oracle.json>...

<oracle.json> is dump_zarrita.mjs output for one or more stores. For every
array the oracle listed: "agree" (same shape and values), "DIFF" (the first
differing field), or "ERROR" (the oracle could not read it). Cases with a
selection are ignored (the oracle reads whole arrays). Exit status 1 if any
array differs; oracle errors are reported, not failures.
"""

import json
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        expected = {(c["store"], c["path"]): c for c in json.load(f) if c.get("selection", "") == ""}
    agree, differ, errors = [], [], []
    for fn in argv[2:]:
        with open(fn) as f:
            for z in json.load(f):
                key = (z["store"], z["path"])
                name = "%s/%s" % key
                if "error" in z:
                    errors.append("ERROR %s: %s" % (name, z["error"]))
                    continue
                c = expected.get(key)
                if c is None:
                    differ.append("DIFF %s: no expected case" % name)
                    continue
                fields = ["shape"] + [k for k in ("bytes", "strings", "objects") if k in c or k in z]
                bad = [k for k in fields if c.get(k) != z.get(k)]
                if bad:
                    differ.append("DIFF %s: %s" % (name, ", ".join(bad)))
                else:
                    agree.append(name)
    for line in differ + errors:
        print(line)
    print("%d agree, %d differ, %d oracle errors" % (len(agree), len(differ), len(errors)))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
