//go:build !linux

package data

import "io/fs"

func sysStamp(fs.FileInfo, *Stamp) {}
