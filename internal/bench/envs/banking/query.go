package banking

import (
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/table"
)

// Upstream's db_query (src/tau2/domains/banking_knowledge/db_query.py):
// constraint queries over the tables and query_database_tool's text, which
// most read tools return as it is.

// queryNames lists the tables query_database_tool knows, as its error
// shows them.
func queryNames() []string {
	out := make([]string, len(queryTables))
	for i, t := range queryTables {
		out[i] = tableNames[t]
	}
	return out
}

// constraint is one parsed field__op constraint.
type constraint struct {
	field, op string
	value     any
}

// parseConstraints turns a constraints dict into its constraints (the key
// split at its last "__"; an unknown operator compares for equality).
func parseConstraints(d *pyjson.Dict) []constraint {
	out := make([]constraint, 0, d.Len())
	for i, k := range d.Keys {
		c := constraint{field: k, op: "eq", value: d.Values[i]}
		if j := strings.LastIndex(k, "__"); j >= 0 {
			c.field, c.op = k[:j], k[j+2:]
		}
		out = append(out, c)
	}
	return out
}

// matches is _record_matches: every constraint holds; a comparison that
// raises TypeError or ValueError is no match.
func matches(rec *pyjson.Dict, cs []constraint) bool {
	for _, c := range cs {
		actual, _ := rec.Get(c.field)
		ok, err := compareOp(c.op, actual, c.value)
		if err != nil || !ok {
			return false
		}
	}
	return true
}

func compareOp(op string, a, b any) (bool, error) {
	switch op {
	case "ne":
		return !eq(a, b), nil
	case "gt":
		return compare(a, b, ">")
	case "gte":
		return compare(a, b, ">=")
	case "lt":
		return compare(a, b, "<")
	case "lte":
		return compare(a, b, "<=")
	case "contains":
		if a == nil {
			return false, nil
		}
		return contains(a, b)
	case "startswith":
		if a == nil {
			return false, nil
		}
		return strings.HasPrefix(str(a), str(b)), nil
	case "endswith":
		if a == nil {
			return false, nil
		}
		return strings.HasSuffix(str(a), str(b)), nil
	case "in":
		return contains(b, a)
	case "nin":
		in, err := contains(b, a)
		return !in, err
	}
	return eq(a, b), nil
}

// match is one matching record.
type match struct {
	id  string
	rec *pyjson.Dict
}

// query is query_db(name, return_ids=True, limit, **constraints) over a
// table view.
func query(t *table.Table[pyjson.Dict], cs []constraint, limit int) []match {
	var out []match
	for id, rec := range t.All() {
		if matches(rec, cs) {
			out = append(out, match{id, rec})
			if limit > 0 && len(out) >= limit {
				break
			}
		}
	}
	return out
}

// formatRecords is the listing of records query_database_tool (and
// get_bank_account_transactions, in the same shape) answers: head, then
// each record's line and its fields' lines and a blank one, joined. tx
// are the function's literals, at the ordinals of those texts.
func formatRecords(tx lits, at recordTexts, head string, ms []match) string {
	lines := []string{head}
	for i, m := range ms {
		lines = append(lines, tx.f(at.record, i+1, m.id))
		for j, k := range m.rec.Keys {
			lines = append(lines, tx.f(at.field, k, str(m.rec.Values[j])))
		}
		lines = append(lines, tx.s(at.blank))
	}
	return strings.Join(lines, tx.s(at.sep))
}

// recordTexts are the ordinals of a record listing's texts.
type recordTexts struct{ record, field, blank, sep int }

// queryTool is query_database_tool(name, constraints): constraints is the
// JSON text upstream builds (often with an argument pasted into it), parsed
// as json.loads does.
func (e *Env) queryTool(name, constraints string) string {
	tx := e.d.src.texts[queryTexts]
	id, ok := tableByName(name)
	if !ok || !isQueryTable(id) {
		return tx.f(4, name, pyList(queryNames()))
	}
	var cd *pyjson.Dict
	if constraints != "" {
		v, err := pyjson.Loads(constraints, pyjson.LoadsOptions{})
		if err != nil {
			return tx.f(5, err.Error())
		}
		d, ok := v.(*pyjson.Dict)
		if !ok {
			return tx.f(12, "query_db() argument after ** must be a mapping, not "+typeName(v))
		}
		cd = d
	}
	limit := 0
	var cs []constraint
	if cd != nil {
		rest := &pyjson.Dict{}
		for i, k := range cd.Keys {
			switch k {
			case "db_name", "db", "return_ids":
				return tx.f(12, "query_db() got multiple values for argument '"+k+"'")
			case "limit":
				v := cd.Values[i]
				if v == nil {
					continue
				}
				f, isInt, ok := number(v)
				if !ok || !isInt {
					// len(results) >= limit compares an int with it.
					if _, err := compare(0, v, ">="); err != nil {
						return tx.f(12, err.Error())
					}
				}
				limit = int(f)
				if limit <= 0 {
					limit = 1 // the first match already reaches it
				}
				continue
			}
			rest.Set(k, cd.Values[i])
		}
		cs = parseConstraints(rest)
	}
	ms := query(&e.db.tables[id], cs, limit)
	if len(ms) == 0 {
		return tx.f(6, name)
	}
	return formatRecords(tx, recordTexts{8, 9, 10, 11}, tx.f(7, len(ms), name), ms)
}

func isQueryTable(id tableID) bool {
	for _, t := range queryTables {
		if t == id {
			return true
		}
	}
	return false
}

// queryField is query_database_tool(name, f'{{"field": "{value}"}}'): the
// lookup upstream's read tools make, value pasted into the JSON text as
// str(value).
func (e *Env) queryField(name, field string, value any) string {
	return e.queryTool(name, `{"`+field+`": "`+str(value)+`"}`)
}

// notFound reports whether a query text says no record matched (upstream
// tests the text for "No records found" or "No results found").
func notFound(result string) bool {
	return strings.Contains(result, "No records found") || strings.Contains(result, "No results found")
}
