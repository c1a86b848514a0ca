"""Oracle for package pyops: evaluates each case with CPython itself.

Input (stdin): [{"op": name, "a": value, "b": value}, ...] with values as
JSON (floats written with a '.' or an exponent stay floats).
Output (stdout): [{"value": result} or {"error": [type name, str(exception)]}, ...]
"""
import json
import sys


def run(op, a, b):
    if op == "add":
        return a + b
    if op == "iadd":
        x = a
        x += b
        return x
    if op == "sub":
        return a - b
    if op == "isub":
        x = a
        x -= b
        return x
    if op == "mul":
        return a * b
    if op in ("<", "<=", ">", ">="):
        return {"<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b}[op]()
    if op == "eq":
        return a == b
    if op == "neg":
        return -a
    if op == "abs":
        return abs(a)
    if op == "round2":
        return round(a, 2)
    if op == "sum":
        return sum(a)
    if op == "max2":
        return max(a, b)
    if op == "contains":
        return b in a
    if op == "getitem":
        return a[b]
    if op == "len":
        return len(a)
    if op == "count":
        return a.count(b)
    if op == "lower":
        return a.lower()
    if op == "sorted":
        return sorted(a)
    if op == "int":
        return int(a)
    if op == "slice_from":
        return a[b:]
    raise ValueError("unknown op " + op)


def main():
    out = []
    for c in json.load(sys.stdin):
        try:
            v = run(c["op"], c.get("a"), c.get("b"))
            out.append({"value": v})
        except Exception as e:
            out.append({"error": [type(e).__name__, str(e)]})
    json.dump(out, sys.stdout)


main()
