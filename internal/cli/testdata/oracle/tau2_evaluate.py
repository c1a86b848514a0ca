"""Reference re-evaluation for the rescore oracle test (see rescore_oracle_test.go).

Re-scores τ²-bench results files the way `tau2 evaluate-trajs --fresh-tasks`
does at the pinned commit (tau2.scripts.evaluate_trajectories.
compute_simulation_rewards): every simulation against the data directory's task
with its recorded task_id, evaluate_simulation(evaluation_type=ALL,
solo_mode=is_solo_mode(results), strict_replay=False), using upstream's own
evaluator, environments and tools from a tau2-bench checkout. Third-party
modules that evaluation does not use (loguru, litellm, rich, ...) are replaced
by inert stand-ins; toml is read with tomllib.

NL assertions need a judge model. None is called: where a task's basis has
NL_ASSERTION, the NL component is the simulation's recorded NL verdict
(reward_breakdown.NL_ASSERTION, 1 when none was recorded), the same stand-in
`ledgerbench rescore` uses; such simulations carry the note "nl from record".

    TAU2_SRC=/path/to/tau2-bench/src TAU2_DATA_DIR=/path/to/tau2-bench/data \
    python3 tau2_evaluate.py FILE...

stdout: one JSON object per simulation:
  {"file", "simulation_index", "simulation_id", "task_id", "trial", "reward",
   "db_match", "reward_breakdown", "notes", "error"}
"""

import importlib.abc
import importlib.machinery
import json
import os
import sys
import tomllib
import traceback
import types

SRC = os.environ["TAU2_SRC"]
sys.path.insert(0, SRC)

STUBBED = ("loguru", "litellm", "rich", "deepdiff", "addict", "docstring_parser",
           "tabulate", "tenacity", "fastapi", "uvicorn", "httpx", "psutil", "typer",
           "pandas", "numpy", "requests", "dotenv")


class _Inert:
    """Any attribute, call, subscript or subclassing yields another inert value."""

    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        if len(a) == 1 and callable(a[0]) and not k:
            return a[0]  # used as a decorator
        return _Inert()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Inert()

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def __mro_entries__(self, bases):
        return (object,)


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Inert()


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _StubFinder())
toml = types.ModuleType("toml")
toml.load = lambda fp, **k: tomllib.loads(fp.read())
toml.loads = lambda s, **k: tomllib.loads(s)
sys.modules["toml"] = toml

# tau2.registry imports every domain and agent; evaluation needs only the
# environment constructors of the three τ² domains and their task loaders.
import tau2  # noqa: E402
from tau2.domains.airline import environment as airline_env  # noqa: E402
from tau2.domains.retail import environment as retail_env  # noqa: E402
from tau2.domains.telecom import environment as telecom_env  # noqa: E402

DOMAINS = {"airline": airline_env, "retail": retail_env, "telecom": telecom_env}


class _Registry:
    def get_env_constructor(self, domain):
        return DOMAINS[domain].get_environment

    def get_tasks_loader(self, domain):
        return DOMAINS[domain].get_tasks


registry_mod = types.ModuleType("tau2.registry")
registry_mod.registry = _Registry()
sys.modules["tau2.registry"] = registry_mod

from tau2.data_model.simulation import Results, RewardInfo  # noqa: E402
from tau2.data_model.tasks import RewardType  # noqa: E402
from tau2.evaluator import evaluator as ev  # noqa: E402
from tau2.evaluator.evaluator_nl_assertions import NLAssertionsEvaluator  # noqa: E402


def main():
    for path in sys.argv[1:]:
        results = Results.load(path)
        domain = results.info.environment_info.domain_name
        agent = results.info.agent_info.implementation
        user = results.info.user_info.implementation
        solo = agent == "llm_agent_solo" and user == "dummy_user"
        fresh = {t.id: t for t in DOMAINS[domain].get_tasks(None)}
        embedded = {t.id: t for t in results.tasks}
        for i, sim in enumerate(results.simulations):
            out = {"file": os.path.basename(path), "simulation_index": i,
                   "simulation_id": sim.id, "task_id": sim.task_id,
                   "trial": sim.trial, "notes": []}
            task = fresh.get(sim.task_id) or embedded.get(sim.task_id)
            rec = sim.reward_info
            nl = 1.0
            if rec is not None and rec.reward_breakdown and RewardType.NL_ASSERTION in rec.reward_breakdown:
                nl = rec.reward_breakdown[RewardType.NL_ASSERTION]

            def recorded_nl(cls, task, full_trajectory, _nl=nl, _out=out):
                _out["notes"].append("nl from record")
                return RewardInfo(reward=_nl, reward_breakdown={RewardType.NL_ASSERTION: _nl})

            NLAssertionsEvaluator.calculate_reward = classmethod(recorded_nl)
            try:
                ri = ev.evaluate_simulation(
                    domain=domain, task=task, simulation=sim,
                    evaluation_type=ev.EvaluationType.ALL, solo_mode=solo,
                    mode=ev.CommunicationMode.HALF_DUPLEX, env_kwargs=None,
                    strict_replay=False)
                out["reward"] = ri.reward
                out["db_match"] = ri.db_check.db_match if ri.db_check else None
                out["reward_breakdown"] = {k.value if hasattr(k, "value") else k: v
                                           for k, v in (ri.reward_breakdown or {}).items()}
            except Exception as e:  # upstream's evaluate-trajs fails the whole file here
                out["error"] = f"{type(e).__name__}: {e}"
                out["notes"].append(traceback.format_exc(limit=3))
            print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
