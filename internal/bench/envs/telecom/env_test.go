package telecom

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

func TestLoadMissingData(t *testing.T) {
	t.Parallel()
	_, err := Load(t.TempDir())
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load(empty dir) = %v; want an error wrapping fs.ErrNotExist", err)
	}
}

func TestPolicyVariants(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	if d.Name() != "telecom" {
		t.Errorf("Name() = %q", d.Name())
	}
	for _, p := range []string{d.Policy()} {
		if !strings.HasPrefix(p, "<main_policy>\n") || !strings.HasSuffix(p, "\n</tech_support_policy>") ||
			!strings.Contains(p, "\n</main_policy>\n<tech_support_policy>\n") {
			t.Errorf("policy is not composed as upstream's: %.80q...%.80q", p, p[len(p)-80:])
		}
	}
	w, err := LoadWorkflow(testRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	if w.Name() != "telecom-workflow" {
		t.Errorf("workflow Name() = %q", w.Name())
	}
	main, _, _ := strings.Cut(d.Policy(), "</main_policy>")
	wmain, wtech, _ := strings.Cut(w.Policy(), "</main_policy>")
	if main != wmain || wtech == "" || strings.Contains(d.Policy(), wtech) {
		t.Error("workflow policy should share the main policy and have its own tech-support part")
	}
}

func TestTaskSets(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	set := d.Tasks()
	for _, c := range []struct {
		split string
		n     int
	}{{"", 114}, {"base", 114}, {"train", 74}, {"test", 40}, {"small", 20}, {"full", 2285}} {
		ts, err := set.Select(tasks.Selection{Split: c.split})
		if err != nil {
			t.Fatal(err)
		}
		if len(ts) != c.n {
			t.Errorf("split %q: %d tasks; want %d", c.split, len(ts), c.n)
		}
	}
	// tasks_small.json (the "small" extra list) equals the "small" split of
	// tasks.json, in order.
	fromSplit := map[string]bool{}
	for _, id := range set.Splits["small"] {
		fromSplit[id] = true
	}
	var want []string
	main, err := set.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range main {
		if fromSplit[tk.ID] {
			want = append(want, tk.ID)
		}
	}
	small := set.Extra["small"]
	if len(small) != len(want) {
		t.Fatalf("tasks_small.json has %d tasks; split small %d", len(small), len(want))
	}
	for i := range small {
		if small[i].ID != want[i] {
			t.Errorf("small[%d] = %s; split order has %s", i, small[i].ID, want[i])
		}
	}
}

func call(t *testing.T, e *Env, req message.Requestor, name, args string) message.Message {
	t.Helper()
	return envs.Respond(context.Background(), e, message.ToolCall{ID: "c", Name: name, Arguments: json.RawMessage(args), Requestor: req})
}

func run(t *testing.T, e *Env, side message.Requestor, name, args string) any {
	t.Helper()
	res, err := e.RunFunction(context.Background(), side, name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", side, name, err)
	}
	return res
}

func TestRequestorRouting(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	e := d.newEnv()
	cases := []struct {
		req        message.Requestor
		name, want string
		err        bool
	}{
		{message.ByAssistant, "check_status_bar", "Error: Tool 'check_status_bar' not found.", true},
		{message.ByUser, "get_customer_by_id", "Error: Tool 'get_customer_by_id' not found.", true},
		{message.ByUser, "set_user_info", "Error: Tool 'set_user_info' not found.", true},
		{message.ByAssistant, "set_data_usage", "Error: Tool 'set_data_usage' not found.", true},
		{message.ByUser, "check_network_mode_preference", "Network Mode Preference: 4g_5g_preferred", false},
		{message.ByAssistant, "transfer_to_human_agents", "Error: TelecomTools.transfer_to_human_agents() missing 1 required positional argument: 'summary'", true},
		{"system", "check_status_bar", "Error: Invalid requestor: system", true},
	}
	for _, c := range cases {
		m := call(t, e, c.req, c.name, `{}`)
		if m.Content != c.want || m.Error != c.err {
			t.Errorf("%s %s: got %q (error %v); want %q (error %v)", c.req, c.name, m.Content, m.Error, c.want, c.err)
		}
	}
	if _, err := e.RunFunction(context.Background(), "system", "check_status_bar", nil); err == nil || err.Error() != "Invalid environment type: system" {
		t.Errorf("RunFunction(system) = %v", err)
	}
}

// TestWiFiConnected covers the states no function can reach (nothing
// connects Wi-Fi): a user database whose phone is connected to Wi-Fi.
func TestWiFiConnected(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, ssid                 string
		bar, status, wifi, network string
	}{
		{"with ssid", `wifi_ssid = "HomeNet"`, "\U0001F4E1 Connected to HomeNet", "Connected Wi-Fi Network: HomeNet",
			"Wi-Fi is ON and connected to 'HomeNet'. Signal strength: good.", "Wi-Fi Connected: Yes"},
		{"without ssid", ``, "\U0001F4E1 Enabled", "Connected Wi-Fi Network: None",
			"Wi-Fi is ON and connected to 'None'. Signal strength: good.", "Wi-Fi Connected: Yes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			u, err := ParseUserDB([]byte("[device]\nwifi_enabled = true\nwifi_connected = true\nwifi_signal_strength = \"good\"\n" + c.ssid + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			d := *domainForTest(t)
			d.userDB = u
			e := d.newEnv()
			if got := call(t, e, message.ByUser, "check_status_bar", `{}`).Content; got != "Status Bar: \U0001F4F6\u00b3 Good | 5G | \U0001F4F1 Data Enabled | "+c.bar+" | \U0001F50B 80%" {
				t.Errorf("status bar = %q", got)
			}
			ns := call(t, e, message.ByUser, "check_network_status", `{}`).Content
			if !strings.HasSuffix(ns, c.network+"\n"+c.status) {
				t.Errorf("network status = %q", ns)
			}
			if got := call(t, e, message.ByUser, "check_wifi_status", `{}`).Content; got != c.wifi {
				t.Errorf("wifi status = %q; want %q", got, c.wifi)
			}
			// Airplane mode drops the Wi-Fi connection.
			call(t, e, message.ByUser, "toggle_airplane_mode", `{}`)
			if got := call(t, e, message.ByUser, "check_wifi_status", `{}`).Content; got != "Wi-Fi is ON but not connected to any network." {
				t.Errorf("after airplane mode: %q", got)
			}
		})
	}
}

