package banking

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyops"
)

// Upstream's KnowledgeTools (the agent's banking tools, src/tau2/domains/
// banking_knowledge/tools.py) and KnowledgeUserTools (the customer's).
// Tool outputs and error texts are upstream's string literals, read from
// the pulled source at load (texts.go); arguments are taken as json.loads
// gives them (no validation, as upstream's use_tool).

// Toolkit class names, used in Python's argument error texts.
const (
	agentClass = "KnowledgeTools"
	userClass  = "KnowledgeUserTools"
)

// The fixed clock of every scenario (upstream's utils.get_today_str and
// get_now).
const (
	today  = "11/14/2025"
	nowISO = "2025-11-14T03:40:00"
)

// deterministicID is _deterministic_id: the first length/2 bytes of the
// seed's SHA-256, in hex.
func deterministicID(seed string, length int) string {
	sum := sha256.Sum256([]byte(seed))
	return hex.EncodeToString(sum[:length/2])
}

// --- argument types ---

type transferArgs struct {
	Summary tool.StrValue `json:"summary"`
	Reason  tool.StrValue `json:"reason,omitempty"`
}

type noArgs struct{}

type userIDArgs struct {
	UserID tool.StrValue `json:"user_id"`
}

type customerNameArgs struct {
	CustomerName tool.StrValue `json:"customer_name"`
}

type emailArgs struct {
	Email tool.StrValue `json:"email"`
}

type changeEmailArgs struct {
	UserID   tool.StrValue `json:"user_id"`
	NewEmail tool.StrValue `json:"new_email"`
}

type logVerificationArgs struct {
	Name         tool.StrValue `json:"name"`
	UserID       tool.StrValue `json:"user_id"`
	Address      tool.StrValue `json:"address"`
	Email        tool.StrValue `json:"email"`
	PhoneNumber  tool.StrValue `json:"phone_number"`
	DateOfBirth  tool.StrValue `json:"date_of_birth"`
	TimeVerified tool.StrValue `json:"time_verified"`
}

type giveToolArgs struct {
	DiscoverableToolName tool.StrValue `json:"discoverable_tool_name"`
	Arguments            tool.StrValue `json:"arguments,omitempty"`
}

type unlockArgs struct {
	AgentToolName tool.StrValue `json:"agent_tool_name"`
}

type callAgentToolArgs struct {
	AgentToolName tool.StrValue `json:"agent_tool_name"`
	Arguments     tool.StrValue `json:"arguments,omitempty"`
}

// The agent's toolkit in upstream's order (ToolKitType collects a class's
// tools in definition order).
func agentTools() *tool.Set[*Env] { return tool.NewSet(agentClass, agentToolList()...) }

func agentToolList() []tool.Tool[*Env] {
	return []tool.Tool[*Env]{
		tool.New("transfer_to_human_agents", tool.Generic, "", transferToHumanAgents),
		tool.New("get_current_time", tool.Read, "", getCurrentTime),
		tool.New("get_user_information_by_id", tool.Read, "", getUserByID),
		tool.New("get_user_information_by_name", tool.Read, "", getUserByName),
		tool.New("get_user_information_by_email", tool.Read, "", getUserByEmail),
		tool.New("change_user_email", tool.Write, "", changeUserEmail),
		tool.New("get_referrals_by_user", tool.Read, "", getReferralsByUser),
		tool.New("get_credit_card_transactions_by_user", tool.Read, "", getCreditCardTransactionsByUser),
		tool.New("get_credit_card_accounts_by_user", tool.Read, "", getCreditCardAccountsByUser),
		tool.New("log_verification", tool.Write, "", logVerification),
		tool.New("give_discoverable_user_tool", tool.Generic, "", giveDiscoverableUserTool),
		tool.New("unlock_discoverable_agent_tool", tool.Generic, "", unlockDiscoverableAgentTool),
		tool.New("call_discoverable_agent_tool", tool.Write, "", callDiscoverableAgentTool),
		tool.New("list_discoverable_agent_tools", tool.Read, "", listDiscoverableAgentTools),
	}
}

