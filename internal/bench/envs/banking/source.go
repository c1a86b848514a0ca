package banking

import (
	"fmt"
	"os"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// What the tools and policies read from upstream's source at load time:
// lists and tables the tools check against, texts they show, and the
// discoverable tools' signatures and docstrings. A missing file or symbol
// is an error naming both.

const retrievalFile = "domains/banking_knowledge/retrieval.py"

type source struct {
	transferReasons  []string     // TransferReasonLiteral
	cardTypes        []string     // KnowledgeUserTools.VALID_CREDIT_CARD_TYPES
	cardRewards      *pyjson.Dict // KnowledgeUserTools.CREDIT_CARD_REWARDS
	depositImages    map[string]depositImage
	closure          map[string]*pyjson.Dict // close_bank_account_7392's fee tables
	defaultATMLimits *pyjson.Dict
	// goldenPlaceholder is get_info_policy_override's text for
	// golden_retrieval; dense is format_all_tools_dense_instructions'
	// template, with its providers.
	goldenPlaceholder string
	dense             pyliteral.FString
	providers         []string
	// texts are the tool methods' string literals (texts.go).
	texts map[string]lits
}

type depositImage struct{ atmID, envelope, notes string }

type earlyClosure struct {
	fee        float64
	windowDays int
}

func loadSource(root string, agent, user *dset) (*source, error) {
	path := data.Tau2Source(root, toolsFile)
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read upstream source: %w", err)
	}
	mod, err := pyliteral.ReadModule(src)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	fail := func(sym string, err error) error { return fmt.Errorf("%s: %s: %w", path, sym, err) }
	s := &source{texts: make(map[string]lits, len(textShapes)+2)}
	if err := loadTexts(s.texts, path, src, textShapes, ""); err != nil {
		return nil, err
	}
	if err := readTexts(s.texts, root, queryFile, queryShapes, "db_query."); err != nil {
		return nil, err
	}
	if v := mod.Var("TransferReasonLiteral"); v == nil {
		return nil, fail("TransferReasonLiteral", pyliteral.ErrNoSymbol)
	} else if sub, ok := v.Value.(*pyliteral.Subscript); !ok {
		return nil, fail("TransferReasonLiteral", fmt.Errorf("not a Literal[...]"))
	} else if s.transferReasons, err = strs(sub.Index); err != nil {
		return nil, fail("TransferReasonLiteral", err)
	}
	uc := mod.Class(userClass)
	if uc == nil {
		return nil, fail(userClass, pyliteral.ErrNoSymbol)
	}
	if v := uc.Var("VALID_CREDIT_CARD_TYPES"); v == nil {
		return nil, fail(userClass+".VALID_CREDIT_CARD_TYPES", pyliteral.ErrNoSymbol)
	} else if l, ok := v.Value.([]any); !ok {
		return nil, fail(userClass+".VALID_CREDIT_CARD_TYPES", fmt.Errorf("not a list"))
	} else if s.cardTypes, err = strs(l); err != nil {
		return nil, fail(userClass+".VALID_CREDIT_CARD_TYPES", err)
	}
	if v := uc.Var("CREDIT_CARD_REWARDS"); v == nil {
		return nil, fail(userClass+".CREDIT_CARD_REWARDS", pyliteral.ErrNoSymbol)
	} else if d, ok := v.Value.(*pyjson.Dict); !ok {
		return nil, fail(userClass+".CREDIT_CARD_REWARDS", fmt.Errorf("not a dict"))
	} else {
		s.cardRewards = d
	}
	const imagesFn, closeFn, limitFn = "get_atm_deposit_images_8473", "close_bank_account_7392", "request_temporary_debit_card_limit_increase_8374"
	locals, err := pyliteral.LocalLiterals(src, [][2]string{{imagesFn, "deposit_image_data"},
		{closeFn, "PERSONAL_CHECKING_EARLY_CLOSURE"}, {closeFn, "PERSONAL_SAVINGS_EARLY_CLOSURE"}, {limitFn, "default_atm_limits"}})
	if err != nil {
		return nil, fail("tools' local tables", err)
	}
	if s.depositImages, err = images(locals[0]); err != nil {
		return nil, fail(imagesFn+" deposit_image_data", err)
	}
	s.closure = map[string]*pyjson.Dict{}
	for i, n := range []string{"PERSONAL_CHECKING_EARLY_CLOSURE", "PERSONAL_SAVINGS_EARLY_CLOSURE"} {
		d, ok := locals[1+i].(*pyjson.Dict)
		if !ok {
			return nil, fail(closeFn+" "+n, fmt.Errorf("not a dict"))
		}
		s.closure[n] = d
	}
	if d, ok := locals[3].(*pyjson.Dict); !ok {
		return nil, fail(limitFn+" default_atm_limits", fmt.Errorf("not a dict"))
	} else {
		s.defaultATMLimits = d
	}
	if err := agent.bindSource(path, mod, s.texts); err != nil {
		return nil, err
	}
	if err := user.bindSource(path, mod, s.texts); err != nil {
		return nil, err
	}
	if err := s.loadRetrieval(root); err != nil {
		return nil, err
	}
	return s, nil
}

