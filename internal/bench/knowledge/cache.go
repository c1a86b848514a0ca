package knowledge

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/ledgerbench/ledgerbench/internal/core/atomicfile"
)

// The embeddings cache: one file per embedding endpoint (Embedder.ID) in
// the cache directory, holding a vector per document text (keyed by the
// text's SHA-256), so each document is embedded once per model, whatever
// the documents around it. A file is rewritten atomically with what it
// held and the new vectors; an exclusive lock on its .lock file makes
// concurrent processes embed a missing document once (the second reads
// what the first wrote). A damaged file is ignored and rewritten.

const cacheMagic = "ledgerbench embeddings v1\n"

// cachedEmbeddings returns the vectors of texts, embedding (in one call,
// as upstream's EmbeddingIndexer does) only those the cache lacks. dir ""
// disables the disk cache.
func cachedEmbeddings(ctx context.Context, dir string, emb Embedder, texts []string) ([][]float64, error) {
	if dir == "" {
		vs, err := emb.Embed(ctx, texts)
		if err != nil {
			return nil, infra(err)
		}
		if len(vs) != len(texts) {
			return nil, infra(fmt.Errorf("embeddings %s: %d vectors for %d texts", emb.ID(), len(vs), len(texts)))
		}
		return vs, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("embeddings cache: %w", err)
	}
	sum := sha256.Sum256([]byte(emb.ID()))
	path := filepath.Join(dir, hex.EncodeToString(sum[:16])+".vec")
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("embeddings cache: %w", err)
	}
	defer unlock()
	have := readCache(path, emb.ID())
	keys := make([][32]byte, len(texts))
	// The texts the cache lacks, in order, repeated texts included: with an
	// empty cache the request is upstream's (every document).
	var missing []string
	var missingKeys [][32]byte
	for i, t := range texts {
		keys[i] = sha256.Sum256([]byte(t))
		if _, ok := have[keys[i]]; !ok {
			missing = append(missing, t)
			missingKeys = append(missingKeys, keys[i])
		}
	}
	if len(missing) > 0 {
		vs, err := emb.Embed(ctx, missing)
		if err != nil {
			return nil, infra(err)
		}
		if len(vs) != len(missing) {
			return nil, infra(fmt.Errorf("embeddings %s: %d vectors for %d texts", emb.ID(), len(vs), len(missing)))
		}
		for i, v := range vs {
			have[missingKeys[i]] = v
		}
		if err := writeCache(path, emb.ID(), have); err != nil {
			return nil, fmt.Errorf("embeddings cache: %w", err)
		}
	}
	out := make([][]float64, len(texts))
	for i, k := range keys {
		out[i] = have[k]
	}
	return out, nil
}

// readCache reads a cache file (an empty map when it is absent, damaged or
// of another endpoint).
func readCache(path, id string) map[[32]byte][]float64 {
	have := map[[32]byte][]float64{}
	f, err := os.Open(path)
	if err != nil {
		return have
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	head := make([]byte, len(cacheMagic))
	if _, err := io.ReadFull(r, head); err != nil || string(head) != cacheMagic {
		return have
	}
	line, err := r.ReadString('\n')
	if err != nil || line != id+"\n" {
		return have
	}
	for {
		var k [32]byte
		if _, err := io.ReadFull(r, k[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return have
			}
			return map[[32]byte][]float64{}
		}
		var nb [4]byte
		if _, err := io.ReadFull(r, nb[:]); err != nil {
			return map[[32]byte][]float64{}
		}
		n := binary.LittleEndian.Uint32(nb[:])
		if n > 1<<20 {
			return map[[32]byte][]float64{}
		}
		buf := make([]byte, 8*int(n))
		if _, err := io.ReadFull(r, buf); err != nil {
			return map[[32]byte][]float64{}
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
		}
		have[k] = v
	}
}

func writeCache(path, id string, have map[[32]byte][]float64) error {
	var b bytes.Buffer
	b.WriteString(cacheMagic)
	b.WriteString(id + "\n")
	var w [8]byte
	for k, v := range have {
		b.Write(k[:])
		binary.LittleEndian.PutUint32(w[:4], uint32(len(v)))
		b.Write(w[:4])
		for _, x := range v {
			binary.LittleEndian.PutUint64(w[:], math.Float64bits(x))
			b.Write(w[:])
		}
	}
	return atomicfile.Write(path, b.Bytes())
}
