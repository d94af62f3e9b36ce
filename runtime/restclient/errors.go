package restclient

import "fmt"

// Stable error codes of failures that are not an HTTP status. They are
// part of the script-facing contract (RestClientError.code) and are listed
// in docs/runtime.md; never rename one.
const (
	// CodeUnknownService: the serviceId is not configured for the kind.
	CodeUnknownService = "unknown-service"
	// CodeServiceUnusable: the serviceId is configured but its entry is broken.
	CodeServiceUnusable = "service-unusable"
	// CodeServiceNotAllowed: the serviceId is configured, but the user who
	// started the run may not call it live (serve --http's roles); the
	// call never reaches the network.
	CodeServiceNotAllowed = "service-not-allowed"
	// CodeConnectTimeout: dialing plus the TLS handshake took longer than
	// the connection timeout.
	CodeConnectTimeout = "connect-timeout"
	// CodeConnectionRefused: nothing listens at the service's address.
	CodeConnectionRefused = "connection-refused"
	// CodeDNS: the service's host name could not be resolved.
	CodeDNS = "dns-failure"
	// CodeTLS: the TLS handshake failed (certificate, protocol).
	CodeTLS = "tls-failure"
	// CodeConnectFailed: any other failure while connecting.
	CodeConnectFailed = "connect-failed"
	// CodeReadTimeout: no response headers, or no body data, for longer
	// than the read timeout.
	CodeReadTimeout = "read-timeout"
	// CodeTransferFailed: the connection broke while sending the request or
	// reading the response.
	CodeTransferFailed = "transfer-failed"
	// CodeResponseTooLarge: the response body exceeded the size limit.
	CodeResponseTooLarge = "response-too-large"
	// CodeNotJSON: a 2XX response whose body is not JSON.
	CodeNotJSON = "not-json"
	// CodeTokenFailed: the OAuth token request failed.
	CodeTokenFailed = "token-request-failed"
	// CodeCanceled: the call was canceled, for example because the script
	// ran past its time limit.
	CodeCanceled = "canceled"
	// CodeProbeTimeout: a service probe (restls services --probe) ran
	// past its bound in all, 3 x (connection + read timeout): an endpoint
	// that sends its answer a byte at a time never trips the read
	// timeout. Probes only; a script never sees it.
	CodeProbeTimeout = "probe-timeout"
	// CodeNoFixture: mock mode found no fixture for the call (it was
	// "mock-no-fixture" before fixtures could be recorded).
	CodeNoFixture = "no-fixture"
)

// Error is a failure of a call that is not an HTTP status. Message says what
// happened and what to do; it never holds a credential or a raw token
// endpoint response.
type Error struct {
	Code      string
	ServiceID string
	Message   string
	// Err is the underlying cause, for errors.Is/As and logs.
	Err error
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

// ArgError is an invalid call argument (a TypeError for scripts).
type ArgError struct {
	// Param is the parameter concerned, for example "HEADER" or
	// "PATH.pathParams".
	Param string
	Msg   string
}

func (e *ArgError) Error() string { return fmt.Sprintf("%s: %s", e.Param, e.Msg) }
