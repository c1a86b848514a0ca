"""Reference runs for the banking_knowledge oracle tests (see oracle_test.go).

Runs upstream's own banking_knowledge environment, tools, evaluator and
LLMAgent from a tau2-bench checkout (TAU2_SRC=<checkout>/src, data from
TAU2_DATA_DIR), with inert stand-ins for the third-party modules this does
not use (loguru, litellm, ...). The knowledge-base documents are listed in
file-name order (upstream lists the directory, whose order depends on the
file system): pathlib's glob is sorted.

stdin: {"mode": "gold", "tasks": [task id...]}
  For each task: the gold actions played as the orchestrator plays them
  (get_response per call, requestor as the action says) on
  get_environment(retrieval_variant="no_knowledge", task=...,
  read_log_allowlist=<from the gold actions>) after set_state; then the
  final database (json.dumps of model_dump()) and the reward
  evaluate_simulation(ALL) gives the conversation (greeting, a request, the
  calls with their answers, a stop). NL assertions are not judged: their
  evaluator is replaced by one that accepts every assertion.
  stdout: [{"id", "calls": [[content, error]...], "db", "reward",
            "breakdown"}...]

stdin: {"mode": "request", "variants": [name...], "tasks": [task id...],
        "kwargs": {...}, "model": str, "seed": int, "user_reply": str}
  For each variant and task: the first request LLMAgent sends (system
  prompt with the variant's policy, the tools upstream builds, the
  greeting and the user's reply), as litellm's completion would get it.
  Every variant builds: the dense and reranked ones over an openai
  stand-in answering every embeddings call with fixed vectors (upstream
  embeds the documents when it builds the pipeline; nothing leaves the
  process, and its embeddings cache goes to a temporary working
  directory), the shell ones with SandboxManager's check for
  sandbox-runtime skipped (the manager still exports the documents; its
  tool's description and the prompt do not depend on the sandbox).
  stdout: [{"variant", "id", "request", "embedded": [[model, texts]...]}...]
  (embedded: the embeddings calls building that environment made; the
  cache in the working directory answers after the first)
"""

import contextlib
import hashlib
import importlib.abc
import importlib.machinery
import json
import os
import pathlib
import sys
import tempfile
import tomllib
import types

sys.path.insert(0, os.path.abspath(os.environ["TAU2_SRC"]))
if "TAU2_DATA_DIR" in os.environ:
    os.environ["TAU2_DATA_DIR"] = os.path.abspath(os.environ["TAU2_DATA_DIR"])

STUBBED = ["loguru", "litellm", "rich", "deepdiff", "addict", "tabulate", "tenacity",
           "fastapi", "uvicorn", "httpx", "psutil", "typer", "pandas", "numpy", "requests",
           "dotenv", "rank_bm25", "redis", "langfuse", "PIL", "pydub", "scipy",
           "soundfile", "sounddevice", "websockets", "elevenlabs", "deepgram", "google",
           "anthropic", "tiktoken", "aiohttp", "starlette", "jsonschema", "watchdog", "boto3"]
# Upstream's own numpy and rank_bm25 when they are importable (numpy on
# PYTHONPATH, rank_bm25 from RANK_BM25_SRC): the pipelines are then built
# for real, over the fixed vectors below.
if "RANK_BM25_SRC" in os.environ:
    sys.path.insert(0, os.path.abspath(os.environ["RANK_BM25_SRC"]))
for _name in ("numpy", "rank_bm25"):
    try:
        __import__(_name)
        STUBBED.remove(_name)
    except ImportError:
        pass

EMBEDDED = []  # (model, number of texts) per embeddings call


def vector(text):
    """The fixed vector of a text: 16 values from its SHA-256 (the rule of
    internal/bench/knowledge/testdata/oracle/dense_oracle.py)."""
    d = hashlib.sha256(text.encode("utf-8")).digest()
    return [(b - 128) / 32 for b in d[:16]]


