#!/usr/bin/python3
"""Write a cases.json for every array in a Zarr v2 store, with the values
zarr-python reads: the oracle for stores other implementations wrote.

Usage:
    /usr/bin/python3 tests/python/dump_cases.py <data_root> <store> <out.json>

<data_root>/<store> is the store directory. Arrays zarr-python cannot read are
listed in the output with an "error" field instead of values, so the caller
decides what that means.
"""

import json
import os
import sys
import warnings

import zarr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verify_cases import encode_result  # noqa: E402


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    data_root, store_name, out_file = argv[1:]
    root = zarr.open_group(zarr.DirectoryStore(os.path.join(data_root, store_name)), mode="r")
    cases = []

    def visit(path, node):
        case = {"name": store_name + "/" + path, "store": store_name, "path": path,
                "zarr_format": 2, "selection": ""}
        try:
            if node is None:
                node = root[path]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                case.update(encode_result(node[...]))
        except Exception as e:  # noqa: BLE001 - report, don't hide
            case["error"] = "%s: %s" % (type(e).__name__, e)
        cases.append(case)

    def walk(group, prefix):
        for name in sorted(group.array_keys()):
            visit(prefix + name, None)
        for name in sorted(group.group_keys()):
            walk(group[name], prefix + name + "/")

    walk(root, "")
    with open(out_file, "w") as f:
        json.dump(cases, f, allow_nan=False)
    print("%d arrays" % len(cases))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