// mutatingGeneric are the agent's GENERIC tools declared with
// mutates_state=True (replayed by the evaluator although not writes).
var mutatingGeneric = []string{"give_discoverable_user_tool", "unlock_discoverable_agent_tool"}

func transferToHumanAgents(_ context.Context, e *Env, a transferArgs) (any, error) {
	tx := e.d.src.texts["KnowledgeTools.transfer_to_human_agents"]
	reason := a.Reason.Or("other")
	valid := e.d.src.transferReasons
	ok := false
	for _, r := range valid {
		if eq(reason, r) {
			ok = true
			break
		}
	}
	if !ok {
		return tx.f(2, str(reason), strings.Join(valid, ", ")), nil
	}
	return tx.f(3, str(reason)), nil
}

func getCurrentTime(_ context.Context, e *Env, _ noArgs) (any, error) {
	return e.d.src.texts[agentClass+".get_current_time"].s(1), nil
}

func getUserByID(_ context.Context, e *Env, a userIDArgs) (any, error) {
	return e.queryField("users", "user_id", a.UserID.V), nil
}

func getUserByName(_ context.Context, e *Env, a customerNameArgs) (any, error) {
	return e.queryField("users", "name", a.CustomerName.V), nil
}

func getUserByEmail(_ context.Context, e *Env, a emailArgs) (any, error) {
	return e.queryField("users", "email", a.Email.V), nil
}

func changeUserEmail(_ context.Context, e *Env, a changeEmailArgs) (any, error) {
	tx := e.d.src.texts["KnowledgeTools.change_user_email"]
	rec, ok, err := e.mutRecord(tUsers, a.UserID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return tx.f(3, str(a.UserID.V)), nil
	}
	rec.Set("email", a.NewEmail.V)
	return tx.f(4, str(a.UserID.V), str(a.NewEmail.V)), nil
}

func getReferralsByUser(_ context.Context, e *Env, a userIDArgs) (any, error) {
	return e.queryField("referrals", "referrer_id", a.UserID.V), nil
}

func getCreditCardTransactionsByUser(_ context.Context, e *Env, a userIDArgs) (any, error) {
	return e.queryField("credit_card_transaction_history", "user_id", a.UserID.V), nil
}

func getCreditCardAccountsByUser(_ context.Context, e *Env, a userIDArgs) (any, error) {
	return e.queryField("credit_card_accounts", "user_id", a.UserID.V), nil
}

// verificationID is generate_verification_id.
func verificationID(userID, timeVerified any) (string, error) {
	t, ok := timeVerified.(string)
	if !ok {
		return "", pyops.AttributeError(timeVerified, "replace")
	}
	t = strings.NewReplacer(" ", "_", ":", "", "-", "").Replace(t)
	return str(userID) + "_" + t, nil
}

func logVerification(_ context.Context, e *Env, a logVerificationArgs) (any, error) {
	tx := e.d.src.texts["KnowledgeTools.log_verification"]
	id, err := verificationID(a.UserID.V, a.TimeVerified.V)
	if err != nil {
		return nil, err
	}
	rec := &pyjson.Dict{}
	rec.Set("name", a.Name.V)
	rec.Set("user_id", a.UserID.V)
	rec.Set("address", a.Address.V)
	rec.Set("email", a.Email.V)
	rec.Set("phone_number", a.PhoneNumber.V)
	rec.Set("date_of_birth", a.DateOfBirth.V)
	rec.Set("time_verified", a.TimeVerified.V)
	if !e.add(tVerificationHistory, id, rec) {
		return tx.s(9), nil
	}
	return tx.f(10,
		str(a.Name.V), str(a.UserID.V), str(a.TimeVerified.V)), nil
}

