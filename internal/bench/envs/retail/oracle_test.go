package retail

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/py/pycalc"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// The oracle tests compare this port with a reference implementation run as
// an external command, normally testdata/oracle/retail_oracle.py, which runs
// upstream's own RetailTools from a tau2-bench checkout:
//
//	TAU2_SRC=/path/to/tau2-bench/src \
//	LEDGERBENCH_RETAIL_ORACLE="python3 testdata/oracle/retail_oracle.py" \
//	go test ./internal/bench/envs/retail -run Oracle
//
// They are skipped unless LEDGERBENCH_RETAIL_ORACLE is set. Protocol: the
// command reads {"sequences": [[{"name", "arguments"}...]...], "dump": bool,
// "db_path": str} on stdin and writes
// [{"results": [[content, error]...], "db": "<json.dumps(model_dump())>"}...].

// TestDifferentialOracle compares random call sequences over the real data
// (plausible and implausible arguments: nulls, unknown ids, missing and
// extra arguments) and the final databases.
func TestDifferentialOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_RETAIL_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_RETAIL_ORACLE not set")
	}
	n := oracletest.EnvInt(t, "LEDGERBENCH_RETAIL_ORACLE_N", 150)
	seed := uint64(oracletest.EnvInt(t, "LEDGERBENCH_RETAIL_ORACLE_SEED", 1))
	d := domainForTest(t)
	g := &callGen{d: d, r: rand.New(rand.NewPCG(seed, 7))}
	type call struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	seqs := make([][]call, n)
	for i := range seqs {
		for range 1 + g.r.IntN(12) {
			name, args := g.call()
			seqs[i] = append(seqs[i], call{name, args})
		}
	}
	var want []struct {
		Results [][2]any `json:"results"`
		DB      string   `json:"db"`
	}
	oracletest.JSON(t, cmdline, map[string]any{"sequences": seqs, "dump": true, "db_path": realDBPath(t)}, &want)
	ctx := context.Background()
	calls, diffs := 0, 0
	for i, seq := range seqs {
		env := d.NewEnv()
		for j, c := range seq {
			calls++
			got := envs.Respond(ctx, env, message.ToolCall{ID: "x", Name: c.Name, Arguments: c.Arguments})
			w := want[i].Results[j]
			if normalizeOracle(got.Content) != normalizeOracle(w[0].(string)) || got.Error != w[1].(bool) {
				diffs++
				t.Errorf("seq %d call %d %s(%s)\n got (error=%v): %.600s\nwant (error=%v): %.600s", i, j, c.Name, c.Arguments, got.Error, got.Content, w[1], w[0])
			}
		}
		agent, _ := env.DumpDB()
		if dump := pyjson.String(agent); dump != want[i].DB {
			t.Errorf("seq %d: final DB dump differs", i)
		}
	}
	t.Logf("%d sequences, %d calls, %d differences", n, calls, diffs)
}

// callGen makes plausible and implausible tool calls over the real data.
type callGen struct {
	d *Domain
	r *rand.Rand
}

func (g *callGen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *callGen) user() *User {
	keys := g.d.db.Users.Keys()
	u, _ := g.d.db.Users.Get(g.pick(keys))
	return u
}

func (g *callGen) order() *Order {
	if g.r.IntN(3) == 0 {
		keys := g.d.db.Orders.Keys()
		o, _ := g.d.db.Orders.Get(g.pick(keys))
		return o
	}
	// Prefer pending and delivered orders, where writes happen.
	for {
		keys := g.d.db.Orders.Keys()
		o, _ := g.d.db.Orders.Get(g.pick(keys))
		if o.Status == StatusPending || o.Status == StatusDelivered {
			return o
		}
	}
}

func (g *callGen) orderID(o *Order) any {
	switch g.r.IntN(20) {
	case 0:
		return "#W0000000"
	case 1:
		return nil
	case 2:
		return strings.TrimPrefix(o.OrderID, "#")
	}
	return o.OrderID
}

func (g *callGen) paymentMethod(o *Order) any {
	u, ok := g.d.db.Users.Get(o.UserID)
	if !ok || g.r.IntN(15) == 0 {
		return "credit_card_0000000"
	}
	if g.r.IntN(3) == 0 && len(o.PaymentHistory) > 0 {
		return o.PaymentHistory[0].PaymentMethodID
	}
	return g.pick(u.PaymentMethods.Keys())
}

