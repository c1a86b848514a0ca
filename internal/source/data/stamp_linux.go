package data

import (
	"io/fs"
	"syscall"
)

func sysStamp(fi fs.FileInfo, s *Stamp) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.Dev, s.Inode, s.ChangeNS = st.Dev, st.Ino, st.Ctim.Nano()
	}
}
