package cli

import (
	"regexp"
	"strings"
	"sync"
)

// Error messages are for people: decoders' messages name Go types
// ("into time.Duration", "Go value of type results.Tau2File",
// "strconv.ParseInt"); humane rewrites them in the data's terms. Line
// numbers and field paths stay.

// humaneREs are humane's patterns, compiled on first use (not at start-up:
// most runs never print a decoder's error).
type humaneREs struct {
	yamlInto, yamlNode, jsonField, jsonValue, strconvErr, durErr *regexp.Regexp
}

var humanePatterns = sync.OnceValue(func() *humaneREs {
	return &humaneREs{
		yamlInto:   regexp.MustCompile("cannot unmarshal !!(\\w+) `([^`]*)` into ([\\w.*\\[\\]]+)"),
		yamlNode:   regexp.MustCompile(`cannot unmarshal !!(seq|map) into ([\w.*\[\]]+)`),
		jsonField:  regexp.MustCompile(`json: cannot unmarshal (\w+) into Go struct field \w+\.([\w.]+) of type ([\w.*\[\]]+)`),
		jsonValue:  regexp.MustCompile(`json: cannot unmarshal (\w+) into Go value of type ([\w.*\[\]]+)`),
		strconvErr: regexp.MustCompile(`strconv\.Parse(\w+): parsing "([^"]*)": (invalid syntax|value out of range)`),
		durErr:     regexp.MustCompile(`time: (?:invalid|missing unit in|unknown unit "[^"]*" in) duration "([^"]*)"`),
	}
})

// kind names what a Go type holds.
func kind(goType string) string {
	t := strings.TrimLeft(goType, "*")
	switch {
	case t == "time.Duration":
		return "a duration such as 90s or 5m"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "a whole number"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	}
	return "an object (a mapping of keys)"
}

// jsonKind names a JSON value kind from encoding/json's words.
func jsonKind(k string) string {
	switch k {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "number":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	}
	return k
}

func humane(msg string) string {
	re := humanePatterns()
	msg = re.yamlInto.ReplaceAllStringFunc(msg, func(s string) string {
		m := re.yamlInto.FindStringSubmatch(s)
		return "`" + m[2] + "` is not " + kind(m[3])
	})
	msg = re.yamlNode.ReplaceAllStringFunc(msg, func(s string) string {
		m := re.yamlNode.FindStringSubmatch(s)
		return map[string]string{"seq": "a list", "map": "a mapping"}[m[1]] + " where " + kind(m[2]) + " was expected"
	})
	msg = re.jsonField.ReplaceAllStringFunc(msg, func(s string) string {
		m := re.jsonField.FindStringSubmatch(s)
		return "json: field " + m[2] + ": " + jsonKind(m[1]) + " where " + kind(m[3]) + " was expected"
	})
	msg = re.jsonValue.ReplaceAllStringFunc(msg, func(s string) string {
		m := re.jsonValue.FindStringSubmatch(s)
		return "json: " + jsonKind(m[1]) + " where " + kind(m[2]) + " was expected"
	})
	msg = re.strconvErr.ReplaceAllStringFunc(msg, func(s string) string {
		m := re.strconvErr.FindStringSubmatch(s)
		what := map[string]string{"Int": "a whole number", "Uint": "a whole number", "Float": "a number", "Bool": "true or false"}[m[1]]
		if what == "" {
			what = "valid"
		}
		if m[3] == "value out of range" {
			return `"` + m[2] + `" is out of range`
		}
		return `"` + m[2] + `" is not ` + what
	})
	msg = re.durErr.ReplaceAllString(msg, `"$1" is not a duration such as 90s or 5m`)
	return msg
}
