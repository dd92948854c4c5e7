"""Dates of CF time values by cftime (Unidata's library; Debian's
python3-cftime), for tests/demo/cftime.test.mjs: reads [[value, units,
calendar], ...] as JSON on stdin and prints the dates as JSON, each
"YYYY-MM-DD" with " HH:MM[:SS]" when not midnight (rounded to the second),
or null where cftime refuses the units or calendar.
"""
import json
import sys

import cftime


def text(d):
    s = ("-" if d.year < 0 else "") + "%04d-%02d-%02d" % (abs(d.year), d.month, d.day)
    secs = d.hour * 3600 + d.minute * 60 + d.second + (1 if d.microsecond >= 500000 else 0)
    if secs:
        s += " %02d:%02d" % (secs // 3600, (secs % 3600) // 60) + (":%02d" % (secs % 60) if secs % 60 else "")
    return s


def main():
    out = []
    for value, units, calendar in json.load(sys.stdin):
        try:
            out.append(text(cftime.num2date(value, units, calendar=calendar)))
        except Exception:
            out.append(None)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