// itemPairs picks items of the order and replacement variants of the same
// products (sometimes the same id, an unavailable one or a stranger).
func (g *callGen) itemPairs(o *Order) ([]string, []string) {
	var olds, news []string
	if len(o.Items) == 0 {
		return []string{}, []string{}
	}
	for range g.r.IntN(4) {
		it := o.Items[g.r.IntN(len(o.Items))]
		olds = append(olds, it.ItemID)
		p, ok := g.d.db.Products.Get(it.ProductID)
		switch {
		case !ok || g.r.IntN(12) == 0:
			news = append(news, "1234567890")
		default:
			news = append(news, g.pick(p.Variants.Keys()))
		}
	}
	if olds == nil {
		olds, news = []string{}, []string{}
	}
	if g.r.IntN(15) == 0 && len(news) > 0 {
		news = news[1:]
	}
	return olds, news
}

func (g *callGen) str(s string) any {
	switch g.r.IntN(25) {
	case 0:
		return nil
	case 1:
		return strings.ToUpper(s)
	}
	return s
}

var calcExprs = []string{
	"2 + 2", "100 - 37.5", "(1200 - 300) * 0.1", "10 / 4", "7 // 2", "-7 // 2", "2 ** 10", "2 ** -1", "1 / 0",
	"1.0 / 0", "3 * (4 + 5", "", "  12.5 + 0.005", "0.125 + 0.0", "2.675 * 1", "1e5", "abc", "01 + 2", "00 + 1",
	"10 ** 400 / 10 ** 399", "10 ** 400 * 1.0", "(-8) ** 0.5", "0 ** -1", "-2 ** 2", "5.", ".5 + .25", "1..2",
	"()", "2(3)", "3 - - 3", "1.005 * 1000", "336.82 - 318.7 + 47.41", "((((1))))", "...", "1 ++ 2", "4 * * 2",
	"999999999999999999999 * 3", "10.0 ** 308 * 10", "(10.0 ** 308 * 10) - (10.0 ** 308 * 10)", "2.5 // 0.5",
	"-0.001", "0.5 + 1.5 - 2", "7 / 3", "1 / 3 * 3", "200 * 0.15", "54.04 - 47.84",
}

func (g *callGen) call() (string, json.RawMessage) {
	o := g.order()
	var name string
	var args any
	switch g.r.IntN(17) {
	case 0:
		name, args = "calculate", map[string]any{"expression": g.pick(calcExprs)}
	case 1:
		reasons := []string{"no longer needed", "ordered by mistake", "other", "No longer needed"}
		name, args = "cancel_pending_order", map[string]any{"order_id": g.orderID(o), "reason": g.pick(reasons)}
	case 2, 3:
		olds, news := g.itemPairs(o)
		a := map[string]any{"order_id": g.orderID(o), "item_ids": olds, "new_item_ids": news, "payment_method_id": g.paymentMethod(o)}
		if g.r.IntN(20) == 0 {
			a["item_ids"] = nil
		}
		name, args = "exchange_delivered_order_items", a
	case 4:
		u := g.user()
		name, args = "find_user_id_by_name_zip", map[string]any{"first_name": g.str(u.Name.FirstName), "last_name": g.str(u.Name.LastName), "zip": g.str(u.Address.Zip)}
	case 5:
		u := g.user()
		name, args = "find_user_id_by_email", map[string]any{"email": g.str(u.Email)}
	case 6:
		name, args = "get_order_details", map[string]any{"order_id": g.orderID(o)}
	case 7:
		pid := "0000000000"
		if len(o.Items) > 0 && g.r.IntN(10) > 0 {
			pid = o.Items[0].ProductID
		}
		name, args = "get_product_details", map[string]any{"product_id": pid}
	case 8:
		iid := "0000000000"
		if len(o.Items) > 0 && g.r.IntN(10) > 0 {
			iid = o.Items[0].ItemID
		}
		name, args = "get_item_details", map[string]any{"item_id": iid}
	case 9:
		name, args = "get_user_details", map[string]any{"user_id": g.str(o.UserID)}
	case 10:
		name, args = "list_all_product_types", map[string]any{}
	case 11:
		name, args = "modify_pending_order_address", g.address(map[string]any{"order_id": g.orderID(o)})
	case 12, 13:
		olds, news := g.itemPairs(o)
		a := map[string]any{"order_id": g.orderID(o), "item_ids": olds, "new_item_ids": news, "payment_method_id": g.paymentMethod(o)}
		if g.r.IntN(20) == 0 {
			a["new_item_ids"] = nil
		}
		name, args = "modify_pending_order_items", a
	case 14:
		name, args = "modify_pending_order_payment", map[string]any{"order_id": g.orderID(o), "payment_method_id": g.paymentMethod(o)}
	case 15:
		name, args = "modify_user_address", g.address(map[string]any{"user_id": g.str(o.UserID)})
	default:
		olds, _ := g.itemPairs(o)
		name, args = "return_delivered_order_items", map[string]any{"order_id": g.orderID(o), "item_ids": olds, "payment_method_id": g.paymentMethod(o)}
	}
	switch g.r.IntN(40) {
	case 0:
		name = "transfer_to_human_agents"
		args = map[string]any{"summary": "help"}
	case 1:
		if m, ok := args.(map[string]any); ok {
			m["unexpected"] = 1
		}
	case 2:
		if m, ok := args.(map[string]any); ok {
			for k := range m {
				delete(m, k)
				break
			}
		}
	case 3:
		name = "no_such_tool"
	case 4, 5, 6:
		if m, ok := args.(map[string]any); ok {
			g.retype(m)
		}
	}
	b, err := json.Marshal(args)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return name, b
}

