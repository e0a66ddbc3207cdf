// Package jsonrpc is JSON-RPC 2.0 over a WebSocket, shared by the doors that
// speak it (the control door, later the agent API door): requests,
// notifications both ways, batches (an array in, an array out, notifications
// get no entry), and the error object of specs/control-protocol.md
// (data.timestamp, data.errorType, data.stack only at debug level, extra
// context). Error codes beyond JSON-RPC's own belong to the door that
// speaks them (Options.CodeName). A door supplies a Handler per connection; this package owns the
// framing, concurrency and error shapes.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Version is the only JSON-RPC version spoken.
const Version = "2.0"

// The error codes of JSON-RPC 2.0 itself. A door's own codes (the control
// door's -32001..-32011) live with the door, which names them through
// Options.CodeName.
const (
	CodeParseError     = -32700 // invalid JSON
	CodeInvalidRequest = -32600 // not a valid request object
	CodeMethodNotFound = -32601 // no such method
	CodeInvalidParams  = -32602 // missing or invalid parameters
	CodeInternalError  = -32603 // unexpected server error
)

// CodeName returns the name of one of JSON-RPC's own error codes
// ("ParseError", ...), or "" for any other code.
func CodeName(code int) string {
	switch code {
	case CodeParseError:
		return "ParseError"
	case CodeInvalidRequest:
		return "InvalidRequest"
	case CodeMethodNotFound:
		return "MethodNotFound"
	case CodeInvalidParams:
		return "InvalidParams"
	case CodeInternalError:
		return "InternalError"
	}
	return ""
}

// Request is one request or notification as received. ID is nil for a
// notification and the raw JSON id (number or string) otherwise.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// IsNotification reports whether the request expects no response.
func (r *Request) IsNotification() bool { return r.ID == nil }

// Response is one response. ID is the request's id, or JSON null when the
// request's id could not be read. Exactly one of Result and Error is set.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Notification is a message from the server with no id.
type Notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// Error is the error object of a response. Data carries the spec's
// timestamp and errorType (filled in when sent) and any extra context such
// as the path or command involved.
type Error struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
	// cause is the internal error behind it, for logs and data.stack.
	cause error
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("jsonrpc %d: %s", e.Code, e.Message) }

// Unwrap returns the internal error the Error was made from, if any.
func (e *Error) Unwrap() error { return e.cause }

// Errorf makes an Error with a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap makes an Error with code and message that keeps cause for logs and
// debug stacks.
func Wrap(code int, cause error, message string) *Error {
	return &Error{Code: code, Message: message, cause: cause}
}

// With returns e with extra context in data (e.g. "path", "command").
func (e *Error) With(key string, value any) *Error {
	if e.Data == nil {
		e.Data = map[string]any{}
	}
	e.Data[key] = value
	return e
}

// nullID is the id of responses to requests whose id is unknown.
var nullID = json.RawMessage("null")

// decode splits a WebSocket message into requests. batch reports whether
// the message was an array. Requests that are not valid become errors at
// their position (invalid[i] != nil); a message that is not JSON at all, or
// an empty array, gives a single error response in fatal.
func decode(msg []byte) (reqs []Request, invalid []*Response, batch bool, fatal *Response) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 || !json.Valid(msg) {
		return nil, nil, false, errorResponse(nullID, Errorf(CodeParseError, "parse error: the message is not valid JSON"))
	}
	if msg[0] == '[' {
		var raw []json.RawMessage
		if err := json.Unmarshal(msg, &raw); err != nil {
			return nil, nil, false, errorResponse(nullID, Errorf(CodeParseError, "parse error: %v", err))
		}
		if len(raw) == 0 {
			return nil, nil, false, errorResponse(nullID, Errorf(CodeInvalidRequest, "invalid request: empty batch"))
		}
		reqs = make([]Request, len(raw))
		invalid = make([]*Response, len(raw))
		for i, r := range raw {
			req, bad := decodeOne(r)
			reqs[i], invalid[i] = req, bad
		}
		return reqs, invalid, true, nil
	}
	req, bad := decodeOne(msg)
	return []Request{req}, []*Response{bad}, false, nil
}

// decodeOne validates one request object.
func decodeOne(raw json.RawMessage) (Request, *Response) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return Request{}, errorResponse(nullID, Errorf(CodeInvalidRequest, "invalid request: not an object"))
	}
	id, hasID := probe["id"]
	if hasID {
		if !validID(id) {
			return Request{}, errorResponse(nullID, Errorf(CodeInvalidRequest, "invalid request: id must be a string, a number or null"))
		}
	}
	respID := nullID
	if hasID {
		respID = id
	}
	var req Request
	if err := json.Unmarshal(raw, &req); err != nil {
		return Request{}, errorResponse(respID, Errorf(CodeInvalidRequest, "invalid request: %v", err))
	}
	if hasID {
		req.ID = id // keep an explicit null id: it is a request, not a notification
	}
	if req.JSONRPC != Version {
		return Request{}, errorResponse(respID, Errorf(CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`))
	}
	if req.Method == "" {
		return Request{}, errorResponse(respID, Errorf(CodeInvalidRequest, `invalid request: "method" is missing`))
	}
	if p := bytes.TrimSpace(req.Params); len(p) > 0 && p[0] != '{' && p[0] != '[' && !bytes.Equal(p, []byte("null")) {
		return Request{}, errorResponse(respID, Errorf(CodeInvalidRequest, `invalid request: "params" must be an object or an array`))
	}
	return req, nil
}

func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return false
	}
	switch id[0] {
	case '"', 'n':
		return true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

func errorResponse(id json.RawMessage, e *Error) *Response {
	if id == nil {
		id = nullID
	}
	return &Response{JSONRPC: Version, ID: id, Error: e}
}

// AsError returns err as an *Error: itself when it is one (or wraps one),
// else an InternalError carrying it.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Wrap(CodeInternalError, err, "internal error: "+err.Error())
}

// Params decodes a request's params into v. Missing params decode as {}.
// Unknown fields are ignored; a type mismatch is an InvalidParams error.
func Params(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if raw[0] == '[' {
		return Errorf(CodeInvalidParams, "invalid params: expected an object, got an array")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return Errorf(CodeInvalidParams, "invalid params: %s must be %s, not %s", te.Field, te.Type, te.Value).With("field", te.Field)
		}
		return Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}
