"""Oracle for internal/output/leaderboard: ranks a submissions folder with
tau2-bench's own Leaderboard class and prints every ranking as JSON.

    TAU2_SRC=/path/to/tau2-bench/src python3 leaderboard_oracle.py SUBMISSIONS_DIR

Output: {"submissions": [ids loaded, in order], "rankings": {"<domain or
overall>/<metric>": [[rank, submission_id, score], ...]}}. Uses the module
stubs of internal/output/submit's oracle for the third-party modules the
leaderboard code imports but never uses here.
"""
import contextlib
import io
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "submit", "testdata", "oracle"))


def main(folder):
    import submit_oracle

    sys.path.insert(0, os.environ["TAU2_SRC"])
    sys.path.append("/usr/lib/python3/dist-packages")
    sys.meta_path.insert(0, submit_oracle._StubFinder())
    from loguru import logger

    logger.remove()
    with contextlib.redirect_stdout(io.StringIO()):
        from tau2.scripts.leaderboard.leaderboard import Leaderboard
        from tau2.scripts.leaderboard.submission import DOMAINS, METRICS

        lb = Leaderboard.load(folder)
    out = {"submissions": lb.list_submissions(), "rankings": {}}
    for metric in METRICS:
        for domain in [None] + DOMAINS:
            if domain is None:
                entries = lb.get_top_models_overall(metric=metric)
            else:
                entries = lb.get_top_models(domain=domain, metric=metric)
            out["rankings"][f"{domain or 'overall'}/{metric}"] = [
                [e.rank, e.submission.submission_id, e.score] for e in entries
            ]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
