package control

// The error codes of specs/control-protocol.md beyond JSON-RPC's own
// (jsonrpc.CodeParseError ... jsonrpc.CodeInternalError).
const (
	CodeUnauthorized       = -32001 // authentication required
	CodeFileNotFound       = -32002 // file does not exist
	CodeFileAccessDenied   = -32003 // file access restricted
	CodeTerminalNotFound   = -32004 // terminal id not found
	CodeEditorNotActive    = -32005 // no active text editor
	CodeOperationCancelled = -32006 // a person (or the policy) denied the operation
	CodeRateLimited        = -32007 // too many requests
	CodeSessionExpired     = -32008 // session timed out
	CodeFeatureDisabled    = -32009 // feature or category disabled
	CodePathRestricted     = -32010 // path escapes the workspace sandbox
	CodeCommandRestricted  = -32011 // command not allowed
)

// CodeName returns the spec's name of one of the door's error codes
// ("Unauthorized", ...; data.errorType), or "" for any other code.
func CodeName(code int) string {
	switch code {
	case CodeUnauthorized:
		return "Unauthorized"
	case CodeFileNotFound:
		return "FileNotFound"
	case CodeFileAccessDenied:
		return "FileAccessDenied"
	case CodeTerminalNotFound:
		return "TerminalNotFound"
	case CodeEditorNotActive:
		return "EditorNotActive"
	case CodeOperationCancelled:
		return "OperationCancelled"
	case CodeRateLimited:
		return "RateLimited"
	case CodeSessionExpired:
		return "SessionExpired"
	case CodeFeatureDisabled:
		return "FeatureDisabled"
	case CodePathRestricted:
		return "PathRestricted"
	case CodeCommandRestricted:
		return "CommandRestricted"
	}
	return ""
}
