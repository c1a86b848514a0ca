"""Oracle for ledgerbench's solo agent prompt: runs upstream's own
LLMSoloAgent code (src/tau2/agent/llm_agent.py of a tau2-bench checkout,
TAU2_SRC) to build the solo system prompt and the stop tool.

Upstream's package imports the whole framework (and litellm), and its solo
run crashes before any request (issue #486), so this script loads
llm_agent.py alone with the imports it does not need for the prompt
replaced by inert stand-ins; the prompt constants, the system_prompt
property and add_stop_tool are upstream's code, run unchanged.

stdin: {"policy": str, "tickets": [str, ...]}
stdout: {"system_prompts": [str, ...], "stop_tool": str, "stop_doc": str,
         "stop_token": str, "tools": [str, ...]}
"""

import json
import os
import sys
import types
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict


def stub(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


class _Logger:
    def __getattr__(self, _):
        return lambda *a, **k: None


T = TypeVar("T")


class HalfDuplexAgent(Generic[T]):
    pass


class LLMConfigMixin:
    def __init__(self, tools, domain_policy, llm=None, llm_args=None):
        self.tools = tools
        self.domain_policy = domain_policy


captured = []


def as_tool(func, **kwargs):
    captured.append(func)
    return types.SimpleNamespace(name=func.__name__)


class _Msg(BaseModel):
    model_config = ConfigDict(extra="allow")


for pkg in ["tau2", "tau2.agent", "tau2.agent.base", "tau2.data_model", "tau2.environment", "tau2.utils"]:
    stub(pkg, __path__=[])
stub("loguru", logger=_Logger())
stub("tau2.agent.base.llm_config", LLMConfigMixin=LLMConfigMixin)
stub("tau2.agent.base_agent", HalfDuplexAgent=HalfDuplexAgent, ValidAgentInputMessage=object,
     is_valid_agent_history_message=lambda m: True)
stub("tau2.data_model.message", APICompatibleMessage=Any, AssistantMessage=_Msg, Message=Any,
     MultiToolMessage=_Msg, SystemMessage=_Msg, UserMessage=_Msg)
stub("tau2.data_model.tasks", Action=object, Task=object)
stub("tau2.environment.tool", Tool=object, as_tool=as_tool)
stub("tau2.utils.llm_utils", generate=None)

path = os.path.join(os.environ["TAU2_SRC"], "tau2", "agent", "llm_agent.py")
mod = types.ModuleType("tau2.agent.llm_agent")
mod.__file__ = path
exec(compile(open(path, encoding="utf-8").read(), path, "exec"), mod.__dict__)

req = json.load(sys.stdin)
prompts = []
for ticket in req["tickets"]:
    task = types.SimpleNamespace(ticket=ticket, initial_state=None,
                                 evaluation_criteria=types.SimpleNamespace(actions=[object()]))
    agent = mod.LLMSoloAgent(tools=[], domain_policy=req["policy"], task=task, llm="oracle")
    prompts.append(agent.system_prompt)
done = captured[-1]
json.dump({"system_prompts": prompts, "stop_tool": done.__name__, "stop_doc": done.__doc__,
           "stop_token": done(), "tools": [t.name for t in agent.tools]}, sys.stdout)
