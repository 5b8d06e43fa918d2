package errors

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// FromDatabase turns an error raised by PostgreSQL into the client's error:
// message, detail (as details), hint and SQLSTATE forwarded, with the HTTP
// status of the contract's table. authenticated tells 403 from 401 for
// insufficient_privilege; it is true when the request runs as a role other
// than the anonymous one.
func FromDatabase(pg *pgconn.PgError, authenticated bool) *Error {
	if pg.Code == "PGRST" {
		return fromRaisePGRST(pg.Message, pg.Detail)
	}
	e := &Error{
		Status:  StatusForSQLState(pg.Code, pg.Message, authenticated),
		Code:    pg.Code,
		Message: pg.Message,
		Details: str(pg.Detail),
		Hint:    str(pg.Hint),
	}
	if e.Status == http.StatusUnauthorized {
		e.Headers = http.Header{"Www-Authenticate": {"Bearer"}}
	}
	return e
}

// StatusForSQLState is the contract's database-code → HTTP status table
// (variant A). message is consulted only where PostgreSQL reuses one code
// for a client and a server fault.
func StatusForSQLState(code, message string, authenticated bool) int {
	switch code {
	case "23503", "23505":
		return http.StatusConflict
	case "25006":
		return http.StatusMethodNotAllowed
	case "21000":
		// pg-safeupdate's "DELETE requires a WHERE clause" is the client's
		// fault; any other cardinality violation is the function's.
		if strings.HasSuffix(message, "requires a WHERE clause") {
			return http.StatusBadRequest
		}
		return http.StatusInternalServerError
	case "22023":
		// SET ROLE to a role that does not exist: the token named it.
		if strings.HasPrefix(message, "role") && strings.HasSuffix(message, "does not exist") {
			return http.StatusUnauthorized
		}
		return http.StatusBadRequest
	case "53400":
		return http.StatusInternalServerError
	case "P0001":
		return http.StatusBadRequest
	case "42883":
		return http.StatusNotFound
	case "42P01":
		return http.StatusNotFound
	case "42P17":
		return http.StatusInternalServerError
	case "42501":
		if authenticated {
			return http.StatusForbidden
		}
		return http.StatusUnauthorized
	}
	if len(code) == 5 && strings.HasPrefix(code, "PT") {
		if n, err := strconv.Atoi(code[2:]); err == nil && n >= 100 {
			return n
		}
		return http.StatusInternalServerError
	}
	if len(code) < 2 {
		return http.StatusBadRequest
	}
	switch code[:2] {
	case "08", "53":
		return http.StatusServiceUnavailable
	case "0L", "0P", "28":
		return http.StatusForbidden
	case "09", "25", "2D", "38", "39", "3B", "40", "54", "55", "57", "58", "F0", "HV", "P0", "XX":
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// raiseMessage is the JSON a function puts in MESSAGE with SQLSTATE 'PGRST'.
type raiseMessage struct {
	Code    *string         `json:"code"`
	Message *string         `json:"message"`
	Details json.RawMessage `json:"details"`
	Hint    json.RawMessage `json:"hint"`
}

// raiseDetail is the JSON in DETAIL: the response's status and headers.
type raiseDetail struct {
	Status     *json.Number      `json:"status"`
	StatusText string            `json:"status_text"`
	Headers    map[string]string `json:"headers"`
}

// fromRaisePGRST builds the response a function asked for with
// RAISE SQLSTATE 'PGRST' USING message = '{...}', detail = '{...}'.
// Anything unusable in either JSON is PGRST121.
func fromRaisePGRST(message, detail string) *Error {
	var m raiseMessage
	if err := strictUnmarshal(message, &m); err != nil || m.Code == nil || m.Message == nil {
		return RaiseParse("Invalid JSON value for MESSAGE: '"+message+"'", raiseMessageHint)
	}
	if detail == "" {
		return RaiseParse("DETAIL is missing in the RAISE statement", raiseDetailHint)
	}
	var d raiseDetail
	if err := strictUnmarshal(detail, &d); err != nil || d.Status == nil {
		return RaiseParse("Invalid JSON value for DETAIL: '"+detail+"'", raiseDetailHint)
	}
	status, err := d.Status.Int64()
	if err != nil || status < 100 || status > 599 {
		return RaiseParse("Invalid JSON value for DETAIL: '"+detail+"'", raiseDetailHint)
	}
	e := &Error{Status: int(status), Code: *m.Code, Message: *m.Message,
		Details: rawOrNil(m.Details), Hint: rawOrNil(m.Hint)}
	if len(d.Headers) > 0 {
		e.Headers = make(http.Header, len(d.Headers))
		for k, v := range d.Headers {
			e.Headers.Set(k, v)
		}
	}
	return e
}

// strictUnmarshal decodes one JSON object, keeping numbers exact.
func strictUnmarshal(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return &json.SyntaxError{}
	}
	return nil
}

// rawOrNil keeps a details/hint value as the JSON the function wrote
// (usually a string), and absent or null as nil.
func rawOrNil(r json.RawMessage) any {
	if len(r) == 0 || bytes.Equal(r, []byte("null")) {
		return nil
	}
	return r
}
