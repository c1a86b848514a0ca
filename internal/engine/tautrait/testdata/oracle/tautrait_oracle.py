"""Oracle for ledgerbench's τ-Trait loop: runs upstream's own code.

Runs one of tau-trait's environments (tau_trait/envs/<env>/env.py:
telehealth, telecom), LLMUserSimulationEnv and
ToolCallingAgent (from the exported source in $TAUTRAIT_SRC) with litellm's
completion() replaced by a stub that records its keyword arguments and
returns scripted replies, and prints, per test task, the first request the
user simulator and the agent make in an episode.

Input (stdin): {"env": "telehealth"|"telecom" (default telehealth), "split" (default test),
               "tasks": [index...], "user_opening": str, "agent_answer": str}
Output (stdout): [{"task": i, "user": {kwargs}, "agent": {kwargs}}...]
where kwargs are the arguments of the litellm completion() call.
"""
import contextlib
import io
import json
import os
import sys
import types

sys.path.insert(0, os.environ["TAUTRAIT_SRC"])


class FakeMessage(dict):
    def model_dump(self):
        return dict(self)


class FakeResponse:
    def __init__(self, content):
        msg = FakeMessage(content=content, role="assistant", tool_calls=None, function_call=None)
        self.choices = [types.SimpleNamespace(message=msg)]
        self._hidden_params = {"response_cost": 0.0}


calls = []
script = {}


def completion(**kwargs):
    calls.append(json.loads(json.dumps(kwargs)))
    if kwargs.get("tools"):
        return FakeResponse(script["agent_answer"])
    return FakeResponse(script["user_opening"])


litellm = types.ModuleType("litellm")
litellm.completion = completion
litellm.provider_list = ["openai"]
sys.modules["litellm"] = litellm

import importlib  # noqa: E402
from tau_trait.agents.tool_calling_agent import ToolCallingAgent  # noqa: E402


ENV_CLASSES = {"telehealth": "MockTelehealthDomainEnv", "telecom": "MockTelecomDomainEnv"}


def main():
    req = json.load(sys.stdin)
    name = req.get("env", "telehealth")
    env_class = getattr(importlib.import_module("tau_trait.envs." + name + ".env"), ENV_CLASSES[name])
    script.update(req)
    out = []
    for i in req["tasks"]:
        with contextlib.redirect_stdout(io.StringIO()):
            env = env_class(user_strategy="llm", user_model="user-model", user_provider="openai",
                            task_split=req.get("split", "test"), task_index=i)
            agent = ToolCallingAgent(tools_info=env.tools_info, wiki=env.wiki, model="agent-model",
                                     provider="openai", temperature=0.0)
            del calls[:]  # the constructor's reset() has no instruction: not part of the episode
            agent.solve(env, task_index=i, max_num_steps=1)
        user = next(c for c in calls if not c.get("tools"))
        agent_call = next(c for c in calls if c.get("tools"))
        out.append({"task": i, "user": user, "agent": agent_call})
    json.dump(out, sys.stdout)


main()
