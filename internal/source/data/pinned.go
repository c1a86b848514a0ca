package data

import (
	"crypto/sha256"
	"encoding/hex"
)

// Tau2DomainPath is the slash-separated path of a τ²-bench domain's folder
// inside the tau2-bench repository, as the manifest names files.
func Tau2DomainPath(domain string) string { return "data/tau2/domains/" + domain }

// Pinned reports whether content is byte for byte the pinned version of the
// manifest file at path (slash-separated, inside the repository folder
// folder), by its sha256. Loaders use it to trust content the tests have
// decoded in full, and to validate anything else at load.
func Pinned(folder, path string, content []byte) bool {
	m, err := LoadManifest()
	if err != nil {
		return false
	}
	for _, f := range m.Files {
		if f.Folder == folder && f.Path == path {
			if f.Size != int64(len(content)) {
				return false
			}
			sum := sha256.Sum256(content)
			return hex.EncodeToString(sum[:]) == f.SHA256
		}
	}
	return false
}

// DecodePinned decodes content with lazy, which may trust it, while checking
// on another core that content is the pinned file at path; when it is not
// (or lazy fails), full decodes and validates everything instead. A pinned
// file's test decodes it both ways and compares.
func DecodePinned[T any](folder, path string, content []byte, lazy, full func([]byte) (T, error)) (T, error) {
	pinned := make(chan bool, 1)
	go func() { pinned <- Pinned(folder, path, content) }()
	v, err := lazy(content)
	if <-pinned && err == nil {
		return v, nil
	}
	return full(content)
}
