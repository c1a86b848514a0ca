"""Reference requests for the review oracle test (see oracle_test.go).

Runs upstream's own reviewer (tau2.evaluator.reviewer.review_simulation over a
tau2-bench source tree, TAU2_SRC=<checkout>/src) with litellm's completion
replaced by a recorder, on the simulations of recorded τ²-bench results
files, and prints the request bodies each review would send. Third-party
modules upstream imports but the reviewer does not need are permissive
stand-ins (tau2stubs, shared with the other oracles).

stdin:  {"files": [path...], "mode": "full" | "user", "reply": str, "auth_reply": str}
stdout: [[request...] per simulation, files in order] ; a request is the body
        litellm gets (None values and num_retries left out), or {"error": str}.

With "parse": [reply...] instead, each reply is read by upstream's parsers
(_parse_review_response, _parse_user_only_review_response and
_parse_classification_response) into its record types, as the reviewers do:
stdout [{"review": dump | null, "user_only_review": dump | null,
"auth": dump}] (null where upstream's reviewer would record a parse failure).
"""

import json
import os
import sys
import types

# The stand-ins for third-party modules: internal/core/oracletest/testdata.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 4, "core", "oracletest", "testdata"))
import tau2stubs  # noqa: E402

tau2stubs.install()
req = json.load(sys.stdin)
sys.path.insert(0, os.environ["TAU2_SRC"])

import tau2.utils.llm_utils as llm_utils  # noqa: E402
from tau2.data_model.simulation import Results  # noqa: E402
from tau2.evaluator.reviewer import ReviewMode, review_simulation  # noqa: E402


class Response:
    def __init__(self, content):
        self.choices = [types.SimpleNamespace(
            finish_reason="stop",
            message=types.SimpleNamespace(role="assistant", content=content, tool_calls=None))]

    def to_dict(self):
        return {}


calls = []


def completion(**kwargs):
    body = {k: v for k, v in kwargs.items() if v is not None and k != "num_retries"}
    calls.append(json.loads(json.dumps(body)))
    first = len(calls) == 1
    return Response(req["reply"] if first else req["auth_reply"])


llm_utils.completion = completion
llm_utils.get_response_cost = lambda r: None
llm_utils.get_response_usage = lambda r: None
llm_utils._write_llm_log = lambda *a, **k: None

if "parse" in req:
    import tau2.evaluator.review_llm_judge as full
    import tau2.evaluator.review_llm_judge_user_only as uo
    import tau2.evaluator.auth_classifier as auth
    from tau2.data_model.simulation import AuthenticationClassification, Review, UserOnlyReview

    def dump(make):
        try:
            return make().model_dump(mode="json", exclude={"cost"})
        except Exception:  # noqa: BLE001
            return None

    def review_of(reply):
        summary, agent, user, crit, has, errors = full._parse_review_response(reply)
        return Review(summary=summary, agent_error=agent, user_error=user, critical_user_error=crit,
                      has_errors=has, errors=errors)

    def user_of(reply):
        summary, user, crit, has, errors = uo._parse_user_only_review_response(reply)
        return UserOnlyReview(summary=summary, user_error=user, critical_user_error=crit,
                              has_errors=has, errors=errors)

    def auth_of(reply):
        status, reasoning = auth._parse_classification_response(reply)
        return AuthenticationClassification(status=status, reasoning=reasoning)

    json.dump([{"review": dump(lambda: review_of(r)), "user_only_review": dump(lambda: user_of(r)),
                "auth": dump(lambda: auth_of(r))} for r in req["parse"]], sys.stdout)
    sys.exit(0)

mode = ReviewMode.FULL if req["mode"] == "full" else ReviewMode.USER
out = []
for path in req["files"]:
    results = Results.load(path)
    tasks = {t.id: t for t in results.tasks}
    for sim in results.simulations:
        calls.clear()
        try:
            review_simulation(sim, tasks[sim.task_id], mode, results.info.user_info,
                              policy=results.info.environment_info.policy,
                              review_model=req["model"])
            out.append(list(calls))
        except Exception as e:  # noqa: BLE001
            out.append(list(calls) + [{"error": repr(e)}])
json.dump(out, sys.stdout)