// retype gives one argument another JSON type than documented: what the
// tools do with it is upstream's Python (no schema validation).
func (g *callGen) retype(m map[string]any) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return
	}
	slices.Sort(keys)
	k := g.pick(keys)
	v := m[k]
	s, _ := v.(string)
	odd := []any{
		[]any{v}, map[string]any{s: 1}, 7, 2.5, true, false, map[string]any{}, []any{}, "",
		strings.TrimPrefix(s, "#"),
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(s, "#W")); err == nil {
		odd = append(odd, n) // an id as a number
	}
	if l, ok := v.([]string); ok {
		odd = append(odd, strings.Join(l, ""), []any{nil}, []any{1, "x"})
		if len(l) > 0 {
			odd = append(odd, map[string]any{l[0]: nil}, l[0], []any{[]any{l[0]}})
		}
	}
	m[k] = odd[g.r.IntN(len(odd))]
}

func (g *callGen) address(m map[string]any) map[string]any {
	m["address1"] = g.str(fmt.Sprintf("%d Elm Street", g.r.IntN(999)))
	m["address2"] = g.str("Suite " + strconv.Itoa(g.r.IntN(99)))
	m["city"] = g.str("Austin")
	m["state"] = g.str("TX")
	m["country"] = g.str("USA")
	m["zip"] = g.str(fmt.Sprintf("%05d", g.r.IntN(99999)))
	return m
}

// realDBPath is the data directory's db.json, which the oracle must use too.
func realDBPath(t *testing.T) string {
	return filepath.Join(data.Tau2Domain(datatest.Root(t), Name), "db.json")
}

var pydanticVersion = regexp.MustCompile(`errors\.pydantic\.dev/2\.\d+/`)

// normalizeOracle hides the pydantic minor version in validation error
// links (upstream pins 2.12; a local oracle may run another).
func normalizeOracle(s string) string {
	return pydanticVersion.ReplaceAllString(s, "errors.pydantic.dev/2.x/")
}

// TestCalculateOracle compares calculate on random expressions with the
// reference command (one sequence of calculate calls).
func TestCalculateOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_RETAIL_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_RETAIL_ORACLE not set")
	}
	r := rand.New(rand.NewPCG(3, 5))
	exprs := append([]string(nil), calcExprs...)
	for range 20000 {
		exprs = append(exprs, randomExpr(r))
	}
	type ocall struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	seq := make([]ocall, len(exprs))
	for i, x := range exprs {
		seq[i] = ocall{"calculate", map[string]any{"expression": x}}
	}
	in, _ := json.Marshal(map[string]any{"sequences": [][]ocall{seq}})
	out := oracletest.Output(t, cmdline, in, nil) // Python's SyntaxWarnings on stderr are dropped
	var want []struct {
		Results [][2]any `json:"results"`
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	flagDiffs, textDiffs := 0, 0
	for i, x := range exprs {
		got, err := pycalc.Tau2(x)
		if err != nil {
			got = "Error: " + err.Error()
		}
		w := want[0].Results[i]
		switch {
		case (err != nil) != w[1].(bool) || (err == nil && got != w[0].(string)):
			flagDiffs++
			t.Errorf("calculate(%q) = %q; want %q", x, got, w[0])
		case got != w[0].(string):
			textDiffs++
			if textDiffs <= 20 {
				t.Logf("error text differs: calculate(%q) = %q; want %q", x, got, w[0])
			}
		}
	}
	t.Logf("%d expressions: %d result or error-flag differences, %d error-text differences", len(exprs), flagDiffs, textDiffs)
}

