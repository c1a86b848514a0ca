package openaitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// longBody is a request the size of a late turn of a domain conversation:
// a long system prompt, a dozen tools and forty messages.
func longBody() []byte {
	var msgs, tools []string
	msgs = append(msgs, fmt.Sprintf(`{"role":"system","content":%q}`, strings.Repeat("policy text. ", 2000)))
	for i := range 40 {
		if i%2 == 0 {
			msgs = append(msgs, fmt.Sprintf(`{"role":"user","content":"turn %d with some words in it"}`, i))
		} else {
			msgs = append(msgs, fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"get_user_details","arguments":"{\"user_id\": \"u%d\"}"}}]}`, i, i),
				fmt.Sprintf(`{"role":"tool","content":%q,"tool_call_id":"c%d"}`, strings.Repeat(`{"k": "v"} `, 60), i))
		}
	}
	for i := range 12 {
		tools = append(tools, fmt.Sprintf(`{"type":"function","function":{"name":"tool_%d","description":%q,"parameters":{"type":"object","properties":{"a":{"type":"string","description":"an argument"}},"required":["a"]}}}`, i, strings.Repeat("does a thing. ", 20)))
	}
	return []byte(`{"model":"m","messages":[` + strings.Join(msgs, ",") + `],"tools":[` + strings.Join(tools, ",") + `],"tool_choice":"auto","temperature":0.0,"seed":3}`)
}

func BenchmarkDecodeRequest(b *testing.B) {
	body := longBody()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := decodeRequest(body); err != nil {
			b.Fatal(err)
		}
	}
}

// keysByDecoder lists an object's keys with encoding/json's tokenizer: the
// reference for decodeRequest's key order.
func keysByDecoder(b []byte) ([]string, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil, false
		}
	}
	return keys, true
}

// FuzzDecodeRequest: a body decodes only when it is a valid JSON object;
// then the request and message keys are the body's, in order, and the
// fields equal what encoding/json decodes from the same keys.
func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(reqBody))
	f.Add(longBody())
	f.Add([]byte(`{"messages":null}`))
	f.Add([]byte(`{"model":"a","model":"b","extra":{"x":[1,2]}}`))
	f.Add([]byte(`{"messages":[null]}`))
	f.Add([]byte(`[1]`))
	f.Add([]byte(`{"model":1`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeRequest(body)
		if !bytes.Equal(req.Body, body) {
			t.Fatal("the request does not carry its body")
		}
		keys, isObject := keysByDecoder(body)
		if err != nil {
			return
		}
		if !json.Valid(body) || !isObject {
			t.Fatalf("decoded %q, which is not a JSON object", body)
		}
		if !reflect.DeepEqual(req.Keys, keys) {
			t.Errorf("keys %q; encoding/json lists %q", req.Keys, keys)
		}
		var top map[string]json.RawMessage // keys as sent; a repeated key's last value
		if err := json.Unmarshal(body, &top); err != nil {
			t.Fatal(err)
		}
		var model string
		var seed *int
		var msgs []json.RawMessage
		decode := func(key string, v any) error {
			if raw, ok := top[key]; ok {
				return json.Unmarshal(raw, v)
			}
			return nil
		}
		if decode("model", &model) != nil || decode("seed", &seed) != nil || decode("messages", &msgs) != nil {
			t.Fatalf("decoded %q, whose model, seed or messages encoding/json cannot decode", body)
		}
		if model != req.Model || !reflect.DeepEqual(seed, req.Seed) || len(msgs) != len(req.Messages) {
			t.Errorf("request %+v; encoding/json decodes model %q, seed %v, %d messages", req, model, seed, len(msgs))
		}
		for i, m := range msgs {
			if k, _ := keysByDecoder(m); !reflect.DeepEqual(k, req.Messages[i].Keys) {
				t.Errorf("message %d keys %q; encoding/json lists %q", i, req.Messages[i].Keys, k)
			}
		}
	})
}
