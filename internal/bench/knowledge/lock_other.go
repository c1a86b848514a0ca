//go:build !unix

package knowledge

// lockFile is a no-op where flock is not available: concurrent processes
// may then both embed a missing document (the cache stays consistent:
// files are replaced atomically).
func lockFile(string) (func(), error) { return func() {}, nil }
