"""Oracle for ledgerbench's τ-bench v1 environments: runs upstream's own code.

Imports the environment (tau_bench.envs.<env> from $TAUBENCH_SRC, or
tau_trait.envs.<env> from $TAUTRAIT_SRC) with litellm replaced by a stub
(the simulated user answers "ok", or "###STOP###" to the last reply), and
plays sequences of actions through Env.step, as ToolCallingAgent's episode
does.

Input (stdin): {"source": "tau_bench"|"tau_trait", "env": "airline"|"retail",
  "split": "test", "sequences": [{"task": i, "calls": [{"name", "kwargs"}],
  "replies": ["To confirm: …"], "reward": bool, "changes": bool}]}
Output (stdout): one object per sequence: {"observations": [str],
  "hash": data hash of the episode's final data, "reward": float or null,
  "reward_info": {...} or null, "changes": {"<table>": {"<key>": record}}
  (records that differ from freshly loaded data) when asked, "crash":
  {"step", "type", "text"} when Env.step raised (upstream's episode ends)}.

A sequence stops at the first step that ends the episode (a terminate tool,
the last reply); the final data is what calculate_reward hashes first. With
"reward" set and no step ending the episode, calculate_reward is called
after the last step.
"""
import importlib
import json
import os
import sys
import types

script = {"stop": False}


class FakeMessage(dict):
    @property
    def content(self):
        return self["content"]

    def model_dump(self):
        return dict(self)


class FakeResponse:
    def __init__(self, content):
        self.choices = [types.SimpleNamespace(message=FakeMessage(content=content, role="assistant",
                                                                  tool_calls=None, function_call=None))]
        self._hidden_params = {"response_cost": 0.0}


def completion(**kwargs):
    return FakeResponse("###STOP###" if script["stop"] else "ok")


litellm = types.ModuleType("litellm")
litellm.completion = completion
litellm.provider_list = ["openai"]
sys.modules["litellm"] = litellm


def main():
    req = json.load(sys.stdin)
    out_stream = sys.stdout
    sys.stdout = sys.stderr  # τ-Trait's user prints its settings
    pkg = req["source"]
    sys.path.insert(0, os.environ["TAUBENCH_SRC" if pkg == "tau_bench" else "TAUTRAIT_SRC"])
    env_mod = importlib.import_module(f"{pkg}.envs.{req['env']}.env")
    types_mod = importlib.import_module(f"{pkg}.types")
    cls = [getattr(env_mod, n) for n in dir(env_mod) if n.startswith("Mock") and n.endswith("DomainEnv")][0]
    Action = types_mod.Action
    out = []
    env = cls(user_strategy="llm", user_model="user-model", user_provider="openai",
              task_split=req["split"], task_index=0)
    for seq in req["sequences"]:
        script["stop"] = False
        for k in ("calculate_reward", "get_data_hash"):
            env.__dict__.pop(k, None)
        env.reset(task_index=seq.get("task", 0))
        snap = {}
        orig_reward, orig_hash = env.calculate_reward, env.get_data_hash

        def hashed(env=env, orig_hash=orig_hash, snap=snap):
            h = orig_hash()
            snap.setdefault("hashes", []).append(h)
            return h

        def rewarded(env=env, orig_reward=orig_reward, snap=snap):
            # calculate_reward hashes the episode's data first, then reloads
            # the data and replays the gold actions on the new dict: the old
            # one is the episode's final data, kept by reference.
            snap["data"] = env.data
            snap["hashes"] = []
            r = orig_reward()
            snap["hash"] = snap["hashes"][0]
            return r

        env.get_data_hash = hashed
        env.calculate_reward = rewarded
        res = {"observations": [], "reward": None, "reward_info": None}
        done = False
        steps = [("call", c) for c in seq.get("calls") or []] + [("reply", r) for r in seq.get("replies", [])]
        for i, (kind, item) in enumerate(steps):
            if kind == "call":
                action = Action(name=item["name"], kwargs=item["kwargs"])
            else:
                script["stop"] = i == len(steps) - 1
                action = Action(name="respond", kwargs={"content": item})
            try:
                r = env.step(action)
            except Exception as e:  # upstream's episode would end here (run.py records the error)
                res["crash"] = {"step": i, "type": type(e).__name__, "text": str(e)}
                break
            if kind == "call":
                res["observations"].append(r.observation)
            if r.done:
                done = True
                res["reward"] = r.reward
                res["reward_info"] = r.info.reward_info.model_dump()
                break
        if not done and seq.get("reward"):
            rr = env.calculate_reward()
            res["reward"] = rr.reward
            res["reward_info"] = rr.model_dump()
        if "hash" not in snap:
            snap["data"] = env.data
            snap["hash"] = orig_hash()
        res["hash"] = snap["hash"]
        if seq.get("changes"):
            fresh = env.data_load_func()
            changes = {}
            for table, records in snap["data"].items():
                for key, rec in records.items():
                    if key not in fresh[table] or json.dumps(fresh[table][key], sort_keys=True) != json.dumps(rec, sort_keys=True):
                        changes.setdefault(table, {})[key] = rec
            res["changes"] = changes
        out.append(res)
    json.dump(out, out_stream)


main()
