package tauv1

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyops"
	"github.com/ledgerbench/ledgerbench/internal/py/table"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// DB is an environment's data as its load_data returns it: named tables,
// each a dict of records (dicts) read from data/<name>.json, in load order.
// It is loaded once and shared by every simulation; a State changes it
// through copy-on-write views.
type DB struct {
	names  []string
	tables []omap.Map[*pyjson.Dict]
	hashes hashCache
}

// LoadDB reads the tables from dir/data/<name>.json. folder and rel (the
// environment's slash path inside the repository folder, e.g.
// "tau_trait/envs/airline") locate the files in the manifest: a pinned file
// is split into records that are decoded on first use; any other is decoded
// and validated in full (every record must be a dict).
func LoadDB(dir, folder, rel string, names []string) (*DB, error) {
	db := &DB{names: slices.Clone(names), tables: make([]omap.Map[*pyjson.Dict], len(names))}
	for i, name := range names {
		p := filepath.Join(dir, "data", name+".json")
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read data: %w", err)
		}
		m, err := data.DecodePinned(folder, path.Join(rel, "data", name+".json"), raw, lazyTable, fullTable)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		db.tables[i] = m
	}
	return db, nil
}

func decodeRecord(raw []byte) (*pyjson.Dict, error) {
	v, err := pyjson.Decode(raw)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*pyjson.Dict)
	if !ok {
		return nil, fmt.Errorf("a record is a %s, not a dict", pyjson.TypeName(v))
	}
	return d, nil
}

func lazyTable(raw []byte) (omap.Map[*pyjson.Dict], error) { return omap.Lazy(raw, decodeRecord) }

func fullTable(raw []byte) (omap.Map[*pyjson.Dict], error) {
	var m omap.Map[*pyjson.Dict]
	err := pyjson.Object(raw, func(k string, v []byte) error {
		d, err := decodeRecord(v)
		if err != nil {
			return fmt.Errorf("record %q: %w", k, err)
		}
		m.Set(k, d)
		return nil
	})
	return m, err
}

// Names lists the tables in load order.
func (db *DB) Names() []string { return db.names }

// Table returns a loaded table (read-only).
func (db *DB) Table(name string) (*omap.Map[*pyjson.Dict], bool) {
	i := slices.Index(db.names, name)
	if i < 0 {
		return nil, false
	}
	return &db.tables[i], true
}

// State is one simulation's data: a copy-on-write view of every table.
type State struct {
	db    *DB
	views []table.Table[pyjson.Dict]
}

// NewState returns a fresh view of the loaded data.
func (db *DB) NewState() *State {
	s := &State{db: db, views: make([]table.Table[pyjson.Dict], len(db.tables))}
	for i := range db.tables {
		s.views[i] = table.New(&db.tables[i], cloneRecord)
	}
	return s
}

func cloneRecord(d *pyjson.Dict) *pyjson.Dict { return pyops.DeepCopy(d).(*pyjson.Dict) }

// View is a table of the state; its records are *pyjson.Dict. Records from
// Get must not be modified: Mut returns one the state owns.
func (s *State) View(name string) *table.Table[pyjson.Dict] {
	i := slices.Index(s.db.names, name)
	if i < 0 {
		panic("tauv1: no table " + name) // the domain names its own tables
	}
	return &s.views[i]
}

// DB is the loaded data the state views.
func (s *State) DB() *DB { return s.db }

// Dump is the data dict as load_data returns it, with the state's changes
// (it encodes with pyjson as json.dumps writes the dict).
func (s *State) Dump() any {
	d := &pyjson.Dict{}
	for i, name := range s.db.names {
		d.Set(name, s.views[i])
	}
	return d
}

// Same compares two states of the same data as upstream compares data
// hashes: key order in dicts does not matter, values, types and list order
// do.
func (s *State) Same(o *State) bool {
	if s.db != o.db {
		return s.DataHash() == o.DataHash()
	}
	for i := range s.views {
		a, b := &s.views[i], &o.views[i]
		if a.Len() != b.Len() {
			return false
		}
		for _, ks := range [][]string{a.Touched(), b.Touched()} {
			for _, k := range ks {
				va, oka := a.Get(k)
				vb, okb := b.Get(k)
				if oka != okb {
					return false
				}
				if va != vb && Canonical(va) != Canonical(vb) {
					return false
				}
			}
		}
	}
	return true
}

// Canonical is a value's JSON with sorted keys: equal exactly when
// upstream's to_hashable texts of the values are equal.
func Canonical(v any) string {
	out, err := pyjson.MarshalOptions(v, pyjson.Options{SortKeys: true})
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(out)
}

// DataHash is upstream's get_data_hash: the SHA-256 of
// str(to_hashable(data)). The text of records no simulation has changed is
// computed once per loaded DB (the first call decodes every record).
func (s *State) DataHash() string {
	hc := s.db.hashes.get(s.db)
	if hc.err != nil {
		return "<" + hc.err.Error() + ">"
	}
	var b bytes.Buffer
	b.Grow(hc.size)
	order := slices.Clone(s.db.names)
	slices.Sort(order)
	b.WriteByte('(')
	for n, name := range order {
		if n > 0 {
			b.WriteString(", ")
		}
		i := slices.Index(s.db.names, name)
		b.WriteString("(" + pyjson.ReprString(name) + ", ")
		writeViewHash(&b, &s.views[i], hc.records[i])
		b.WriteByte(')')
	}
	if len(order) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return Sum(b.Bytes())
}

// hashCache holds the hash text of every loaded record.
type hashCache struct {
	once    sync.Once
	records []map[string]string // per table: key → str(to_hashable((key, record)))
	size    int
	err     error
}

func (c *hashCache) get(db *DB) *hashCache {
	c.once.Do(func() {
		c.records = make([]map[string]string, len(db.tables))
		for i := range db.tables {
			m := make(map[string]string, db.tables[i].Len())
			for k, v := range db.tables[i].All() {
				if v == nil {
					c.err = errors.New("nil record " + k)
					return
				}
				m[k] = PairHashable(k, v)
				c.size += len(m[k]) + 2
			}
			c.records[i] = m
		}
		c.size += 1024
	})
	return c
}

// writeViewHash writes str(to_hashable(table)) for a copy-on-write view,
// reusing the cached text of records the state has not touched.
func writeViewHash(b *bytes.Buffer, t *table.Table[pyjson.Dict], base map[string]string) {
	touched := map[string]bool{}
	for _, k := range t.Touched() {
		touched[k] = true
	}
	keys := make([]string, 0, t.Len())
	for k := range t.All() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b.WriteByte('(')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		if text, ok := base[k]; ok && !touched[k] {
			b.WriteString(text)
			continue
		}
		v, _ := t.Get(k)
		b.WriteString(PairHashable(k, v))
	}
	if len(keys) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
}
