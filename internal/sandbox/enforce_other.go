//go:build !linux

package sandbox

import "errors"

func detectABI() int { return 0 }

func restrict(*Profile, int) error {
	return errors.New("Landlock exists only on Linux")
}
