"""Times upstream's BM25 (bm25_indexer.py's BM25Indexer.process, which builds
rank_bm25's BM25Okapi, and bm25_retriever.py's BM25Retriever.retrieve) over
the knowledge-base documents, for the benchmark beside ours (bench_test.go).
Needs numpy (upstream's dependency; Debian's python3-numpy will do).

    TAU2_SRC=/path/to/tau2-bench/src RANK_BM25_SRC=/path/to/rank_bm25 \
    python3 testdata/oracle/bm25_timing.py DOCUMENTS_DIR QUERY...

stdout: {"build_ns": ns per index build, "query_ns": ns per query (mean over QUERY...),
         "build_cpu_ns", "query_cpu_ns": the same in CPU time (time.process_time_ns:
         every thread of the process), medians as the wall times,
         "python", "numpy": the versions timed (upstream's time depends on them)}
"""

import glob
import json
import os
import sys
import time
import types

sys.path.insert(0, os.environ["TAU2_SRC"])
sys.path.insert(0, os.environ["RANK_BM25_SRC"])
import numpy  # noqa: E402  (upstream's own dependency, not a stand-in)

pkg = types.ModuleType("tau2")
pkg.__path__ = [os.path.join(os.environ["TAU2_SRC"], "tau2")]
sys.modules["tau2"] = pkg

from tau2.knowledge.document_preprocessors.bm25_indexer import BM25Indexer  # noqa: E402
from tau2.knowledge.retrievers.bm25_retriever import BM25Retriever  # noqa: E402


def main():
    docs = []
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
        with open(path) as f:
            d = json.load(f)
        docs.append({"id": d["id"], "text": d["content"], "title": d["title"]})
    queries = sys.argv[2:]

    def best(fn, n):
        t, c = [], []
        for _ in range(n):
            t0, c0 = time.perf_counter_ns(), time.process_time_ns()
            fn()
            c.append(time.process_time_ns() - c0)
            t.append(time.perf_counter_ns() - t0)
        t.sort()
        c.sort()
        return t[len(t) // 2], c[len(c) // 2]  # the medians

    state = {}
    build, build_cpu = best(lambda: BM25Indexer(state_key="bm25").process(docs, state), 15)
    retriever = BM25Retriever(top_k=10)
    per = [best(lambda q=q: retriever.retrieve({"query": q}, state), 200) for q in queries]
    json.dump({"build_ns": build, "query_ns": sum(w for w, _ in per) / len(per),
               "build_cpu_ns": build_cpu, "query_cpu_ns": sum(c for _, c in per) / len(per),
               "python": sys.version.split()[0], "numpy": numpy.__version__}, sys.stdout)


main()
