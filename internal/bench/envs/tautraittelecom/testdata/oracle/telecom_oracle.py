"""Oracle for ledgerbench's tautrait-telecom domain: runs upstream's own code.

Loads tau-trait's MockTelecomDomainEnv from the source tree in $TAUTRAIT_SRC
(the folder holding tau_trait/), with litellm's completion() replaced by a
stub (the simulated user answers from the case's script), and plays each
case's actions through Env.step as upstream's agent loop does.

Input (stdin): {"cases": [{"split": "test"|"train"|"dev-misnamed", "task": i,
  "calls": [{"name": str, "kwargs": {...}}...], "respond": [str...]}...]}
  dev-misnamed is tasks_dev.py's TASKS_TEST list (upstream's dev split cannot
  be loaded), set on an environment built for the test split.
Output (stdout): one object per case:
  {"outputs": [observation...], "data": json.dumps(env.data) after the calls,
   "hash": env.get_data_hash() after the calls,
   "reward": the reward after the respond actions (the user stops after the
   last; null when there are none),
   "actions_reward": calculate_reward() right after the calls,
   "gt_hash": the gold replay's data hash}
"""
import contextlib
import io
import json
import os
import sys
import types

sys.path.insert(0, os.environ["TAUTRAIT_SRC"])

user_replies = []


class FakeMessage(dict):
    def model_dump(self):
        return dict(self)


class FakeResponse:
    def __init__(self, content):
        msg = FakeMessage(content=content, role="assistant", tool_calls=None, function_call=None)
        self.choices = [types.SimpleNamespace(message=msg)]
        self._hidden_params = {"response_cost": 0.0}


def completion(**kwargs):
    return FakeResponse(user_replies.pop(0) if user_replies else "Hello.")


litellm = types.ModuleType("litellm")
litellm.completion = completion
litellm.provider_list = ["openai"]
sys.modules["litellm"] = litellm

from tau_trait.envs.telecom import MockTelecomDomainEnv  # noqa: E402
from tau_trait.types import Action  # noqa: E402


def make_env(split):
    with contextlib.redirect_stdout(io.StringIO()):
        env = MockTelecomDomainEnv(user_strategy="llm", user_model="user-model", user_provider="openai",
                                   task_split="test" if split == "dev-misnamed" else split, task_index=0)
    if split == "dev-misnamed":
        from tau_trait.envs.telecom import tasks_dev
        env.tasks = tasks_dev.TASKS_TEST
    return env


def reset(env, task):
    with contextlib.redirect_stdout(io.StringIO()):
        env.reset(task_index=task)


def run(case):
    env = make_env(case["split"])
    reset(env, case["task"])
    out = {"outputs": []}
    for c in case["calls"]:
        r = env.step(Action(name=c["name"], kwargs=c["kwargs"]))
        out["outputs"].append(r.observation)
    out["data"] = json.dumps(env.data)
    out["hash"] = env.get_data_hash()
    out["reward"] = None
    responds = case.get("respond") or []
    for i, text in enumerate(responds):
        user_replies[:] = ["###STOP###" if i == len(responds) - 1 else "Okay."]
        r = env.step(Action(name="respond", kwargs={"content": text}))
        if r.done:
            out["reward"] = r.reward
            break
    env = make_env(case["split"])
    reset(env, case["task"])
    for c in case["calls"]:
        env.step(Action(name=c["name"], kwargs=c["kwargs"]))
    with contextlib.redirect_stdout(io.StringIO()):
        res = env.calculate_reward()
    out["actions_reward"] = res.reward
    out["gt_hash"] = env.get_data_hash()
    return out


def main():
    req = json.load(sys.stdin)
    json.dump([run(c) for c in req["cases"]], sys.stdout)


main()
