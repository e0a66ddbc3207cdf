// Package doortest holds the Agent API door's end-to-end tests: a real
// WebSocket client against the door over a real core, operations layer and
// agent engine, whose model is the OpenAI adapter talking to the wire-exact
// fake. They live apart from package agentapi so that the door's fuzz
// target does not link (and instrument) the model SDKs.
package doortest
