package llm

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/goldentest"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

var update = flag.Bool("update", false, "update golden files")

func goldenRequest() (Backbone, Request) {
	b := Backbone{Name: "g", BaseURL: "http://x/v1", Model: "gpt-4.1-2025-04-14", Temperature: ptr(0.0),
		SendReasoning: true, MaxTokens: 1024,
		ExtraBody: map[string]any{"thinking": map[string]any{"type": "enabled"}, "metadata": map[string]any{"run": "<a&b>"}}}
	msgs := []message.Message{
		{Role: message.System, Content: "<instructions>\nBe helpful.\n</instructions>"},
		{Role: message.Assistant, Content: "Hello, what do you need?"},
		{Role: message.User, Content: "I want to cancel \"ABC123\" — it's urgent\t!"},
		{Role: message.Assistant, ReasoningContent: "Look up first.", ToolCalls: []message.ToolCall{
			{ID: "call_1", Name: "get_user_details", Arguments: json.RawMessage(`{"user_id":"mia_li_3668"}`)},
			{ID: "call_2", Name: "cancel_reservation", Arguments: json.RawMessage(`"{\"reservation_id\": \"ABC"`)},
		}},
		{Role: message.Tool, ToolCallID: "call_1", Content: `{"user_id": "mia_li_3668", "balance": 10.0}`},
		{Role: message.Tool, ToolCallID: "call_2", Content: "Error: AirlineTools.cancel_reservation() argument after ** must be a mapping, not str", Error: true},
		{Role: message.User, Content: "ignored tool calls", ToolCalls: []message.ToolCall{{ID: "u", Name: "x"}}},
	}
	return b, Request{Messages: msgs, Tools: testTools, Seed: ptr(300)}
}

func TestEncodeGolden(t *testing.T) {
	t.Parallel()
	b, req := goldenRequest()
	enc, err := newEncoder(b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := enc.encode(nil, &req)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(got) {
		t.Fatalf("invalid JSON: %s", got)
	}
	again, _ := enc.encode(nil, &req)
	if !bytes.Equal(got, again) {
		t.Errorf("encoding is not deterministic")
	}
	goldentest.Check(t, *update, "request.golden", string(got)+"\n")
}

func TestEncodeUnknownRole(t *testing.T) {
	t.Parallel()
	enc, _ := newEncoder(Backbone{Model: "m"})
	_, err := enc.encode(nil, &Request{Messages: []message.Message{{Role: "robot"}}})
	if err == nil || !strings.Contains(err.Error(), `unknown role "robot"`) {
		t.Errorf("err = %v", err)
	}
}

func TestArgumentsText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw  string
		want string
	}{
		{`{"a":1,"b":[1,2.50],"c":{"d":null}}`, `{"a": 1, "b": [1, 2.5], "c": {"d": null}}`},
		{`{"z":1,"a":2}`, `{"z": 1, "a": 2}`}, // key order kept
		{`{"s":"é☃"}`, `{"s": "\u00e9\u2603"}`},
		{``, `{}`},
		{`"{\"bad"`, `{"bad`}, // malformed raw text stored as a JSON string
		{`[1]`, `[1]`},
	}
	for _, tc := range tests {
		if got := argumentsText(json.RawMessage(tc.raw)); got != tc.want {
			t.Errorf("argumentsText(%s) = %s; want %s", tc.raw, got, tc.want)
		}
	}
}

func FuzzArguments(f *testing.F) {
	for _, s := range []string{`{"user_id": "x"}`, `{"a": [1, 2.0, {"b": null}]}`, `{"a": `, ``, `  `, `"str"`, `not json`, `{"é": "☃"}`, `1e400`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args, ok := parseArguments(s)
		if !json.Valid(args) {
			t.Fatalf("parseArguments(%q) = %s: invalid JSON", s, args)
		}
		back := argumentsText(args)
		if !ok {
			// Replies arrive as decoded JSON, so always valid UTF-8
			// (invalid bytes would come back as U+FFFD).
			if validUTF8(s) && back != s {
				t.Fatalf("malformed %q sent back as %q", s, back)
			}
			return
		}
		if strings.TrimSpace(s) == "" || strings.HasPrefix(strings.TrimSpace(s), `"`) {
			return
		}
		want, err1 := pyjson.Decode([]byte(s))
		got, err2 := pyjson.Decode([]byte(back))
		if err1 == nil && (err2 != nil || !pyjson.Equal(want, got)) {
			t.Fatalf("round trip %q -> %q: %v", s, back, err2)
		}
	})
}

