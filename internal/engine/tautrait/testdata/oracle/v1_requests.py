"""Oracle for the requests of ledgerbench's τ-Trait / τ-bench v1 loop on the
v1 environments (airline, retail): runs upstream's own code.

Runs the environment, its LLM user and ToolCallingAgent from tau_bench
($TAUBENCH_SRC) or tau_trait ($TAUTRAIT_SRC) with litellm's completion()
stubbed: the user opens with "user_opening", then stops; the agent first
proposes two tool calls (only the first runs), then answers "agent_answer".
Prints every completion() call of each task's episode, in order.

Input (stdin): {"source": "tau_bench"|"tau_trait", "env": "airline"|"retail",
  "split": "test", "tasks": [index...], "user_opening": str,
  "agent_answer": str, "calls": [{"id", "name", "arguments"}, ...]}
Output (stdout): [{"task": i, "user": [kwargs...], "agent": [kwargs...]}...]
"""
import contextlib
import importlib
import io
import json
import os
import sys
import types

script = {}
calls = []


class FakeMessage(dict):
    @property
    def content(self):
        return self["content"]

    def model_dump(self):
        return dict(self)


class FakeResponse:
    def __init__(self, content, tool_calls=None):
        msg = FakeMessage(content=content, role="assistant", tool_calls=tool_calls, function_call=None)
        self.choices = [types.SimpleNamespace(message=msg)]
        self._hidden_params = {"response_cost": 0.0}


def completion(**kwargs):
    calls.append(json.loads(json.dumps(kwargs)))
    if kwargs.get("tools"):
        n = sum(1 for c in calls if c.get("tools"))
        if n == 1:
            return FakeResponse(None, [{"id": c["id"], "type": "function",
                                        "function": {"name": c["name"], "arguments": c["arguments"]}}
                                       for c in script["calls"]])
        return FakeResponse(script["agent_answer"])
    n = sum(1 for c in calls if not c.get("tools"))
    return FakeResponse(script["user_opening"] if n == 1 else "Thanks. ###STOP###")


litellm = types.ModuleType("litellm")
litellm.completion = completion
litellm.provider_list = ["openai"]
sys.modules["litellm"] = litellm


def main():
    req = json.load(sys.stdin)
    script.update(req)
    pkg = req["source"]
    sys.path.insert(0, os.environ["TAUBENCH_SRC" if pkg == "tau_bench" else "TAUTRAIT_SRC"])
    env_mod = importlib.import_module(f"{pkg}.envs.{req['env']}.env")
    agent_mod = importlib.import_module(f"{pkg}.agents.tool_calling_agent")
    cls = [getattr(env_mod, n) for n in dir(env_mod) if n.startswith("Mock") and n.endswith("DomainEnv")][0]
    out = []
    for i in req["tasks"]:
        with contextlib.redirect_stdout(io.StringIO()):
            env = cls(user_strategy="llm", user_model="user-model", user_provider="openai",
                      task_split=req["split"], task_index=i)
            agent = agent_mod.ToolCallingAgent(tools_info=env.tools_info, wiki=env.wiki, model="agent-model",
                                               provider="openai", temperature=0.0)
            del calls[:]  # the constructor's reset() has no instruction: not part of the episode
            agent.solve(env, task_index=i)
        out.append({"task": i, "user": [c for c in calls if not c.get("tools")],
                    "agent": [c for c in calls if c.get("tools")]})
    json.dump(out, sys.stdout)


main()