// loadRetrieval reads retrieval.py's texts.
func (s *source) loadRetrieval(root string) error {
	path := data.Tau2Source(root, retrievalFile)
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read upstream source: %w", err)
	}
	if err := loadTexts(s.texts, path, src, retrievalShapes, "retrieval."); err != nil {
		return err
	}
	r, err := pyliteral.FuncReturn(src, "get_info_policy_override")
	if err != nil {
		return fmt.Errorf("%s: get_info_policy_override: %w", path, err)
	}
	p, ok := r.Value.(string)
	if !ok {
		return fmt.Errorf("%s: get_info_policy_override: first return is not a string", path)
	}
	s.goldenPlaceholder = p
	const fn = "format_all_tools_dense_instructions"
	rets, err := pyliteral.ReturnStrings(src, fn)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", path, fn, err)
	}
	for _, t := range rets {
		if len(t.Fields) > 0 {
			s.dense = t
		}
	}
	if err := s.dense.Check("provider", "model"); err != nil || len(s.dense.Fields) == 0 {
		return fmt.Errorf("%s: %s: no return of an f-string over provider and model", path, fn)
	}
	provs, err := pyliteral.LocalStrings(src, fn, "provider")
	if err != nil {
		return fmt.Errorf("%s: %s: %w", path, fn, err)
	}
	for _, f := range provs {
		s.providers = append(s.providers, f.Parts[0])
	}
	if len(s.providers) < 2 {
		return fmt.Errorf("%s: %s: want the OpenAI and OpenRouter provider names", path, fn)
	}
	return nil
}

// denseInstructions is format_all_tools_dense_instructions for a dense
// spec (an OpenAI or OpenRouter embedder, as every registered variant).
func (s *source) denseInstructions(p *knowledge.PipelineSpec) string {
	provider := s.providers[0]
	if p.EmbedderType == knowledge.EmbedderOpenRouter {
		provider = s.providers[1]
	}
	out, _ := s.dense.Format(map[string]string{"provider": provider, "model": p.EmbedderModel})
	return out
}

// earlyClosure looks up an account level in one of close_bank_account's
// fee tables (nil when absent).
func (s *source) earlyClosure(table string, level any) *earlyClosure {
	k, ok, _ := pyjson.DictKey(level)
	if !ok {
		return nil
	}
	v, ok := s.closure[table].Get(k)
	if !ok {
		return nil
	}
	d, _ := v.(*pyjson.Dict)
	fee, _ := d.Get("fee")
	win, _ := d.Get("window_days")
	f, _, _ := number(fee)
	w, _, _ := number(win)
	return &earlyClosure{fee: f, windowDays: int(w)}
}

func strs(l []any) ([]string, error) {
	out := make([]string, len(l))
	for i, x := range l {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("item %d is not a string", i)
		}
		out[i] = s
	}
	return out, nil
}

// images reads deposit_image_data: transaction id → the scan's fields.
func images(v any) (map[string]depositImage, error) {
	d, ok := v.(*pyjson.Dict)
	if !ok {
		return nil, fmt.Errorf("not a dict")
	}
	out := map[string]depositImage{}
	for i, k := range d.Keys {
		e, ok := d.Values[i].(*pyjson.Dict)
		if !ok {
			return nil, fmt.Errorf("%s: not a dict", k)
		}
		get := func(f string) (string, error) {
			v, _ := e.Get(f)
			s, ok := v.(string)
			if !ok {
				return "", fmt.Errorf("%s.%s: not a string", k, f)
			}
			return s, nil
		}
		var img depositImage
		var err error
		if img.atmID, err = get("atm_id"); err != nil {
			return nil, err
		}
		if img.envelope, err = get("envelope_contents"); err != nil {
			return nil, err
		}
		if img.notes, err = get("verification_notes"); err != nil {
			return nil, err
		}
		if c, ok := e.Get("deposit_date"); !ok || !isDateCall(c) {
			return nil, fmt.Errorf("%s.deposit_date: want txn.get(\"date\", \"Unknown\")", k)
		}
		out[k] = img
	}
	return out, nil
}

func isDateCall(v any) bool {
	c, ok := v.(*pyliteral.Call)
	return ok && c.Func == "txn.get" && len(c.Args) == 2 && c.Args[0] == "date" && c.Args[1] == "Unknown" && strings.TrimSpace(c.Func) != ""
}
