"""Reference requests for the prompt oracle test (see prompt_oracle_test.go).

Runs upstream's own LLMAgent, UserSimulator, generate() and
to_litellm_messages (a tau2-bench source tree, TAU2_SRC=<checkout>/src) with
litellm's completion replaced by a recorder, and prints the request each call
would send. Third-party modules upstream imports but this harness does not
need (loguru, litellm, httpx, docstring_parser, deepdiff, ...) are replaced by
permissive stand-ins. Tools are upstream's generated schemas
(derived/tool_schemas.json, made by upstream's Tool.openai_schema), so the
comparison of `tools` measures the schema port separately.

stdin:  {"data_dir": <tau2-bench data dir>, "schemas": <derived/tool_schemas.json path>,
         "model": str, "llm_args": {...},
         "jobs": [{"domain", "task": <task JSON>, "seed": int, "user_reply": str,
                   "trajectory_file": path, "index": int}]}
        A job with a task gives the first user-simulator request and the
        first agent request (the user's reply being user_reply). A job with
        a trajectory (simulation `index` of a recorded results file, its task
        taken from the file) gives, for every agent and user message of it
        after the greeting, the request upstream would send to produce it
        from the recorded prefix.
        A job with "judge": true gives the NL-assertion judge's request for
        the whole recorded trajectory (stdout {"judge": [request]}).
stdout: [{"user": [request...], "agent": [request...]}] (one per job; each
        request is the body litellm gets: model, messages, tools, tool_choice
        and the sampling arguments; None values and num_retries left out, as
        litellm does not send them).
"""

import copy
import json
import os
import sys
import types

# The stand-ins for third-party modules: internal/core/oracletest/testdata.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 4, "core", "oracletest", "testdata"))
import tau2stubs  # noqa: E402

tau2stubs.install()

req = json.load(sys.stdin)
os.environ["TAU2_DATA_DIR"] = req["data_dir"]
sys.path.insert(0, os.environ["TAU2_SRC"])

from tau2.agent.llm_agent import LLMAgent  # noqa: E402
from tau2.data_model.message import (  # noqa: E402
    AssistantMessage,
    ToolMessage,
    UserMessage,
)
from tau2.data_model.tasks import Task  # noqa: E402
from tau2.orchestrator.orchestrator import DEFAULT_FIRST_AGENT_MESSAGE  # noqa: E402
from tau2.user.user_simulator import UserSimulator  # noqa: E402
from tau2.user.user_simulator_base import is_valid_user_history_message  # noqa: E402
from tau2.agent.base_agent import is_valid_agent_history_message  # noqa: E402
import tau2.utils.llm_utils as llm_utils  # noqa: E402


class Recorded(Exception):
    pass


class Choice:
    def __init__(self, content):
        self.finish_reason = "stop"
        self.message = types.SimpleNamespace(role="assistant", content=content, tool_calls=None)


class Response(dict):
    def __init__(self, content):
        super().__init__()
        self.choices = [Choice(content)]
        self.model = "stub"

    def to_dict(self):
        return {}


calls = []
reply = {"content": "ok"}


def completion(**kwargs):
    body = {k: v for k, v in kwargs.items() if v is not None and k != "num_retries"}
    calls.append(json.loads(json.dumps(body)))
    return Response(reply["content"])


llm_utils.completion = completion
llm_utils.completion_cost = lambda **k: 0.0
llm_utils.get_response_cost = lambda r: 0.0
llm_utils.get_response_usage = lambda r: None

schemas = json.load(open(req["schemas"]))


class SchemaTool:
    def __init__(self, s):
        self.name = s["name"]
        self.openai_schema = s["schema"]


def load_policy(domain):
    base = os.path.join(req["data_dir"], "tau2", "domains", domain)
    if domain == "telecom":
        # upstream's get_environment (src/tau2/domains/telecom/environment.py)
        from tau2.domains.telecom.environment import get_environment
        return get_environment().policy
    with open(os.path.join(base, "policy.md")) as f:
        return f.read()


policies = {}


