//go:build !unix

package tuihook

import "errors"

var errNoUnix = errors.New("the TUI's permission hook needs a unix system")

func ownSocket(string) error { return errNoUnix }
func ownDir(string) error    { return errNoUnix }

func signalGroup(int, bool) {}
