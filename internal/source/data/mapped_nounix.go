//go:build !unix

package data

import (
	"errors"
	"os"
)

func mapFile(*os.File, int) ([]byte, func() error, error) {
	return nil, nil, errors.New("no memory mapping on this system")
}
