// Package archtest holds the tests of warden's package structure: the
// import rules docs/architecture.md states (doors never import doors, the
// core and the operations layer import no door, integrations import no
// protocol, the policy stands alone). It has no code of its own.
package archtest
