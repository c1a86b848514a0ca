package banking

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// LedgerAgent's path map for banking_knowledge. The reads return
// query_database_tool's listings ("Found N record(s) in '<table>':" and one
// block per record); each record goes to <table>.<record id> with its
// fields as the listing shows them (str() of each value):
//
//	read (tool, or discoverable tool through call_discoverable_agent_tool)  paths
//	----------------------------------------------------------------------  --------------------------------
//	get_user_information_by_id / _by_name / _by_email                       users.<user id>
//	get_credit_card_accounts_by_user                                        credit_card_accounts.<id>
//	get_credit_card_transactions_by_user                                    credit_card_transaction_history.<id>
//	get_referrals_by_user                                                   referrals.<id>
//	get_all_user_accounts_by_user_id_3847                                   accounts.<id>, credit_card_accounts.<id>
//	get_bank_account_transactions_9173                                      bank_account_transaction_history.<id>
//	get_user_dispute_history_7291, get_debit_dispute_status_7483,           transaction_disputes.<id>,
//	get_pending_replacement_orders_5765, get_closure_reason_history_8293,   debit_card_disputes.<id>, …
//	get_credit_limit_increase_history_4829                                  (the listing's table)
//	get_debit_cards_by_account_id_7823 (a JSON list)                        debit_cards.<card id>
//	unlock_discoverable_agent_tool (an observation: "Tool unlocked: …")     unlocked.<tool name> = true
//
// A call_discoverable_agent_tool of a discoverable read, and
// unlock_discoverable_agent_tool, are observations (ledgeragent.Observer):
// their returns are absorbed, and they are not logged as writes.

// Paths.
const (
	pathUsers    = "users."
	pathCC       = "credit_card_accounts."
	pathAccounts = "accounts."
	pathCards    = "debit_cards."
	pathUnlocked = "unlocked."
)

var (
	foundRe  = regexp.MustCompile(`^Found \d+ record\(s\) in '([a-z_]+)':$`)
	recordRe = regexp.MustCompile(`^\d+\. Record ID: (.*)$`)
)

// parseListings reads every query_database_tool listing in a text: table,
// record id and fields (in order, values as shown).
func parseListings(text string) []ledger.Entry {
	var out []ledger.Entry
	table := ""
	var cur *pyjson.Dict
	var last string
	for _, line := range strings.Split(text, "\n") {
		if m := foundRe.FindStringSubmatch(line); m != nil {
			table, cur = m[1], nil
			continue
		}
		if table == "" {
			continue
		}
		if m := recordRe.FindStringSubmatch(line); m != nil {
			cur = &pyjson.Dict{}
			out = append(out, ledger.Entry{Path: table + "." + m[1], Value: cur})
			continue
		}
		if cur == nil {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "   "); ok {
			if k, v, ok := strings.Cut(rest, ": "); ok && k != "" && !strings.Contains(k, " ") {
				cur.Set(k, v)
				last = k
				continue
			}
		}
		if line == "" {
			cur = nil
			continue
		}
		if last != "" { // a value's later lines
			v, _ := cur.Get(last)
			cur.Set(last, v.(string)+"\n"+line)
		}
	}
	return out
}

// Route maps a successful read (or observation) onto ledger entries.
func (d *Domain) Route(tool string, args json.RawMessage, output string) []ledger.Entry {
	switch tool {
	case "unlock_discoverable_agent_tool":
		name, ok := argString(args, "agent_tool_name")
		if !ok || !strings.HasPrefix(output, "Tool unlocked: ") {
			return nil
		}
		return []ledger.Entry{{Path: pathUnlocked + name, Value: true}}
	case "call_discoverable_agent_tool":
		c := d.decodeCall(args)
		if c.Tool == nil {
			return nil
		}
		if c.Tool.name == "get_debit_cards_by_account_id_7823" {
			return debitCards(output)
		}
		return parseListings(output)
	case "get_user_information_by_id", "get_user_information_by_name", "get_user_information_by_email",
		"get_credit_card_accounts_by_user", "get_credit_card_transactions_by_user", "get_referrals_by_user":
		return parseListings(output)
	}
	return nil
}

// debitCards reads get_debit_cards_by_account_id_7823's JSON list.
func debitCards(output string) []ledger.Entry {
	v, err := pyjson.Decode([]byte(output))
	if err != nil {
		return nil
	}
	list, _ := v.([]any)
	var out []ledger.Entry
	for _, it := range list {
		c, ok := it.(*pyjson.Dict)
		if !ok {
			continue
		}
		id, _ := c.Get("card_id")
		if s, ok := id.(string); ok {
			out = append(out, ledger.Entry{Path: pathCards + s, Value: c})
		}
	}
	return out
}

// argString reads a string argument of a call.
func argString(args json.RawMessage, name string) (string, bool) {
	v, err := pyjson.Decode(args)
	if err != nil {
		return "", false
	}
	d, ok := v.(*pyjson.Dict)
	if !ok {
		return "", false
	}
	x, _ := d.Get(name)
	s, ok := x.(string)
	return s, ok
}

// discCall is a call_discoverable_agent_tool call as the gate reads it:
// the tool named (nil when it is not a discoverable agent tool) and its
// arguments as json.loads(parse_int=float) gives them (nil when they are
// not a JSON object).
type discCall struct {
	Name string
	Tool *dtool
	Args *pyjson.Dict
}

func (d *Domain) decodeCall(raw json.RawMessage) *discCall {
	c := &discCall{}
	v, err := pyjson.Decode(raw)
	if err != nil {
		return c
	}
	outer, _ := v.(*pyjson.Dict)
	n, _ := outer.Get("agent_tool_name")
	c.Name, _ = n.(string)
	c.Tool, _, _ = d.agentDisc.lookup(c.Name)
	a, ok := outer.Get("arguments")
	if !ok {
		a = "{}"
	}
	if s, ok := a.(string); ok {
		if iv, err := pyjson.Loads(s, pyjson.LoadsOptions{IntAsFloat: true}); err == nil {
			c.Args, _ = iv.(*pyjson.Dict)
		}
	}
	return c
}

// arg is a string argument of the inner call ("" when absent or not a str).
func (c *discCall) arg(name string) string {
	v, _ := c.Args.Get(name)
	s, _ := v.(string)
	return s
}

// Observes reports the calls whose returns are observations
// (ledgeragent.Observer): unlocking a tool, and a discoverable read run
// through call_discoverable_agent_tool.
func (d *Domain) Observes(tool string, args json.RawMessage) bool {
	switch tool {
	case "unlock_discoverable_agent_tool":
		return true
	case "call_discoverable_agent_tool":
		c := d.decodeCall(args)
		return c.Tool != nil && !c.Tool.mutates
	}
	return false
}
