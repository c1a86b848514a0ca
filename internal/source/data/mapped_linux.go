package data

import "syscall"

const mapPopulate = syscall.MAP_POPULATE