class _Embeddings:
    def create(self, input, model, **kwargs):
        EMBEDDED.append((model, len(input)))
        return types.SimpleNamespace(data=[types.SimpleNamespace(embedding=vector(t)) for t in input])


class _OpenAI:
    """openai.OpenAI as upstream's embedders use it: every embeddings call
    answered with the fixed vectors, nothing sent anywhere."""

    def __init__(self, *a, **k):
        self.embeddings = _Embeddings()


class _OpenAIError(Exception):
    pass


_openai = types.ModuleType("openai")
_openai.OpenAI = _OpenAI
_openai.APIConnectionError = _openai.APIError = _openai.RateLimitError = _OpenAIError
sys.modules["openai"] = _openai


class _Inert:
    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        if len(a) == 1 and callable(a[0]) and not k:
            return a[0]
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
        if name[:1].isupper():
            return type(name, (), {"__init__": lambda self, *a, **k: None,
                                   "__getattr__": lambda self, n: _Inert()})
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
        if module.__name__ == "addict":
            module.Dict = AddictDict


class AddictDict(dict):
    """addict.Dict as update_pydantic_model_with_dict uses it: nested dicts
    become AddictDicts, update() merges them recursively, to_dict() undoes it."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        src = dict(*args, **kwargs)
        for k, v in src.items():
            self[k] = self._hook(v)

    @classmethod
    def _hook(cls, v):
        if isinstance(v, dict) and not isinstance(v, AddictDict):
            return cls(v)
        if isinstance(v, (list, tuple)):
            return type(v)(cls._hook(x) for x in v)
        return v

    def update(self, *args, **kwargs):
        other = {}
        if args:
            other.update(args[0])
        other.update(kwargs)
        for k, v in other.items():
            if k not in self or not isinstance(self[k], dict) or not isinstance(v, dict):
                self[k] = self._hook(v)
            else:
                self[k].update(v)

    def to_dict(self):
        def undo(v):
            if isinstance(v, AddictDict):
                return {k: undo(x) for k, x in v.items()}
            if isinstance(v, (list, tuple)):
                return type(v)(undo(x) for x in v)
            return v
        return undo(self)


sys.meta_path.insert(0, _StubFinder())
toml = types.ModuleType("toml")
toml.load = lambda fp, **k: tomllib.loads(fp.read())
toml.loads = lambda s, **k: tomllib.loads(s)
sys.modules["toml"] = toml

_glob = pathlib.Path.glob
pathlib.Path.glob = lambda self, pattern, *a, **k: iter(sorted(_glob(self, pattern, *a, **k)))

import tau2  # noqa: E402,F401
from tau2.knowledge import sandbox_manager  # noqa: E402

sandbox_manager._DEPS_VERIFIED = True  # no sandbox-runtime here: see the request mode above
from tau2.domains.banking_knowledge import environment as bk_env  # noqa: E402


class _Registry:
    def get_env_constructor(self, domain):
        return bk_env.get_environment

    def get_tasks_loader(self, domain):
        return bk_env.get_tasks


registry_mod = types.ModuleType("tau2.registry")
registry_mod.registry = _Registry()
sys.modules["tau2.registry"] = registry_mod

from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage  # noqa: E402
from tau2.data_model.simulation import RewardInfo, SimulationRun, TerminationReason  # noqa: E402
from tau2.data_model.tasks import RewardType  # noqa: E402
from tau2.evaluator import evaluator as ev  # noqa: E402
from tau2.evaluator.evaluator_nl_assertions import NLAssertionsEvaluator  # noqa: E402
from tau2.runner.build import _derive_read_log_allowlist  # noqa: E402


def _accept_nl(cls, task, full_trajectory, **kw):
    n = len(task.evaluation_criteria.nl_assertions or [])
    return RewardInfo(reward=1.0, nl_assertions=[], reward_breakdown={RewardType.NL_ASSERTION: 1.0},
                      info={"note": f"{n} assertions accepted unjudged"})


NLAssertionsEvaluator.calculate_reward = classmethod(_accept_nl)


def gold(task):
    allow = _derive_read_log_allowlist(task)
    env = bk_env.get_environment(retrieval_variant="no_knowledge", task=task, read_log_allowlist=allow)
    st = task.initial_state
    env.set_state(initialization_data=st.initialization_data if st else None,
                  initialization_actions=st.initialization_actions if st else None,
                  message_history=[])
    msgs = [AssistantMessage(role="assistant", content="Hi! How can I help you today?"),
            UserMessage(role="user", content="I need help with my request.")]
    calls = []
    for i, a in enumerate(task.evaluation_criteria.actions or []):
        tc = ToolCall(id=f"gold_{i}", name=a.name, arguments=a.arguments, requestor=a.requestor)
        cls = UserMessage if a.requestor == "user" else AssistantMessage
        msgs.append(cls(role=a.requestor, tool_calls=[tc]))
        resp = env.get_response(tc)
        msgs.append(resp)
        calls.append([resp.content, resp.error])
    msgs.append(UserMessage(role="user", content="Thank you. ###STOP###"))
    db = json.dumps(env.tools.db.model_dump())
    sim = SimulationRun(id="gold", task_id=task.id, start_time="", end_time="", duration=0.0,
                        termination_reason=TerminationReason.USER_STOP, messages=msgs)
    info = ev.evaluate_simulation(sim, task, ev.EvaluationType.ALL, solo_mode=False, domain="banking_knowledge",
                                  env_kwargs={"retrieval_variant": "no_knowledge", "task": task,
                                              "read_log_allowlist": allow})
    return {"id": task.id, "calls": calls, "db": db, "reward": info.reward,
            "breakdown": {k.value: v for k, v in (info.reward_breakdown or {}).items()}}


def first_request(variant, task, req):
    import copy

    import tau2.utils.llm_utils as llm_utils
    from tau2.agent.llm_agent import LLMAgent
    from tau2.orchestrator.orchestrator import DEFAULT_FIRST_AGENT_MESSAGE

    calls = []

    class Choice:
        finish_reason = "stop"
        message = types.SimpleNamespace(role="assistant", content="ok", tool_calls=None)

    class Response(dict):
        choices = [Choice()]
        model = "stub"

        def to_dict(self):
            return {}

    def completion(**kwargs):
        calls.append(json.loads(json.dumps({k: v for k, v in kwargs.items() if v is not None and k != "num_retries"})))
        return Response()

    llm_utils.completion = completion
    llm_utils.completion_cost = lambda **k: 0.0
    llm_utils.get_response_cost = lambda r: 0.0
    llm_utils.get_response_usage = lambda r: None
    with contextlib.redirect_stdout(sys.stderr):  # the embeddings cache prints its progress
        env = bk_env.get_environment(retrieval_variant=variant, retrieval_kwargs=req.get("kwargs") or None, task=task,
                                     read_log_allowlist=_derive_read_log_allowlist(task))
    agent = LLMAgent(tools=env.get_tools(), domain_policy=env.get_policy(), llm=req["model"],
                     llm_args=req.get("llm_args") or {})
    agent.set_seed(req["seed"])
    greeting = copy.deepcopy(DEFAULT_FIRST_AGENT_MESSAGE)
    state = agent.get_init_state(message_history=[greeting])
    agent.generate_next_message(UserMessage(role="user", content=req["user_reply"]), state)
    return calls[-1]


def main():
    req = json.load(sys.stdin)
    os.chdir(tempfile.mkdtemp())  # upstream's embeddings cache is ./data/.embeddings_cache
    tasks = {t.id: t for t in bk_env.get_tasks()}
    out = []
    if req["mode"] == "gold":
        for tid in req["tasks"]:
            out.append(gold(tasks[tid]))
    else:
        for v in req["variants"]:
            for tid in req["tasks"]:
                EMBEDDED.clear()
                r = first_request(v, tasks[tid], req)
                out.append({"variant": v, "id": tid, "request": r, "embedded": list(EMBEDDED)})
    json.dump(out, sys.stdout)


main()
