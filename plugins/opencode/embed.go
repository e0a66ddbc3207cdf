// Package opencode carries warden's OpenCode plugin (warden-monitor.js), a
// plain JavaScript module that OpenCode loads without a build step, so the
// warden binary can install it (`warden install opencode`).
package opencode

import (
	"bytes"
	_ "embed"
	"encoding/json"
)

//go:embed warden-monitor.js
var source []byte

// FileName is the plugin's file name inside OpenCode's plugin directory.
const FileName = "warden-monitor.js"

// dataDirLine is the line of the plugin that records the data dir it was
// installed for (install.js replaces the same line).
const dataDirLine = `const INSTALLED_DATA_DIR = ""`

// Source returns the plugin's JavaScript source.
func Source() []byte { return append([]byte(nil), source...) }

// SourceFor returns the plugin's source with dataDir recorded as the data
// dir it finds warden through (its public key and daemon.json); "" leaves the
// plugin's default. $WARDEN_DATA_DIR still wins when OpenCode has it.
func SourceFor(dataDir string) []byte {
	if dataDir == "" {
		return Source()
	}
	q, _ := json.Marshal(dataDir) // a JSON string is a JavaScript string literal
	return bytes.Replace(Source(), []byte(dataDirLine), []byte(`const INSTALLED_DATA_DIR = `+string(q)), 1)
}
