"""Oracle for internal/submit: runs tau2-bench's own leaderboard code on
trajectory files and prints what it computes, as JSON.

    TAU2_SRC=/path/to/tau2-bench/src TAU2_DATA_DIR=/path/to/tau2-bench/data \
        python3 submit_oracle.py [--verify] FILE.json...

Output: {"set": [ok, error], "files": [{"path", "format": [ok, error],
"tasks": [ok, error], "trials": [ok, error]}], "results": {domain:
DomainResults}, "model": ..., "user_simulator": ...}. With --verify only
"files": upstream's verify_trajectories checks of each file on its own (the
files need not form a submission).

Third-party modules the leaderboard code imports but never uses here (LLM
clients, diff and docstring helpers) are stubbed when they are not installed;
Debian's dist-packages are searched after the interpreter's own.
"""
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import types

STUBBED = ("addict", "deepdiff", "docstring_parser", "httpx", "litellm")


class _Dummy:
    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return _Dummy()

    def __getattr__(self, name):
        return _Dummy()

    def __class_getitem__(cls, key):
        return cls


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        m = types.ModuleType(spec.name)
        m.__path__ = []
        m.__getattr__ = lambda name: (_ for _ in ()).throw(AttributeError(name)) if name.startswith("__") else _Dummy
        return m

    def exec_module(self, module):
        pass


class _StubFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] not in STUBBED:
            return None
        for finder in sys.meta_path:
            if finder is self:
                continue
            try:
                spec = finder.find_spec(name, path, target)
            except Exception:
                spec = None
            if spec is not None:
                return spec
        return importlib.machinery.ModuleSpec(name, _StubLoader(), is_package=True)


def main(paths):
    sys.path.insert(0, os.environ["TAU2_SRC"])
    sys.path.append("/usr/lib/python3/dist-packages")
    sys.meta_path.insert(0, _StubFinder())
    from loguru import logger

    logger.remove()
    from tau2.data_model.simulation import Results
    from tau2.scripts.leaderboard.prepare_submission import (
        get_metrics,
        validate_submission_traj_set,
    )
    from tau2.scripts.leaderboard.verify_trajectories_public import (
        check_format,
        check_num_trials,
        check_tasks,
    )

    verify_only = bool(paths) and paths[0] == "--verify"
    if verify_only:
        paths = paths[1:]
    out = {"files": []}
    loaded = []
    for p in paths:
        res, ok, err = check_format(p)
        f = {"path": p, "format": [ok, err]}
        if ok:
            loaded.append(res)
            f["tasks"] = list(check_tasks(res))
            f["trials"] = list(check_num_trials(res))
        out["files"].append(f)
    if verify_only:
        json.dump(out, sys.stdout)
        return
    out["set"] = list(validate_submission_traj_set(loaded))
    _, domain_results, model, user = get_metrics(loaded)
    out["results"] = {d: r.model_dump() for d, r in domain_results.items()}
    out["model"] = model
    out["user_simulator"] = user
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
