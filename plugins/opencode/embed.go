// Package opencode carries warden's OpenCode plugin (warden-monitor.js), a
// plain JavaScript module that OpenCode loads without a build step, so the
// warden binary can install it (`warden install opencode`).
package opencode

import _ "embed"

//go:embed warden-monitor.js
var source []byte

// FileName is the plugin's file name inside OpenCode's plugin directory.
const FileName = "warden-monitor.js"

// Source returns the plugin's JavaScript source.
func Source() []byte { return append([]byte(nil), source...) }
