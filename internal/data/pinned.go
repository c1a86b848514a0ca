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
