// Package sdk adapts the official SDKs of the model providers warden's agent
// talks to — openai-go (OpenAI and every OpenAI-compatible server),
// anthropic-sdk-go and Ollama's api package — to provider.Provider, and
// builds the registry of configured endpoints (FromConfig). It is apart from
// package provider so that what only needs the contract (the agent engine,
// its fuzz targets) does not link, or instrument, the SDKs.
package sdk
