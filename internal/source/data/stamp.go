package data

import "io/fs"

// Stamp tells versions of a file apart without reading it, as make and
// Python's .pyc files do, but stricter: its device and inode (a file
// replaced by renaming, as data pull does, gets a new one), size,
// modification time and status-change time (set by the kernel on every
// write, and not settable by touch). Where the system does not expose them
// (not Linux), the device, inode and change time are zero.
type Stamp struct {
	Dev      uint64 `json:"dev"`
	Inode    uint64 `json:"inode"`
	Size     int64  `json:"size"`
	ModNS    int64  `json:"mtime_ns"`
	ChangeNS int64  `json:"ctime_ns"`
}

// StampOf is the stamp of a file's information (os.Stat or File.Stat).
func StampOf(fi fs.FileInfo) Stamp {
	s := Stamp{Size: fi.Size(), ModNS: fi.ModTime().UnixNano()}
	sysStamp(fi, &s)
	return s
}
