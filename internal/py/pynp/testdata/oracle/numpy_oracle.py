"""Reference runner for pynp's oracle test: numpy itself (see oracle_test.go).

    LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/blas \
    LEDGERBENCH_NUMPY_ORACLE="/usr/bin/python3 testdata/oracle/numpy_oracle.py" go test ./internal/py/pynp -run Oracle

(LD_LIBRARY_PATH selects the reference BLAS, libblas3, over an OpenBLAS alternative.)

stdin:  {"arrays": [[float...]...], "pairs": [[[a...], [b...]]...]}
stdout: {"argsort": [[int...]...], "sum": [hex...], "dot": [hex...], "norm": [hex...], "version": str}
"""

import json
import sys

import numpy as np


def main():
    req = json.load(sys.stdin)
    out = {"argsort": [], "sum": [], "dot": [], "norm": [], "version": np.__version__}
    for a in req["arrays"]:
        x = np.array(a, dtype=np.float64)
        out["argsort"].append([int(i) for i in np.argsort(x)])
        out["sum"].append(float(np.add.reduce(x)).hex() if len(a) else "0x0.0p+0")
    for a, b in req["pairs"]:
        out["dot"].append(float(np.dot(np.array([a]), np.array(b))[0]).hex())
        out["norm"].append(float(np.linalg.norm(np.array(a))).hex())
    json.dump(out, sys.stdout)


main()
