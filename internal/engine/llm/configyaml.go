package llm

import (
	"fmt"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/strictyaml"
)

// Reading a backbones file: strictyaml reports every unknown key, value of
// the wrong type and key given twice with its line; validation then reports
// the missing fields and bad values at theirs, in the same pass (a value the
// decoder already reported is not reported again).

// decode parses a backbones document into a Config. cfg is nil when the
// document is not a mapping of settings at all.
func decode(b []byte) (*Config, strictyaml.Problems) {
	cfg := &Config{}
	lines, probs := strictyaml.Decode(b, cfg, strictyaml.Options{Entries: map[string]string{"backbones": "backbone", "embeddings": "embedding"}})
	if probs.Covers(nil) {
		return nil, probs
	}
	for name, bb := range cfg.Backbones {
		bb.Name = name
		cfg.Backbones[name] = bb
	}
	for name, e := range cfg.Embeddings {
		e.Name = name
		cfg.Embeddings[name] = e
	}
	cfg.lines = lines
	return cfg, probs
}

// located is Validate's problems with their lines, less those about values
// the decoder reported (decoded).
func (c *Config) located(decoded strictyaml.Problems) strictyaml.Problems {
	var out strictyaml.Problems
	for _, p := range c.problems() {
		path := strictyaml.Path{}
		if p.backbone != "" {
			section := "backbones"
			if p.section == "embedding" {
				section = "embeddings"
			}
			path = append(path, section, p.backbone)
		}
		if p.key != "" {
			path = append(path, strings.Split(p.key, ".")...)
		}
		if decoded.Covers(path) {
			continue
		}
		msg := p.msg
		if p.backbone != "" {
			msg = fmt.Sprintf("%s %q: %s", p.kind(), p.backbone, p.msg)
		}
		out = append(out, strictyaml.Problem{Line: c.lines.Of(path...), Path: path, Msg: msg})
	}
	return out
}