// loadsArgs is json.loads(arguments[, parse_int=float]) of a tool's
// "arguments" parameter: a str, or the TypeError json.loads raises for
// another type.
func loadsArgs(v any, intAsFloat bool) (any, error, error) {
	s, ok := v.(string)
	if !ok {
		return nil, nil, typeErr("the JSON object must be str, bytes or bytearray, not %s", typeName(v))
	}
	out, err := pyjson.Loads(s, pyjson.LoadsOptions{IntAsFloat: intAsFloat})
	return out, err, nil
}

func giveDiscoverableUserTool(_ context.Context, e *Env, a giveToolArgs) (any, error) {
	tx := e.d.src.texts["KnowledgeTools.give_discoverable_user_tool"]
	name := a.DiscoverableToolName.V
	if !isStr(name) {
		return nil, typeErr("attribute name must be string, not '%s'", typeName(name))
	}
	spec, ok, _ := e.d.userDisc.lookup(name)
	if !ok {
		return tx.f(2, str(name)), nil
	}
	args, decErr, err := loadsArgs(a.Arguments.Or("{}"), false)
	if err != nil {
		return nil, err
	}
	if decErr != nil {
		return tx.f(4, decErr.Error()), nil
	}
	keys, err := pyjson.Iterate(args)
	if err != nil {
		return nil, typeErr("%s", err.Error())
	}
	for _, k := range keys {
		if !spec.hasParam(k) && !eq(k, "self") {
			return tx.f(6, str(k)), nil
		}
	}
	info := spec.info
	e.userGiven = append(e.userGiven, spec.name)
	rec := &pyjson.Dict{}
	rec.Set("tool_name", spec.name)
	rec.Set("status", "GIVEN")
	e.add(tUserDiscoverableTools, deterministicID("user_discoverable_tool:"+spec.name, 16), rec)
	argsStr := tx.s(14)
	if truthy(args) {
		argsStr = jsonIndent(args)
	}
	return tx.f(15, spec.name, info.Description, argsStr, spec.name), nil
}

func unlockDiscoverableAgentTool(_ context.Context, e *Env, a unlockArgs) (any, error) {
	tx := e.d.src.texts["KnowledgeTools.unlock_discoverable_agent_tool"]
	name := a.AgentToolName.V
	spec, ok, err := e.d.agentDisc.lookup(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return tx.f(1, str(name)), nil
	}
	if !slices.Contains(e.unlocked, spec.name) {
		e.unlocked = append(e.unlocked, spec.name)
	}
	return tx.f(4, spec.name, spec.info.Description, spec.info.forAgent(e.d.src.texts["format_discoverable_tool_for_agent"]), spec.name), nil
}

func callDiscoverableAgentTool(ctx context.Context, e *Env, a callAgentToolArgs) (any, error) {
	tx := e.d.src.texts["KnowledgeTools.call_discoverable_agent_tool"]
	name := a.AgentToolName.V
	spec, ok, err := e.d.agentDisc.lookup(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return tx.f(2, str(name)), nil
	}
	if !slices.Contains(e.unlocked, spec.name) {
		return tx.f(3, spec.name), nil
	}
	args, decErr, err := loadsArgs(a.Arguments.Or("{}"), true)
	if err != nil {
		return nil, err
	}
	if decErr != nil {
		return tx.f(4, decErr.Error()), nil
	}
	res, err := spec.call(ctx, e, agentClass, args)
	if err != nil {
		if isTypeError(err) {
			return tx.f(5, err.Error()), nil
		}
		return nil, err
	}
	if spec.mutates || e.allowlist[spec.name] {
		rec := &pyjson.Dict{}
		rec.Set("tool_name", spec.name)
		rec.Set("status", "CALLED")
		e.add(tAgentDiscoverableTools, deterministicID("agent_discoverable_tool:"+spec.name, 16), rec)
	}
	return res, nil
}

func listDiscoverableAgentTools(_ context.Context, e *Env, _ noArgs) (any, error) {
	tx := e.d.src.texts["KnowledgeTools.list_discoverable_agent_tools"]
	res := e.queryTool("agent_discoverable_tools", "{}")
	if strings.Contains(res, tx.s(3)) {
		return tx.s(4), nil
	}
	return tx.f(5, res), nil
}