func FuzzEncode(f *testing.F) {
	f.Add("hello", "call_1", `{"a":1}`, "reason")
	f.Add("\x00\"\\\n\u2028<>&", "", `{bad`, "")
	f.Fuzz(func(t *testing.T, content, id, args, reasoning string) {
		enc, _ := newEncoder(Backbone{Model: "m", SendReasoning: true})
		raw, _ := parseArguments(args)
		req := Request{Messages: []message.Message{
			{Role: message.User, Content: content},
			{Role: message.Assistant, Content: content, ReasoningContent: reasoning,
				ToolCalls: []message.ToolCall{{ID: id, Name: "f", Arguments: raw}}},
			{Role: message.Tool, ToolCallID: id, Content: content},
		}}
		body, err := enc.encode(nil, &req)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Messages []struct {
				Content   *string `json:"content"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct{ Arguments string }
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("body %q: %v", body, err)
		}
		if !validUTF8(content) {
			return // invalid UTF-8 is sent as is; JSON decoding replaces it
		}
		if *got.Messages[0].Content != content || *got.Messages[2].Content != content {
			t.Errorf("content %q came back as %q", content, *got.Messages[0].Content)
		}
		if validUTF8(id) && got.Messages[1].ToolCalls[0].ID != id {
			t.Errorf("id %q came back as %q", id, got.Messages[1].ToolCalls[0].ID)
		}
	})
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// benchConversation is an airline-sized turn: a ~8 KB system prompt, 14
// tools and 40 messages with tool calls and JSON results.
func benchConversation() Request {
	tools := make([]tool.Info, 14)
	for i := range tools {
		tools[i] = tool.Info{
			Name:        fmt.Sprintf("tool_number_%d", i),
			Description: strings.Repeat("Describes what the tool does and when to use it. ", 4),
			Parameters: json.RawMessage(`{"type":"object","properties":{"user_id":{"type":"string","description":"The user id, such as 'sara_doe_496'."},` +
				`"items":{"type":"array","items":{"type":"string"}},"amount":{"type":"number"}},"required":["user_id","items"]}`),
		}
	}
	msgs := []message.Message{{Role: message.System, Content: strings.Repeat("Policy line with some rules about refunds and changes.\n", 150)}}
	for i := 0; len(msgs) < 40; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			message.Message{Role: message.User, Content: "I would like to change my reservation to a later flight please."},
			message.Message{Role: message.Assistant, ToolCalls: []message.ToolCall{{ID: id, Name: "tool_number_3",
				Arguments: json.RawMessage(`{"user_id":"sara_doe_496","items":["a","b"],"amount":12.5}`)}}},
			message.Message{Role: message.Tool, ToolCallID: id, Content: `{"reservation_id": "ZFA04Y", "user_id": "sara_doe_496", "origin": "SFO", "destination": "JFK", "flights": [{"flight_number": "HAT001", "date": "2024-05-16", "price": 155}], "passengers": [{"first_name": "Sara", "last_name": "Doe", "dob": "1990-04-05"}], "payment_history": [{"payment_id": "credit_card_1", "amount": 310}], "cabin": "economy", "total_baggages": 1, "insurance": "no"}`},
			message.Message{Role: message.Assistant, Content: "I found your reservation ZFA04Y. Which flight would you like instead?"},
		)
	}
	return Request{Messages: msgs, Tools: tools, Seed: ptr(300)}
}

// BenchmarkConvert measures request conversion per call, without network:
// building the JSON body (and, with the cache on, hashing it).
func BenchmarkConvert(b *testing.B) {
	bb := Backbone{Model: "gpt-4.1-2025-04-14", Temperature: ptr(0.0)}
	enc, err := newEncoder(bb)
	if err != nil {
		b.Fatal(err)
	}
	req := benchConversation()
	short := Request{Messages: conversation(), Tools: testTools}
	c := &cache{dir: b.TempDir()}
	b.Run("short", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := enc.encode(make([]byte, 0, sizeHint(&short)), &short); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("airline-40-messages", func(b *testing.B) {
		b.ReportAllocs()
		var n int
		for b.Loop() {
			body, err := enc.encode(make([]byte, 0, sizeHint(&req)), &req)
			if err != nil {
				b.Fatal(err)
			}
			n = len(body)
		}
		b.SetBytes(int64(n))
	})
	b.Run("airline-40-messages+cache-key", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			body, err := enc.encode(make([]byte, 0, sizeHint(&req)), &req)
			if err != nil {
				b.Fatal(err)
			}
			_ = c.key("https://api.openai.com/v1", body)
		}
	})
}

// FuzzPyDumps checks the one-pass rewriter against decoding and encoding
// with pyjson (json.dumps(json.loads(s))).
func FuzzPyDumps(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[1,2.50,-3e2],"c":{"d":null,"e":true,"f":false}}`,
		`{"s":"\u00E9\/\"\\\b\f\n\r\t\u0041\ud83d\ude00 é 😀 \u007f"}`, `[]`, `{}`, `[{}, []]`, `0.1`, `-0.0`, `-0`, `1E+2`, `123456789012345678901234567890`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) || !validUTF8(s) || hasDuplicateKeys(s) {
			return
		}
		if strings.Contains(strings.ToLower(s), `\ud`) {
			// Lone surrogates: Python keeps them (as we do), Go's decoder
			// replaces them, so pyjson is no reference here.
			return
		}
		got, ok := appendPyDumps(nil, []byte(s))
		if !ok {
			return
		}
		v, err := pyjson.Decode([]byte(s))
		if err != nil {
			t.Fatalf("pyjson.Decode(%q): %v", s, err)
		}
		want, err := pyjson.Marshal(v)
		if err != nil {
			return
		}
		if string(got) != string(want) {
			t.Fatalf("appendPyDumps(%q) = %s; want %s", s, got, want)
		}
	})
}