// randomExpr builds an expression from the allowed characters, mostly
// well-formed, with small exponents so Python finishes quickly.
func randomExpr(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		const alphabet = "0123456789+-*/(). "
		b := make([]byte, 1+r.IntN(10))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		if strings.Contains(s, "**") {
			return "1+1"
		}
		return s
	}
	var gen func(depth int) string
	gen = func(depth int) string {
		if depth > 3 || r.IntN(3) == 0 {
			switch r.IntN(6) {
			case 0:
				return strconv.Itoa(r.IntN(1000))
			case 1:
				return fmt.Sprintf("%d.%02d", r.IntN(2000), r.IntN(100))
			case 2:
				return fmt.Sprintf(".%d", r.IntN(1000))
			case 3:
				return "0"
			case 4:
				return fmt.Sprintf("%d.", r.IntN(50))
			default:
				return strconv.Itoa(r.IntN(10))
			}
		}
		switch r.IntN(9) {
		case 0:
			return "(" + gen(depth+1) + ")"
		case 1:
			return "-" + gen(depth+1)
		case 2:
			// small exponent
			return "(" + gen(depth+1) + ")**" + []string{"2", "-1", "0.5", "3", "-2", "(1/3)", "0"}[r.IntN(7)]
		}
		ops := []string{"+", "-", "*", "/", "//", " + ", " * ", " / "}
		return gen(depth+1) + ops[r.IntN(len(ops))] + gen(depth+1)
	}
	return gen(0)
}

// TestFixtureCasesOracle runs the golden tool cases through the reference
// command (LEDGERBENCH_RETAIL_ORACLE, given "db_path" of the fixture) and
// compares every tool message.
func TestFixtureCasesOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_RETAIL_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_RETAIL_ORACLE not set")
	}
	type ocall struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	var seqs [][]ocall
	for _, tc := range toolCases {
		var seq []ocall
		for _, cl := range tc.calls {
			seq = append(seq, ocall{cl.name, json.RawMessage(cl.args)})
		}
		seqs = append(seqs, seq)
	}
	dbPath, err := filepath.Abs(filepath.Join("testdata", "fixture_db.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want []struct {
		Results [][2]any `json:"results"`
	}
	oracletest.JSON(t, cmdline, map[string]any{"sequences": seqs, "db_path": dbPath}, &want)
	d := fixtureDomain(t)
	for i, tc := range toolCases {
		for j, m := range runCase(context.Background(), d, tc) {
			w := want[i].Results[j]
			if normalizeOracle(m.Content) != normalizeOracle(w[0].(string)) || m.Error != w[1].(bool) {
				t.Errorf("%s call %d %s(%s)\n got (error=%v): %s\nwant (error=%v): %s", tc.name, j, tc.calls[j].name, tc.calls[j].args, m.Error, m.Content, w[1], w[0])
			}
		}
	}
}

// TestGoldOracle replays every task's gold actions through the reference
// command and compares each tool message and the final database.
func TestGoldOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_RETAIL_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_RETAIL_ORACLE not set")
	}
	d := domainForTest(t)
	type ocall struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	var seqs [][]ocall
	all, err := d.Tasks().All()
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range all {
		seq := []ocall{}
		for _, a := range task.GoldActions() {
			seq = append(seq, ocall{a.Name, a.Arguments})
		}
		seqs = append(seqs, seq)
	}
	var want []struct {
		Results [][2]any `json:"results"`
		DB      string   `json:"db"`
	}
	oracletest.JSON(t, cmdline, map[string]any{"sequences": seqs, "dump": true, "db_path": realDBPath(t)}, &want)
	ctx := context.Background()
	calls := 0
	for i, task := range all {
		env := d.NewEnv()
		for j, a := range task.GoldActions() {
			calls++
			m := envs.Respond(ctx, env, message.ToolCall{ID: "g", Name: a.Name, Arguments: a.Arguments})
			w := want[i].Results[j]
			if m.Content != w[0].(string) || m.Error != w[1].(bool) {
				t.Errorf("task %s action %d %s: got (error=%v) %.300s; want (error=%v) %.300s", task.ID, j, a.Name, m.Error, m.Content, w[1], w[0])
			}
			if m.Error {
				t.Logf("task %s action %d %s errs upstream too: %s", task.ID, j, a.Name, m.Content)
			}
		}
		agent, _ := env.DumpDB()
		if pyjson.String(agent) != want[i].DB {
			t.Errorf("task %s: final DB differs", task.ID)
		}
	}
	t.Logf("%d tasks, %d gold calls compared", len(all), calls)
}
