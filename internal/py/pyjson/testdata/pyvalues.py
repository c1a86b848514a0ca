# Prints type(v).__name__, str(v) and repr(v) of json.loads(c) for each JSON
# text c of the JSON list on standard input, one JSON array
# [c, type, str, repr] a line. Regenerate pyvalues.jsonl with
#   python3 -c 'import json; print(json.dumps([json.loads(l)[0] for l in open("testdata/pyvalues.jsonl")]))' \
#     | python3 testdata/pyvalues.py > testdata/pyvalues.jsonl.new
# (the opt-in TestPythonValuesOracle runs it; see value_test.go).
import json
import sys

for c in json.load(sys.stdin):
    v = json.loads(c)
    print(json.dumps([c, type(v).__name__, str(v), repr(v)]))