func hasDuplicateKeys(s string) bool {
	dec := json.NewDecoder(strings.NewReader(s))
	type frame struct {
		keys     map[string]bool
		isObject bool
		wantKey  bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				if top != nil && top.isObject {
					top.wantKey = true
				}
				stack = append(stack, &frame{keys: map[string]bool{}, isObject: true, wantKey: true})
			case '[':
				if top != nil && top.isObject {
					top.wantKey = true
				}
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if top != nil && top.isObject {
			if top.wantKey {
				k := tok.(string)
				if top.keys[k] {
					return true
				}
				top.keys[k] = true
				top.wantKey = false
			} else {
				top.wantKey = true
			}
		}
	}
}

func TestStripThink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		content, reasoning     string
		wantContent, wantReasn string
	}{
		{"<think>\nplan\n</think>\n\nHello", "", "Hello", "plan"},
		{"plan only closing</think>Hello", "", "Hello", "plan only closing"},
		{"<think></think>Hello", "", "Hello", ""},
		{"<think>b</think>Hi", "a", "Hi", "a\nb"},
		{"no tags", "r", "no tags", "r"},
	}
	for _, tc := range tests {
		c, r := stripThink(tc.content, tc.reasoning)
		if c != tc.wantContent || r != tc.wantReasn {
			t.Errorf("stripThink(%q, %q) = %q, %q; want %q, %q", tc.content, tc.reasoning, c, r, tc.wantContent, tc.wantReasn)
		}
	}
}