func TestParseUserDB(t *testing.T) {
	t.Parallel()
	u, err := ParseUserDB(nil)
	if err != nil {
		t.Fatal(err)
	}
	def, err := LoadUserDB(testRoot(t) + "/tau2-bench/data/tau2/domains/telecom/user_db.toml")
	if err != nil {
		t.Fatal(err)
	}
	if pyjson.String(u) != pyjson.String(def) {
		t.Errorf("user_db.toml should equal the defaults:\n%s\n%s", pyjson.String(u), pyjson.String(def))
	}
	const wantDefault = `{"device": {"sim_card_status": "active", "sim_card_missing": false, "airplane_mode": false, "network_signal_strength": "good", "network_technology_connected": "5G", "network_connection_status": "connected", "battery_level": 80, "data_enabled": true, "roaming_enabled": false, "network_mode_preference": "4g_5g_preferred", "active_apn_settings": {"apn_name": "internet", "reset_at_reboot": false, "mms_apn": "mms", "mmsc_url": "http://mms.carrier.com/mms/wapenc", "mms_proxy": null, "mms_port": null}, "wifi_enabled": false, "wifi_connected": false, "wifi_ssid": null, "wifi_signal_strength": "none", "wifi_calling_enabled": false, "wifi_calling_mms_over_wifi": false, "data_saver_mode": false, "vpn_enabled_setting": false, "vpn_connected": false, "vpn_details": null, "app_statuses": {"messaging": {"app_name": "messaging", "permissions": {"sms": true, "storage": true, "phone": true, "network": false}}, "browser": {"app_name": "browser", "permissions": {"sms": false, "storage": true, "phone": false, "network": true}}}}, "surroundings": {"name": null, "phone_number": null, "is_abroad": false, "roaming_allowed": false, "signal_strength": {"2G": "poor", "3G": "fair", "4G": "good", "5G": "excellent"}, "mobile_data_usage_exceeded": false, "line_active": true, "payment_request": null}}`
	if got := pyjson.String(u); got != wantDefault {
		t.Errorf("default user db dump:\n%s\nwant\n%s", got, wantDefault)
	}
	// Apps keep file order; surroundings and VPN details are read.
	u, err = ParseUserDB([]byte(`
[device]
vpn_connected = true
[device.vpn_details]
server_address = "10.0.0.1"
[device.app_statuses.zeta]
app_name = "zeta"
[device.app_statuses.alpha]
app_name = "alpha"
[device.app_statuses.alpha.permissions]
sms = true
[surroundings.signal_strength]
5G = "none"
4G = "fair"
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := pyjson.String(u.Device.AppStatuses); got != `{"zeta": {"app_name": "zeta", "permissions": {"sms": false, "storage": false, "phone": false, "network": false}}, "alpha": {"app_name": "alpha", "permissions": {"sms": true, "storage": false, "phone": false, "network": false}}}` {
		t.Errorf("apps = %s", got)
	}
	if got := pyjson.String(u.Device.VPNDetails); got != `{"server_address": "10.0.0.1", "protocol": null, "server_performance": "unknown"}` {
		t.Errorf("vpn details = %s", got)
	}
	d := *domainForTest(t)
	d.userDB = u
	e := d.newEnv()
	if got := call(t, e, message.ByUser, "check_vpn_status", `{}`).Content; got != "VPN is ON and connected. Details: {'server_address': '10.0.0.1', 'protocol': None, 'server_performance': <PerformanceLevel.UNKNOWN: 'unknown'>}" {
		t.Errorf("vpn status = %q", got)
	}
	// No 5G signal: the preferred 4G/5G mode falls back to 4G.
	if got := call(t, e, message.ByUser, "reboot_device", `{}`).Content; !strings.Contains(got, "\U0001F4F6\u00b2 Fair | 4G") {
		t.Errorf("reboot = %q", got)
	}
	// break_vpn degrades a copy, not the loaded database's details.
	run(t, e, message.ByUser, "break_vpn", `{}`)
	if u.Device.VPNDetails.ServerPerformance != PerfUnknown {
		t.Error("break_vpn changed the shared user database")
	}

	for _, bad := range []string{
		"[device]\ncolor = 1\n", "[device]\nsim_card_status = \"gone\"\n", "[other]\n",
		"[device.app_statuses.x]\npermissions = {sms = true}\n", "[surroundings.signal_strength]\n6G = \"good\"\n",
		"[device.active_apn_settings]\napn_name = \"x\"\n",
	} {
		if _, err := ParseUserDB([]byte(bad)); err == nil {
			t.Errorf("ParseUserDB(%q) succeeded; want an error", bad)
		}
	}
}

func TestParseDB(t *testing.T) {
	t.Parallel()
	db, err := ParseDB([]byte(`
[[plans]]
plan_id = "P1"
name = "n"
data_limit_gb = 5
price_per_month = 1.5
data_refueling_price_per_gb = 2
[[customers]]
customer_id = "C1"
full_name = "A"
date_of_birth = "2000-01-01"
email = "e"
phone_number = "1"
address = {street = "s", city = "c", state = "st", zip_code = "z"}
[[lines]]
line_id = "L1"
phone_number = "1"
plan_id = "P1"
contract_end_date = 2026-01-31
[[bills]]
bill_id = "B1"
customer_id = "C1"
period_start = "2025-01-01"
period_end = "2025-01-31"
issue_date = "2025-01-01"
total_due = 0
due_date = "2025-01-15"
[[bills]]
bill_id = "B1"
customer_id = "C1"
period_start = "2025-01-01"
period_end = "2025-01-31"
issue_date = "2025-01-01"
total_due = 1
due_date = "2025-01-15"
[[devices]]
device_id = "D1"
device_type = "phone"
model = "m"
is_esim_capable = false
activation_date = "2025-01-20T14:30:00.5"
`))
	if err != nil {
		t.Fatal(err)
	}
	d := newDomain(db, &UserDB{Device: defaultPhone(), Surroundings: defaultSurroundings()})
	e := d.newEnv()
	a, _ := e.DumpDB()
	want := `{"plans": [{"plan_id": "P1", "name": "n", "data_limit_gb": 5.0, "price_per_month": 1.5, "data_refueling_price_per_gb": 2.0}], ` +
		`"customers": [{"customer_id": "C1", "full_name": "A", "date_of_birth": "2000-01-01", "email": "e", "phone_number": "1", "address": {"street": "s", "city": "c", "state": "st", "zip_code": "z"}, "account_status": "Pending Verification", "payment_methods": [], "line_ids": [], "bill_ids": [], "created_at": "2025-01-01", "last_extension_date": null, "goodwill_credit_used_this_year": 0.0}], ` +
		`"lines": [{"line_id": "L1", "phone_number": "1", "status": "Pending Activation", "plan_id": "P1", "device_id": null, "data_used_gb": 0.0, "data_refueling_gb": 0.0, "roaming_enabled": false, "contract_end_date": "2026-01-31", "last_plan_change_date": null, "last_sim_replacement_date": null, "suspension_start_date": null}], ` +
		`"bills": [{"bill_id": "B1", "customer_id": "C1", "period_start": "2025-01-01", "period_end": "2025-01-31", "issue_date": "2025-01-01", "total_due": 0.0, "due_date": "2025-01-15", "line_items": [], "status": "Draft"}, ` +
		`{"bill_id": "B1", "customer_id": "C1", "period_start": "2025-01-01", "period_end": "2025-01-31", "issue_date": "2025-01-01", "total_due": 1.0, "due_date": "2025-01-15", "line_items": [], "status": "Draft"}], ` +
		`"devices": [{"device_id": "D1", "device_type": "phone", "model": "m", "imei": null, "is_esim_capable": false, "activated": false, "activation_date": "2025-01-20 14:30:00.500000", "last_esim_transfer_date": null}]}`
	if got := pyjson.String(a); got != want {
		t.Errorf("dump:\n%s\nwant\n%s", got, want)
	}
	// Lookups find the first of two bills with one id, as upstream's scan.
	if got := call(t, e, message.ByAssistant, "get_details_by_id", `{"id": "B1"}`).Content; !strings.Contains(got, `"total_due": 0.0`) {
		t.Errorf("get_details_by_id(B1) = %s", got)
	}
	for _, bad := range []string{
		"[[plans]]\nplan_id = \"P\"\n",
		"[[lines]]\nline_id = \"L\"\nphone_number = \"1\"\nplan_id = \"P\"\nstatus = \"Gone\"\n",
		"[[devices]]\ndevice_id = \"D\"\ndevice_type = \"car\"\nmodel = \"m\"\nis_esim_capable = true\n",
		"[[plans]]\nplan_id = \"P\"\nname = \"n\"\ndata_limit_gb = 1.0\nprice_per_month = 1.0\ndata_refueling_price_per_gb = 1.0\ncolor = \"red\"\n",
		"[[bills]]\nbill_id = \"B\"\ncustomer_id = \"C\"\nperiod_start = \"2025-13-01\"\nperiod_end = \"2025-01-31\"\nissue_date = \"2025-01-01\"\ntotal_due = 0.0\ndue_date = \"2025-01-15\"\n",
	} {
		if _, err := ParseDB([]byte(bad)); err == nil {
			t.Errorf("ParseDB(%q) succeeded; want an error", bad)
		}
	}
}

// TestSimulationsAreIsolated checks copy-on-write: changes in one
// simulation are invisible to another and to the shared databases.
func TestSimulationsAreIsolated(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	fresh := d.newEnv()
	a0, u0 := dumps(fresh)
	e := d.newEnv()
	run(t, e, message.ByUser, "set_user_info", `{"name": "John Smith", "phone_number": "555-123-2002"}`)
	run(t, e, message.ByUser, "remove_app_permission", `{"app_name": "messaging", "permission": "sms"}`)
	run(t, e, message.ByUser, "break_vpn", `{}`)
	run(t, e, message.ByUser, "break_apn_mms_setting", `{}`)
	run(t, e, message.ByAssistant, "suspend_line_for_overdue_bill", `{"customer_id": "C1001", "line_id": "L1002", "new_bill_id": "B7", "contract_ended": true}`)
	call(t, e, message.ByAssistant, "refuel_data", `{"customer_id": "C1002", "line_id": "L1004", "gb_amount": 1.0}`)
	call(t, e, message.ByAssistant, "refuel_data", `{"customer_id": "C1001", "line_id": "L1002", "gb_amount": 1.0}`)
	call(t, e, message.ByAssistant, "send_payment_request", `{"customer_id": "C1001", "bill_id": "B7"}`)
	call(t, e, message.ByUser, "make_payment", `{}`)
	if a, u := dumps(e); a == a0 || u == u0 {
		t.Fatal("the actions changed nothing")
	}
	if a, u := dumps(fresh); a != a0 || u != u0 {
		t.Error("another simulation's changes leaked into this one")
	}
	if a, u := dumps(d.newEnv()); a != a0 || u != u0 {
		t.Error("a simulation's changes leaked into the shared databases")
	}
	// QUIRK 10 stays inside the simulation: a new simulation's VPN is fast.
	f := d.newEnv()
	call(t, f, message.ByUser, "connect_vpn", `{}`)
	if got := call(t, f, message.ByUser, "check_vpn_status", `{}`).Content; !strings.Contains(got, "EXCELLENT") {
		t.Errorf("VPN in a fresh simulation: %q", got)
	}
}

func TestSameDB(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	a, b := d.newEnv(), d.newEnv()
	for _, e := range []*Env{a, b} {
		call(t, e, message.ByAssistant, "refuel_data", `{"customer_id": "C1002", "line_id": "L1004", "gb_amount": 2}`)
	}
	if ag, us := a.SameDB(b); !ag || !us {
		t.Errorf("same actions: SameDB = %v, %v (generated bill ids must be deterministic)", ag, us)
	}
	call(t, b, message.ByUser, "toggle_data", `{}`)
	if ag, us := a.SameDB(b); !ag || us {
		t.Errorf("after a phone change: SameDB = %v, %v; want true, false", ag, us)
	}
	call(t, b, message.ByAssistant, "disable_roaming", `{"customer_id": "C1002", "line_id": "L1004"}`)
	if ag, _ := a.SameDB(b); ag {
		t.Error("after a line change: agent databases reported equal")
	}
}

func TestSyncMirrorsLineState(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	e := d.newEnv()
	run(t, e, message.ByUser, "set_user_info", `{"name": "John Smith", "phone_number": "555-123-2002"}`)
	s := &e.user.Surroundings
	if !s.LineActive || !s.RoamingAllowed || s.MobileDataUsageExceeded || s.PaymentRequest != nil {
		t.Fatalf("after sync: %+v", *s)
	}
	// A change made without a sync is not mirrored until the next sync.
	if _, err := e.Call(context.Background(), message.ByAssistant, "disable_roaming", json.RawMessage(`{"customer_id": "C1001", "line_id": "L1002"}`)); err != nil {
		t.Fatal(err)
	}
	if !s.RoamingAllowed {
		t.Fatal("Call synced")
	}
	e.Sync()
	if s.RoamingAllowed {
		t.Error("Sync did not mirror roaming")
	}
	// A phone number without a line: upstream raises; RunFunction reports it
	// and Sync leaves the state alone.
	if _, err := e.RunFunction(context.Background(), message.ByUser, "set_user_info", json.RawMessage(`{"name": "X", "phone_number": "000"}`)); err == nil || err.Error() != "Line with phone number 000 not found" {
		t.Errorf("set_user_info(unknown phone) = %v", err)
	}
	e.Sync()
}

// TestToolDescriptionsLazy loads the domain from a data directory whose
// tools.py lacks the toolkit class: tools still run (verify needs no
// descriptions), while Describe, and so whoever shows the tools to a model,
// fails naming the file and the class.
func TestToolDescriptionsLazy(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	tmp := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tmp, data.Tau2), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, data.Tau2, "data"), filepath.Join(tmp, data.Tau2, "data")); err != nil {
		t.Fatal(err)
	}
	srcDir := filepath.Dir(data.Tau2Source(tmp, "domains/telecom/tools.py"))
	if err := os.MkdirAll(srcDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"data_model.py", "user_tools.py", "user_data_model.py"} {
		if err := os.Symlink(data.Tau2Source(root, "domains/telecom/"+f), filepath.Join(srcDir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(srcDir, "tools.py"), []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Load(tmp)
	if err != nil {
		t.Fatalf("load without descriptions: %v", err)
	}
	if k, ok := d.ToolKind(message.ByAssistant, "get_customer_by_phone"); !ok || k != tool.Read {
		t.Errorf("ToolKind(get_customer_by_phone) = %q, %v; want read", k, ok)
	}
	if k, ok := d.ToolKind(message.ByUser, "toggle_airplane_mode"); !ok || k != tool.Write {
		t.Errorf("ToolKind(toggle_airplane_mode) = %q, %v; want write", k, ok)
	}
	err = envs.Describe(d)
	if err == nil {
		t.Fatal("Describe accepted a tools.py without the toolkit class")
	}
	for _, w := range []string{"tools.py", agentClass} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not name %q", err, w)
		}
	}
	good, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := envs.Describe(good); err != nil {
		t.Fatal(err)
	}
	if ts := good.AgentTools(); len(ts) != 13 || ts[0].Description == "" {
		t.Errorf("described agent tools: %d, first description %q", len(ts), ts[0].Description)
	}
}
