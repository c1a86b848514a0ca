package tasks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/atomicfile"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// The index of a τ²-bench tasks.json is where each task lies in the file.
// Splitting the file finds it by scanning every byte (telecom's file is
// 14 MB, of which a base split decodes 114 of 2,285 tasks); `data pull`
// writes it instead beside the file, as tasks.json.index, for the pinned
// file only. LoadTau2 uses it when it was written for this very file and
// its content: it records the stamp (device, inode, size, modification and
// change times, see data.Stamp) of the file it was built from and that
// file's SHA-256, which must be the pinned one. Each command's check of the
// pinned hashes then confirms the content is the one indexed. Anything else
// (no index, another stamp or hash, a task boundary that is not one) and
// the file is split by scanning, as without an index; an index is never
// written for a file that is not the pinned one.

// indexFormat names the index's format (and its version).
const indexFormat = "ledgerbench tasks index 1"

// indexFile is the content of tasks.json.index.
type indexFile struct {
	Format string     `json:"format"`
	SHA256 string     `json:"sha256"` // of the file indexed: the pinned one
	Stamp  data.Stamp `json:"stamp"`
	Tasks  ranges     `json:"tasks"` // each task's bytes [start, end)
}

// ranges are byte ranges [start, end), written as JSON pairs.
type ranges [][2]int

// UnmarshalJSON reads the pairs with the pyjson scanners (encoding/json
// takes ten times as long over telecom's 2,285).
func (r *ranges) UnmarshalJSON(b []byte) error {
	var out ranges
	err := pyjson.Array(b, func(i int, pair []byte) error {
		var p [2]int
		n := 0
		err := pyjson.Array(pair, func(j int, num []byte) error {
			if j >= len(p) {
				return fmt.Errorf("range %d: more than two offsets", i)
			}
			v, err := strconv.Atoi(string(num))
			if err != nil {
				return fmt.Errorf("range %d: %w", i, err)
			}
			p[j], n = v, j+1
			return nil
		})
		if err == nil && n != len(p) {
			err = fmt.Errorf("range %d: %d offsets, not two", i, n)
		}
		out = append(out, p)
		return err
	})
	if err != nil {
		return err
	}
	*r = out
	return nil
}

// IndexPath is the path of the index of the tasks file at path.
func IndexPath(path string) string { return path + ".index" }

// tau2TasksPath is the manifest path of the τ²-bench domain folder dir's
// tasks.json ("" when dir is not a pinned domain's).
func tau2TasksPath(m *data.Manifest, dir string) (data.File, bool) {
	p := path.Join(data.Tau2DomainPath(filepath.Base(dir)), "tasks.json")
	for _, f := range m.Files {
		if f.Folder == data.Tau2 && f.Path == p {
			return f, true
		}
	}
	return data.File{}, false
}

// WriteIndexes writes the index of each pinned τ²-bench tasks.json in the
// data directory root (data pull calls it once the files are verified). A
// file that is not the pinned one gets no index, and loses any it had.
func WriteIndexes(root string) error {
	m, err := data.LoadManifest()
	if err != nil {
		return err
	}
	for _, f := range m.Files {
		rest, inDomains := strings.CutPrefix(f.Path, data.Tau2DomainPath(""))
		domain, isTasks := strings.CutSuffix(rest, "/tasks.json")
		if f.Folder != data.Tau2 || !inDomains || !isTasks || strings.Contains(domain, "/") {
			continue
		}
		if err := writeIndex(filepath.Join(root, f.Folder, filepath.FromSlash(f.Path)), f); err != nil {
			return fmt.Errorf("index %s: %w", f.Path, err)
		}
	}
	return nil
}

// writeIndex indexes the tasks file at p, when it is the pinned file f.
func writeIndex(p string, f data.File) error {
	m, err := data.ReadMapped(p)
	if err != nil {
		return err
	}
	defer m.Close()
	sum := sha256.Sum256(m.Bytes)
	if hex.EncodeToString(sum[:]) != f.SHA256 || int64(len(m.Bytes)) != f.Size {
		if err := os.Remove(IndexPath(p)); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	tf, err := index(p, m.Bytes)
	if err != nil {
		return err
	}
	ix := indexFile{Format: indexFormat, SHA256: f.SHA256, Stamp: m.Stamp, Tasks: make(ranges, len(tf.raw))}
	for i, raw := range tf.raw {
		start := cap(m.Bytes) - cap(raw) // raw is m.Bytes[start:end]
		ix.Tasks[i] = [2]int{start, start + len(raw)}
	}
	b, err := json.Marshal(ix)
	if err != nil {
		return err
	}
	return atomicfile.Write(IndexPath(p), b)
}

// indexed splits the content of the tasks file p (in the domain folder
// dir) into tasks with its index, or returns false when there is no index
// for this file and content.
func indexed(p, dir string, m *data.Mapped) ([][]byte, bool) {
	b, err := os.ReadFile(IndexPath(p))
	if err != nil {
		return nil, false
	}
	var ix indexFile
	if json.Unmarshal(b, &ix) != nil || ix.Format != indexFormat || ix.Stamp != m.Stamp {
		return nil, false
	}
	man, err := data.LoadManifest()
	if err != nil {
		return nil, false
	}
	if f, ok := tau2TasksPath(man, dir); !ok || f.SHA256 != ix.SHA256 || f.Size != int64(len(m.Bytes)) {
		return nil, false
	}
	return ix.split(m.Bytes)
}

// split cuts content into the indexed tasks, checking that they are the
// elements of a JSON array of objects: "[", the tasks separated by ",",
// "]", with only whitespace between, each task starting with "{" and
// ending with "}". (Each task's own content is checked when it is
// decoded.)
func (ix *indexFile) split(content []byte) ([][]byte, bool) {
	space := func(i int) int {
		for i < len(content) && isJSONSpace(content[i]) {
			i++
		}
		return i
	}
	i := space(0)
	if i >= len(content) || content[i] != '[' {
		return nil, false
	}
	i++
	out := make([][]byte, len(ix.Tasks))
	for k, r := range ix.Tasks {
		i = space(i)
		if k > 0 {
			if i >= len(content) || content[i] != ',' {
				return nil, false
			}
			i = space(i + 1)
		}
		start, end := r[0], r[1]
		if start != i || end <= start+1 || end > len(content) || content[start] != '{' || content[end-1] != '}' {
			return nil, false
		}
		out[k], i = content[start:end], end
	}
	i = space(i)
	if i >= len(content) || content[i] != ']' || space(i+1) != len(content) {
		return nil, false
	}
	return out, true
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
