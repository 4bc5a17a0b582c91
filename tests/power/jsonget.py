#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""jsonget.py FILE KEY...: the value of each KEY, the first found anywhere
in the JSON document FILE (depth first), on one line; None where absent."""
import json
import sys


def find(o, k):
    if isinstance(o, dict):
        if k in o:
            return o[k]
        for v in o.values():
            r = find(v, k)
            if r is not None:
                return r
    return None


if len(sys.argv) < 3:
    sys.exit(__doc__)
doc = json.load(open(sys.argv[1]))
print(" ".join(str(find(doc, k)) for k in sys.argv[2:]))
