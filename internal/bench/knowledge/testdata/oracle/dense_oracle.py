"""Reference runner for the dense-retrieval oracle test (see dense_test.go).

Runs upstream's own dense retrieval from a tau2-bench checkout: retrieval.py's
create_embedding_retrieval_pipeline (EmbeddingIndexer, EmbeddingEncoder with
OpenRouter's Qwen query instruction, CosineRetriever on numpy, the pointwise
LLM reranker) and the KB_search tools of retrieval_mixins.py. The OpenAI SDK is
replaced by a stand-in that answers every embeddings call with fixed vectors
(the test's own rule, below) and every reranker call with a fixed rating, and
records what upstream asked: the test compares those requests with the ones
ledgerbench sent to its fake endpoints. numpy must be importable (put a
directory holding only numpy, e.g. a link to Debian's, on PYTHONPATH).

    TAU2_SRC=/path/to/tau2-bench/src PYTHONPATH=/dir/with/numpy \
    LEDGERBENCH_DENSE_ORACLE="python3 testdata/oracle/dense_oracle.py" \
    go test ./internal/bench/knowledge -run DenseOracle

stdin:  {"documents": [{"id", "title", "content"}...], "calls": [{"embedder_type", "model",
         "top_k", "reranker", "min_score", "tool", "args"}...], "reranker_model"}
stdout: {"calls": [[content, is_error]...], "embeddings": [{"input", "model", "encoding_format"}...],
         "ratings": [{"model", "messages", "reasoning_effort", "schema"}...]}
"""

import contextlib
import enum
import hashlib
import json
import os
import sys
import tempfile
import types

SRC = os.environ["TAU2_SRC"]
sys.path.insert(0, SRC)

import numpy  # noqa: E402,F401  (upstream's own dependency, not a stand-in)
import pydantic  # noqa: E402

EMBEDDINGS = []
RATINGS = []


def vector(text):
    """The fixed vector of a text: 16 values from its SHA-256 (the test's rule)."""
    d = hashlib.sha256(text.encode("utf-8")).digest()
    return [(b - 128) / 32 for b in d[:16]]


def rating(prompt):
    """The fixed rating of a reranker prompt (the test's rule)."""
    return hashlib.sha256(prompt.encode("utf-8")).digest()[0] % 11


class _NotGiven:
    pass


NOT_GIVEN = _NotGiven()


class _Embeddings:
    def create(self, input, model, encoding_format=NOT_GIVEN):
        EMBEDDINGS.append({"input": list(input), "model": model,
                           "encoding_format": None if encoding_format is NOT_GIVEN else encoding_format})
        return types.SimpleNamespace(data=[types.SimpleNamespace(embedding=vector(t)) for t in input])


class _Completions:
    def parse(self, model, messages, response_format, reasoning_effort=NOT_GIVEN):
        RATINGS.append({"model": model, "messages": messages,
                        "reasoning_effort": None if reasoning_effort is NOT_GIVEN else reasoning_effort,
                        "schema": response_format.model_json_schema(), "name": response_format.__name__})
        parsed = response_format(relevance_score=rating(messages[0]["content"]))
        msg = types.SimpleNamespace(parsed=parsed, refusal=None)
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=msg, finish_reason="stop")])


class OpenAI:
    def __init__(self, api_key=None, base_url=None):
        self.embeddings = _Embeddings()
        self.beta = types.SimpleNamespace(chat=types.SimpleNamespace(completions=_Completions()))


class _E(Exception):
    pass


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


stub("openai", OpenAI=OpenAI, APIError=_E, APIConnectionError=_E, RateLimitError=_E)
try:
    import requests  # noqa: F401
except ImportError:
    stub("requests", Session=object)
try:
    import rank_bm25  # noqa: F401
except ImportError:
    stub("rank_bm25", BM25Okapi=object)


class ToolType(str, enum.Enum):
    READ = "read"
    WRITE = "write"
    THINK = "think"
    GENERIC = "generic"


class DB(pydantic.BaseModel):
    pass


tau2 = os.path.join(SRC, "tau2")
package("tau2", tau2)
package("tau2.environment", os.path.join(tau2, "environment"))
stub("tau2.environment.toolkit", ToolKitType=type, ToolType=ToolType, is_tool=lambda *a, **k: (lambda f: f))
stub("tau2.environment.db", DB=DB)
package("tau2.utils", os.path.join(tau2, "utils"))
stub("tau2.utils.utils", DATA_DIR=__import__("pathlib").Path(SRC).parent / "data")
package("tau2.domains", os.path.join(tau2, "domains"))
package("tau2.domains.banking_knowledge", os.path.join(tau2, "domains", "banking_knowledge"))
stub("tau2.domains.banking_knowledge.tools", KnowledgeTools=object)
stub("tau2.domains.banking_knowledge.retrieval_toolkits", **{n: object for n in (
    "KnowledgeToolsAllTools", "KnowledgeToolsPlain", "KnowledgeToolsWithGrep", "KnowledgeToolsWithKBSearch",
    "KnowledgeToolsWithKBSearchAndGrep", "KnowledgeToolsWithShell")})

from tau2.domains.banking_knowledge import retrieval  # noqa: E402
from tau2.domains.banking_knowledge.data_model import Document, KnowledgeBase  # noqa: E402
from tau2.domains.banking_knowledge.retrieval_mixins import (  # noqa: E402
    KBSearchDenseAllToolsMixin, KBSearchMixin)
from tau2.knowledge import embeddings_cache  # noqa: E402


def main():
    req = json.load(sys.stdin)
    os.chdir(tempfile.mkdtemp())  # upstream's embeddings cache lives in ./data/.embeddings_cache
    kb = KnowledgeBase(documents={d["id"]: Document(**d) for d in req["documents"]})
    pipelines = {}
    out = []
    for c in req["calls"]:
        key = (c["embedder_type"], c["model"], c["top_k"], c.get("reranker", False), c.get("min_score", 5))
        with contextlib.redirect_stdout(sys.stderr):  # upstream's cache prints its progress
            if key not in pipelines:
                embeddings_cache.clear_cached_docs()
                post = None
                if c.get("reranker"):
                    post = [{"type": "pointwise_llm_reranker",
                             "params": {"min_score": c.get("min_score", 5)}}]
                pipelines[key] = retrieval.create_embedding_retrieval_pipeline(
                    kb, c["embedder_type"], {"model": c["model"]}, c["top_k"], post)
            p = pipelines[key]
            try:
                if c["tool"] == "KB_search":
                    content = KBSearchMixin.KB_search(types.SimpleNamespace(_kb_pipeline=p), **c["args"])
                else:
                    content = KBSearchDenseAllToolsMixin.KB_search_dense(types.SimpleNamespace(_kb_dense_pipeline=p), **c["args"])
                out.append([content, False])
            except Exception as e:  # the tool's exception, as the environment reports it
                out.append([str(e), True])
    json.dump({"calls": out, "embeddings": EMBEDDINGS, "ratings": RATINGS}, sys.stdout)


main()
