"""Reference runner for pyre's oracle test (see oracle_test.go): Python's own
re module on the same patterns and texts.

    LEDGERBENCH_PYRE_ORACLE="python3 testdata/oracle/re_oracle.py" go test ./internal/py/pyre -run Oracle

stdin:  {"cases": [{"pattern", "flags", "text"}...], "cased": bool}
stdout: {"cases": [{"error": null | "error" | exception type name,
                    "matches": [[[start, end] | null per group 0..n]...]}...],
         "extra": {lowered code: [codes]} (re._casefix._EXTRA_CASES),
         "upper": {code: first code point of str.upper()} where it differs from the simple mapping}
"""

import json
import re
import sys
import unicodedata


def main():
    req = json.load(sys.stdin)
    out = []
    for c in req["cases"]:
        try:
            p = re.compile(c["pattern"], c["flags"])
        except re.error:
            out.append({"error": "error", "matches": []})
            continue
        except Exception as e:  # OverflowError, ValueError, RecursionError
            out.append({"error": type(e).__name__, "matches": []})
            continue
        ms = []
        for m in p.finditer(c["text"]):
            ms.append([list(m.span(g)) if m.span(g) != (-1, -1) else None for g in range(p.groups + 1)])
        out.append({"error": None, "matches": ms})
    res = {"cases": out}
    if req.get("cased"):
        from re import _casefix
        res["extra"] = {str(k): list(v) for k, v in _casefix._EXTRA_CASES.items()}
        up = {}
        for c in range(0x110000):
            u = chr(c).upper()
            if len(u) > 1:
                up[str(c)] = ord(u[0])
        res["upper"] = up
        res["alnum"] = [c for c in range(0x110000) if chr(c).isalnum() != (unicodedata.category(chr(c))[0] in "LN")]
    json.dump(res, sys.stdout)


main()
