"""Reference runner for the knowledge oracle tests (see oracle_test.go).

Runs upstream's own retrieval code from a tau2-bench checkout: retrieval.py's
create_bm25_retrieval_pipeline / create_grep_retrieval_pipeline over the
documents (loaded into upstream's KnowledgeBase in file-name order), rank_bm25's
BM25Okapi, and the retrieval_mixins.py tool methods, with minimal stand-ins for
the framework modules they import (and for numpy, openai and requests when they
are not installed: the numpy stand-in does BM25's elementwise float operations
one by one, which is what numpy does).

    TAU2_SRC=/path/to/tau2-bench/src RANK_BM25_SRC=/path/to/rank_bm25 \
    LEDGERBENCH_KNOWLEDGE_ORACLE="python3 testdata/oracle/knowledge_oracle.py" \
    go test ./internal/bench/knowledge -run Oracle

stdin:  {"documents": dir, "scores": [query...], "calls": [{"tool", "args",
         "top_k", "grep_top_k", "case_sensitive"}...], "logs": [x...]}
stdout: {"ids": [id...], "scores": [[float.hex()...]...],
         "calls": [[content, is_error]...], "logs": [float.hex()...]}
"""

import enum
import glob
import json
import math
import os
import sys
import types
from pathlib import Path

SRC = os.environ["TAU2_SRC"]
sys.path.insert(0, SRC)
if os.environ.get("RANK_BM25_SRC"):
    sys.path.insert(0, os.environ["RANK_BM25_SRC"])


def stub(name, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return mod


def package(name, path):
    mod = types.ModuleType(name)
    mod.__path__ = [path]
    sys.modules[name] = mod
    return mod


try:
    import numpy  # noqa: F401
except ImportError:
    class Array:
        """The elementwise float operations BM25Okapi.get_scores uses."""

        def __init__(self, values):
            self.v = list(values)

        def __len__(self):
            return len(self.v)

        def __getitem__(self, i):
            return self.v[i]

        def _zip(self, other, op):
            if isinstance(other, Array):
                return Array(op(a, b) for a, b in zip(self.v, other.v))
            return Array(op(a, other) for a in self.v)

        def _rzip(self, other, op):
            return Array(op(other, a) for a in self.v)

        def __add__(self, o): return self._zip(o, lambda a, b: a + b)
        def __radd__(self, o): return self._rzip(o, lambda a, b: a + b)
        def __mul__(self, o): return self._zip(o, lambda a, b: a * b)
        def __rmul__(self, o): return self._rzip(o, lambda a, b: a * b)
        def __truediv__(self, o): return self._zip(o, lambda a, b: a / b)
        def __rtruediv__(self, o): return self._rzip(o, lambda a, b: a / b)
        def __sub__(self, o): return self._zip(o, lambda a, b: a - b)
        def __rsub__(self, o): return self._rzip(o, lambda a, b: a - b)

        def __iadd__(self, o):
            # numpy adds into a float64 array: ints become floats.
            self.v = [float(a) for a in (self + o).v]
            return self

    stub("numpy", zeros=lambda n: Array([0.0] * n), array=Array, ndarray=Array,
         vstack=None, argsort=None)

for mod in ("openai",):
    try:
        __import__(mod)
    except ImportError:
        class _E(Exception):
            pass
        stub("openai", OpenAI=object, APIError=_E, APIConnectionError=_E, RateLimitError=_E)
try:
    import requests  # noqa: F401
except ImportError:
    stub("requests", Session=object)

import pydantic  # noqa: E402


class ToolType(str, enum.Enum):
    READ = "read"
    WRITE = "write"
    THINK = "think"
    GENERIC = "generic"


def is_tool(tool_type=ToolType.READ, mutates_state=None):
    def mark(fn):
        return fn
    return mark


class DB(pydantic.BaseModel):
    pass


tau2_dir = os.path.join(SRC, "tau2")
package("tau2", tau2_dir)
package("tau2.environment", os.path.join(tau2_dir, "environment"))
stub("tau2.environment.toolkit", ToolKitType=type, ToolType=ToolType, is_tool=is_tool)
stub("tau2.environment.db", DB=DB)
package("tau2.utils", os.path.join(tau2_dir, "utils"))
stub("tau2.utils.utils", DATA_DIR=Path(SRC).parent / "data")
package("tau2.domains", os.path.join(tau2_dir, "domains"))
package("tau2.domains.banking_knowledge", os.path.join(tau2_dir, "domains", "banking_knowledge"))
stub("tau2.domains.banking_knowledge.tools", KnowledgeTools=object)
stub("tau2.domains.banking_knowledge.retrieval_toolkits",
     KnowledgeToolsAllTools=object, KnowledgeToolsPlain=object, KnowledgeToolsWithGrep=object,
     KnowledgeToolsWithKBSearch=object, KnowledgeToolsWithKBSearchAndGrep=object,
     KnowledgeToolsWithShell=object)

from tau2.domains.banking_knowledge import retrieval  # noqa: E402
from tau2.domains.banking_knowledge.data_model import Document, KnowledgeBase  # noqa: E402
from tau2.domains.banking_knowledge.retrieval_mixins import (  # noqa: E402
    GrepMixin, KBSearchBm25AllToolsMixin, KBSearchMixin)


def main():
    req = json.load(sys.stdin)
    docs = {}
    for path in sorted(glob.glob(os.path.join(req["documents"], "*.json"))):
        with open(path) as f:
            d = Document(**json.load(f))
        docs[d.id] = d
    kb = KnowledgeBase(documents=docs)
    out = {"ids": list(kb.documents.keys()), "scores": [], "calls": [], "logs": []}

    bm25 = retrieval.create_bm25_retrieval_pipeline(kb, top_k=10)
    index = bm25.state["bm25"]
    for q in req.get("scores", []):
        out["scores"].append([float(s).hex() for s in index.get_scores(q.lower().split())])
    out["average_idf"] = float(index.average_idf).hex()

    pipelines = {}

    def pipeline(kind, **params):
        key = (kind, tuple(sorted(params.items())))
        if key not in pipelines:
            if kind == "grep":
                pipelines[key] = retrieval.create_grep_retrieval_pipeline(kb, **params)
            else:
                pipelines[key] = retrieval.create_bm25_retrieval_pipeline(kb, **params)
        return pipelines[key]

    for c in req.get("calls", []):
        tool, args = c["tool"], c["args"]
        try:
            if tool == "KB_search":
                obj = types.SimpleNamespace(_kb_pipeline=pipeline("bm25", top_k=c.get("top_k", 10)))
                content = KBSearchMixin.KB_search(obj, **args)
            elif tool == "KB_search_bm25":
                obj = types.SimpleNamespace(_kb_bm25_pipeline=pipeline("bm25", top_k=c.get("top_k", 10)))
                content = KBSearchBm25AllToolsMixin.KB_search_bm25(obj, **args)
            elif tool == "grep":
                obj = types.SimpleNamespace(_grep_pipeline=pipeline(
                    "grep", top_k=c.get("grep_top_k", 10), case_sensitive=c.get("case_sensitive", False)))
                content = GrepMixin.grep(obj, **args)
            else:
                raise SystemExit("unknown tool " + tool)
            out["calls"].append([content, False])
        except Exception as e:  # the tool's exception, as the environment reports it
            out["calls"].append([str(e), True])

    for x in req.get("logs", []):
        out["logs"].append(math.log(x).hex())
    json.dump(out, sys.stdout)


main()