def tools_of(domain, side, include=None):
    ts = [SchemaTool(s) for s in schemas[domain][side]]
    if include is not None:
        ts = [t for t in ts if t.name in include]
    return ts


def message_of(m):
    role = m["role"]
    fields = {k: m.get(k) for k in ("content", "tool_calls") if m.get(k) is not None}
    if role == "assistant":
        return AssistantMessage(role="assistant", **fields)
    if role == "user":
        return UserMessage(role="user", **fields)
    if role == "system":
        from tau2.data_model.message import SystemMessage
        return SystemMessage(role="system", content=m.get("content"))
    if role == "tool":
        return ToolMessage(id=m["id"], role="tool", content=m.get("content"),
                           requestor=m.get("requestor", "assistant"), error=m.get("error", False))
    raise ValueError(role)


recordings = {}


def recorded(path, index):
    if path not in recordings:
        with open(path) as f:
            recordings[path] = json.load(f)
    rec = recordings[path]
    sim = rec["simulations"][index]
    task = next(t for t in rec["tasks"] if t["id"] == sim["task_id"])
    return task, sim["messages"]


def judge_request(task, history):
    from tau2.evaluator.evaluator_nl_assertions import NLAssertionsEvaluator
    import tau2.evaluator.evaluator_nl_assertions as nl
    nl.generate = llm_utils.generate
    reply["content"] = '{"results": []}'
    calls.clear()
    NLAssertionsEvaluator.evaluate_nl_assertions([message_of(m) for m in history],
                                                 task.evaluation_criteria.nl_assertions)
    return calls[-1]


out = []
for job in req["jobs"]:
    if job.get("judge"):
        task_json, history = recorded(job["trajectory_file"], job["index"])
        out.append({"judge": [judge_request(Task.model_validate(task_json), history)]})
        continue
    if job.get("trajectory_file"):
        job["task"], job["history"] = recorded(job["trajectory_file"], job["index"])
    domain = job["domain"]
    if domain not in policies:
        policies[domain] = load_policy(domain)
    task = Task.model_validate(job["task"])
    user_tools = None
    if schemas[domain].get("user"):
        user_tools = tools_of(domain, "user", task.user_tools) or None
    user = UserSimulator(llm=req["model"], instructions=str(task.user_scenario), tools=user_tools,
                         llm_args=req["llm_args"])
    agent = LLMAgent(tools=tools_of(domain, "assistant"), domain_policy=policies[domain], llm=req["model"],
                     llm_args=req["llm_args"])
    user.set_seed(job["seed"])
    agent.set_seed(job["seed"])
    res = {"user": [], "agent": []}
    if job.get("history") is None:
        greeting = copy.deepcopy(DEFAULT_FIRST_AGENT_MESSAGE)
        ustate = user.get_init_state()
        reply["content"] = job["user_reply"]
        calls.clear()
        first, ustate = user.generate_next_message(greeting, ustate)
        res["user"].append(calls[-1])
        astate = agent.get_init_state(message_history=[greeting])
        calls.clear()
        agent.generate_next_message(first, astate)
        res["agent"].append(calls[-1])
    else:
        hist = [message_of(m) for m in job["history"]]
        # For message i produced by the agent or the user, the state that
        # produced it is the prefix before it, as the orchestrator keeps it.
        for i, m in enumerate(hist):
            if i == 0 or isinstance(m, ToolMessage):
                continue
            prefix = hist[:i]
            calls.clear()
            if isinstance(m, AssistantMessage):
                st = agent.get_init_state(message_history=[x for x in prefix[:-1] if is_valid_agent_history_message(x)])
                try:
                    agent.generate_next_message(prefix[-1], st)
                    res["agent"].append(calls[-1])
                except Exception as e:  # noqa: BLE001
                    res["agent"].append({"error": str(e)})
            else:
                st = user.get_init_state(message_history=[x for x in prefix[:-1] if is_valid_user_history_message(x)])
                try:
                    user.generate_next_message(prefix[-1], st)
                    res["user"].append(calls[-1])
                except Exception as e:  # noqa: BLE001
                    res["user"].append({"error": str(e)})
    out.append(res)

json.dump(out, sys.stdout)
