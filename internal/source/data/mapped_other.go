//go:build unix && !linux

package data

const mapPopulate = 0