// TestMessageShape: messages as upstream's to_litellm_messages writes them.
func TestMessageShape(t *testing.T) {
	t.Parallel()
	call := message.ToolCall{ID: "c1", Name: "get_order", Arguments: json.RawMessage(`{"order_id":"#W1","n":[1,2.50],"s":"é"}`)}
	cases := []struct {
		name string
		m    message.Message
		want string
	}{
		{"text assistant has tool_calls null", message.Message{Role: message.Assistant, Content: "Hi"},
			`{"role":"assistant","content":"Hi","tool_calls":null}`},
		{"tool-calling assistant has content null, a top-level name and json.dumps arguments", message.Message{Role: message.Assistant, ToolCalls: []message.ToolCall{call}},
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","name":"get_order","type":"function","function":{"name":"get_order","arguments":"{\"order_id\": \"#W1\", \"n\": [1, 2.5], \"s\": \"\\u00e9\"}"}}]}`},
		{"empty content the provider sent stays empty", message.Message{Role: message.Assistant, EmptyContent: true, ToolCalls: []message.ToolCall{call}},
			`{"role":"assistant","content":"","tool_calls":[{"id":"c1","name":"get_order","type":"function","function":{"name":"get_order","arguments":"{\"order_id\": \"#W1\", \"n\": [1, 2.5], \"s\": \"\\u00e9\"}"}}]}`},
		{"text and tool calls", message.Message{Role: message.Assistant, Content: "Looking.", ToolCalls: []message.ToolCall{call}},
			`{"role":"assistant","content":"Looking.","tool_calls":[{"id":"c1","name":"get_order","type":"function","function":{"name":"get_order","arguments":"{\"order_id\": \"#W1\", \"n\": [1, 2.5], \"s\": \"\\u00e9\"}"}}]}`},
		{"tool message", message.Message{Role: message.Tool, ToolCallID: "c1", Content: "{}"},
			`{"role":"tool","content":"{}","tool_call_id":"c1"}`},
		{"user message drops tool calls", message.Message{Role: message.User, Content: "ok", ToolCalls: []message.ToolCall{call}},
			`{"role":"user","content":"ok"}`},
	}
	enc, err := newEncoder(Backbone{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := enc.message(nil, &tc.m, "")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("message = %s\nwant      %s", got, tc.want)
			}
		})
	}
}

// TestRequestSampling: tool_choice "auto" whenever tools are sent, the seed
// when set, the backbone's temperature, and nothing else by default.
func TestRequestSampling(t *testing.T) {
	t.Parallel()
	msgs := []message.Message{{Role: message.System, Content: "s"}, {Role: message.User, Content: "u"}}
	cases := []struct {
		name string
		req  Request
		want string
	}{
		{"tools and seed", Request{Messages: msgs, Tools: testTools[:1], Seed: ptr(7)}, `"tool_choice":"auto","temperature":0.0,"seed":7}`},
		{"no tools: no tool_choice", Request{Messages: msgs, Seed: ptr(7)}, `],"temperature":0.0,"seed":7}`},
		{"no seed", Request{Messages: msgs}, `],"temperature":0.0}`},
	}
	enc, err := newEncoder(Backbone{Model: "m", Temperature: ptr(0.0)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := enc.encode(nil, &tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(string(got), tc.want) {
				t.Errorf("body %s; want it to end %s", got, tc.want)
			}
			for _, k := range []string{"parallel_tool_calls", "max_tokens", `"n"`, "reasoning_effort"} {
				if strings.Contains(string(got), k) {
					t.Errorf("body sends %s: %s", k, got)
				}
			}
		})
	}
}

// TestNoTemperature: a request may send no temperature although the
// backbone sets one (upstream's reviewer passes none); the request's own
// still wins; the backbone's other settings are kept.
func TestNoTemperature(t *testing.T) {
	t.Parallel()
	enc, err := newEncoder(Backbone{Model: "m", Temperature: ptr(0.0), MaxTokens: 9})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []message.Message{{Role: message.User, Content: "x"}}
	for _, tc := range []struct {
		name string
		req  Request
		want string
	}{
		{"backbone's", Request{Messages: msgs}, `{"model":"m","messages":[{"role":"user","content":"x"}],"temperature":0.0,"max_tokens":9}`},
		{"none", Request{Messages: msgs, NoTemperature: true}, `{"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":9}`},
		{"request's wins", Request{Messages: msgs, NoTemperature: true, Temperature: ptr(0.5)}, `{"model":"m","messages":[{"role":"user","content":"x"}],"temperature":0.5,"max_tokens":9}`},
	} {
		got, err := enc.encode(nil, &tc.req)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%s: %s; want %s", tc.name, got, tc.want)
		}
	}
}
