package errors

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestStatusForSQLState(t *testing.T) {
	// Every row of the contract's database-code table (variant A), plus the
	// cases PostgREST refines by message.
	tests := []struct {
		code, message string
		authenticated bool
		want          int
	}{
		{"08000", "", false, 503}, {"08006", "", true, 503},
		{"09000", "", false, 500},
		{"0L000", "", false, 403},
		{"0P000", "", false, 403},
		{"23503", "", false, 409},
		{"23505", "", false, 409},
		{"25006", "", false, 405},
		{"25001", "", false, 500}, {"25P02", "", false, 500},
		{"28000", "", false, 403}, {"28P01", "", false, 403},
		{"2D000", "", false, 500},
		{"38000", "", false, 500}, {"38001", "", false, 500},
		{"39000", "", false, 500},
		{"3B000", "", false, 500},
		{"40001", "", false, 500}, {"40P01", "", false, 500},
		{"53400", "", false, 500},
		{"53000", "", false, 503}, {"53100", "", false, 503}, {"53200", "", false, 503},
		{"54000", "", false, 500}, {"54001", "", false, 500},
		{"55000", "", false, 500}, {"55P03", "", false, 500},
		{"57000", "", false, 500}, {"57014", "", false, 500},
		{"57P01", "", false, 500},
		{"58000", "", false, 500},
		{"F0000", "", false, 500},
		{"HV000", "", false, 500},
		{"P0001", "", false, 400},
		{"P0002", "", false, 500}, {"P0004", "", false, 500},
		{"XX000", "", false, 500},
		{"42883", "", false, 404},
		{"42P01", "", false, 404},
		{"42P17", "", false, 500},
		{"42501", "", true, 403},
		{"42501", "", false, 401},
		{"23502", "", false, 400}, {"23514", "", false, 400}, {"22P02", "", false, 400}, {"42703", "", false, 400},
		{"21000", "DELETE requires a WHERE clause", false, 400},
		{"21000", "more than one row returned by a subquery used as an expression", false, 500},
		{"22023", `role "nobody" does not exist`, true, 401},
		{"22023", "invalid value", true, 400},
		{"PT402", "", false, 402}, {"PT404", "", false, 404}, {"PT201", "", false, 201},
		{"PTabc", "", false, 500}, {"PT099", "", false, 500},
		{"4", "", false, 400},
	}
	for _, tt := range tests {
		name := tt.code + " maps to its status"
		if tt.code == "42501" {
			name += map[bool]string{true: " when authenticated", false: " when anonymous"}[tt.authenticated]
		}
		if tt.message != "" {
			name += " for " + tt.message
		}
		t.Run(name, func(t *testing.T) {
			if got := StatusForSQLState(tt.code, tt.message, tt.authenticated); got != tt.want {
				t.Errorf("StatusForSQLState(%q) = %d, want %d", tt.code, got, tt.want)
			}
		})
	}
}

func TestFromDatabaseForwardsTheError(t *testing.T) {
	e := FromDatabase(&pgconn.PgError{Code: "23505", Message: "duplicate key", Detail: "Key (id)=(1) exists.", Hint: "use another"}, true)
	if e.Status != 409 || e.Code != "23505" || e.Message != "duplicate key" || e.Details != "Key (id)=(1) exists." || e.Hint != "use another" {
		t.Fatalf("unexpected error: %+v", e)
	}
	anon := FromDatabase(&pgconn.PgError{Code: "42501", Message: "permission denied for table t"}, false)
	if anon.Status != 401 || anon.Headers.Get("WWW-Authenticate") != "Bearer" {
		t.Fatalf("anonymous privilege failure: got %d with %v", anon.Status, anon.Headers)
	}
	if anon.Details != nil || anon.Hint != nil {
		t.Fatalf("absent detail and hint must be null, got %v and %v", anon.Details, anon.Hint)
	}
}

func TestRaisePGRST(t *testing.T) {
	tests := []struct {
		name, message, detail string
		wantStatus            int
		wantCode              string
		wantHeader            string
	}{
		{"a full custom error sets status, code and headers",
			`{"code":"123","message":"Payment Required","details":"Quota exceeded","hint":"Upgrade your plan"}`,
			`{"status":402,"status_text":"Payment Required","headers":{"X-Powered-By":"Nerd Rage"}}`, 402, "123", "Nerd Rage"},
		{"headers are optional in the detail",
			`{"code":"abc","message":"m"}`, `{"status":418}`, 418, "abc", ""},
		{"a message that is not JSON is PGRST121",
			`not json`, `{"status":400}`, 500, "PGRST121", ""},
		{"a message without code is PGRST121",
			`{"message":"m"}`, `{"status":400}`, 500, "PGRST121", ""},
		{"a missing detail is PGRST121",
			`{"code":"c","message":"m"}`, ``, 500, "PGRST121", ""},
		{"a detail without status is PGRST121",
			`{"code":"c","message":"m"}`, `{"headers":{}}`, 500, "PGRST121", ""},
		{"a status that is not a number is PGRST121",
			`{"code":"c","message":"m"}`, `{"status":"x"}`, 500, "PGRST121", ""},
		{"a status outside HTTP's range is PGRST121",
			`{"code":"c","message":"m"}`, `{"status":1000}`, 500, "PGRST121", ""},
		{"a status below HTTP's range is PGRST121",
			`{"code":"c","message":"m"}`, `{"status":99}`, 500, "PGRST121", ""},
		{"a fractional status is PGRST121",
			`{"code":"c","message":"m"}`, `{"status":402.5}`, 500, "PGRST121", ""},
		{"a message followed by more JSON is PGRST121",
			`{"code":"c","message":"m"} {}`, `{"status":400}`, 500, "PGRST121", ""},
		{"a detail followed by more JSON is PGRST121",
			`{"code":"c","message":"m"}`, `{"status":400} 1`, 500, "PGRST121", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := FromDatabase(&pgconn.PgError{Code: "PGRST", Message: tt.message, Detail: tt.detail}, false)
			if e.Status != tt.wantStatus || e.Code != tt.wantCode {
				t.Fatalf("got %d %s, want %d %s (%+v)", e.Status, e.Code, tt.wantStatus, tt.wantCode, e)
			}
			if got := e.Headers.Get("X-Powered-By"); got != tt.wantHeader {
				t.Errorf("X-Powered-By = %q, want %q", got, tt.wantHeader)
			}
		})
	}
	t.Run("the body is the one the function wrote", func(t *testing.T) {
		e := FromDatabase(&pgconn.PgError{Code: "PGRST",
			Message: `{"code":"123","message":"Payment Required","details":{"quota":5},"hint":null}`,
			Detail:  `{"status":402}`}, false)
		want := `{"code":"123","details":{"quota":5},"hint":null,"message":"Payment Required"}`
		if got := string(e.JSON()); got != want {
			t.Errorf("body %s, want %s", got, want)
		}
	})
}

func TestWrite(t *testing.T) {
	t.Run("the body, content type and Proxy-Status follow the contract", func(t *testing.T) {
		rec := httptest.NewRecorder()
		Write(rec, httptest.NewRequest("GET", "/x", nil), TableNotFound("api", "x", "xs"))
		if rec.Code != 404 {
			t.Fatalf("status %d", rec.Code)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		if ps := rec.Header().Get("Proxy-Status"); ps != "pgrest; error=PGRST205" {
			t.Errorf("Proxy-Status %q", ps)
		}
		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		if len(body) != 4 || body["code"] != "PGRST205" || body["details"] != nil ||
			body["hint"] != "Perhaps you meant the table 'api.xs'" || body["message"] == nil {
			t.Errorf("body %v", body)
		}
	})
	t.Run("HEAD gets the headers and no body", func(t *testing.T) {
		rec := httptest.NewRecorder()
		Write(rec, httptest.NewRequest("HEAD", "/x", nil), FromDatabase(&pgconn.PgError{Code: "57014", Message: "canceling statement due to statement timeout"}, true))
		if rec.Code != 500 || rec.Body.Len() != 0 || rec.Header().Get("Proxy-Status") != "pgrest; error=57014" {
			t.Errorf("got %d, body %q, Proxy-Status %q", rec.Code, rec.Body.String(), rec.Header().Get("Proxy-Status"))
		}
	})
	t.Run("token errors carry the Bearer challenge", func(t *testing.T) {
		rec := httptest.NewRecorder()
		Write(rec, httptest.NewRequest("GET", "/", nil), JWTClaims("JWT expired"))
		want := `Bearer error="invalid_token", error_description="JWT expired"`
		if got := rec.Header().Get("WWW-Authenticate"); got != want || rec.Code != http.StatusUnauthorized {
			t.Errorf("got %d %q, want 401 %q", rec.Code, got, want)
		}
	})
	t.Run("the challenge's description is a quoted-string", func(t *testing.T) {
		rec := httptest.NewRecorder()
		Write(rec, httptest.NewRequest("GET", "/", nil), JWTDecode("a \"b\" \\c\r\nd", ""))
		want := `Bearer error="invalid_token", error_description="a \"b\" \\c  d"`
		if got := rec.Header().Get("WWW-Authenticate"); got != want {
			t.Errorf("WWW-Authenticate %s, want %s", got, want)
		}
	})
	t.Run("the error's headers replace those already set", func(t *testing.T) {
		rec := httptest.NewRecorder()
		rec.Header().Set("WWW-Authenticate", "Basic")
		Write(rec, httptest.NewRequest("GET", "/", nil), JWTTokenRequired())
		if got := rec.Header().Values("WWW-Authenticate"); len(got) != 1 || got[0] != "Bearer" {
			t.Errorf("WWW-Authenticate %q, want only Bearer", got)
		}
	})
	t.Run("a status outside HTTP's range is sent as 500", func(t *testing.T) {
		rec := httptest.NewRecorder()
		Write(rec, httptest.NewRequest("GET", "/", nil), &Error{Status: 42, Code: "c", Message: "m"})
		if rec.Code != http.StatusInternalServerError || rec.Header().Get("Proxy-Status") != "pgrest; error=c" {
			t.Errorf("got %d, Proxy-Status %q", rec.Code, rec.Header().Get("Proxy-Status"))
		}
	})
	t.Run("details that cannot be encoded are dropped, keeping the shape", func(t *testing.T) {
		rec := httptest.NewRecorder()
		Write(rec, httptest.NewRequest("GET", "/", nil), &Error{Status: 500, Code: "c", Message: "m", Details: func() {}, Hint: "h"})
		want := `{"code":"c","details":null,"hint":null,"message":"m"}`
		if got := rec.Body.String(); got != want {
			t.Errorf("body %s, want %s", got, want)
		}
		if got := rec.Header().Get("Content-Length"); got != strconv.Itoa(len(want)) {
			t.Errorf("Content-Length %s, want %d", got, len(want))
		}
	})
	t.Run("a stale Content-Range is removed", func(t *testing.T) {
		rec := httptest.NewRecorder()
		rec.Header().Set("Content-Range", "0-1/*")
		Write(rec, httptest.NewRequest("GET", "/", nil), Singularity(2))
		if rec.Header().Get("Content-Range") != "" {
			t.Error("Content-Range kept on an error")
		}
	})
	t.Run("an error's own Content-Range is sent", func(t *testing.T) {
		rec := httptest.NewRecorder()
		rec.Header().Set("Content-Range", "0-1/*")
		e := RangeOutOfBounds(5, 3)
		e.Headers = http.Header{"Content-Range": {"*/3"}}
		Write(rec, httptest.NewRequest("GET", "/", nil), e)
		if got := rec.Header().Get("Content-Range"); got != "*/3" {
			t.Errorf("Content-Range %q, want */3", got)
		}
	})
}

func TestEveryConstructorHasItsCodeAndStatus(t *testing.T) {
	tests := []struct {
		e      *Error
		code   string
		status int
	}{
		{ConnectionError("x"), "PGRST000", 503}, {ClientError("x"), "PGRST001", 503},
		{NoSchemaCache(), "PGRST002", 503}, {AcquisitionTimeout(), "PGRST003", 504},
		{QueryParam("m", "d"), "PGRST100", 400}, {InvalidRPCMethod("PUT"), "PGRST101", 405},
		{InvalidBody("m"), "PGRST102", 400}, {InvalidRange(RangeNegativeLimit), "PGRST103", 416},
		{InvalidFilters(), "PGRST105", 405}, {UnacceptableSchema("x", []string{"api"}), "PGRST106", 406},
		{UnsupportedContentType("text/xml"), "PGRST107", 415}, {NotEmbedded("x"), "PGRST108", 400},
		{GucHeaders(), "PGRST111", 500}, {GucStatus(), "PGRST112", 500},
		{PutLimitNotAllowed(), "PGRST114", 400}, {PutMatchingPK(), "PGRST115", 400},
		{Singularity(2), "PGRST116", 406}, {UnsupportedMethod("TRACE"), "PGRST117", 405},
		{RangeOutOfBounds(10, 2), "PGRST103", 416}, {NotAcceptable([]string{"text/csv"}), "PGRST107", 406},
		{RelatedOrderNotToOne("a", "b"), "PGRST118", 400},
		{RaiseParse("d", "h"), "PGRST121", 500}, {InvalidPreferences([]string{"x"}), "PGRST122", 400},
		{AggregatesNotAllowed(), "PGRST123", 400}, {MaxAffectedViolation(3), "PGRST124", 400},
		{InvalidResourcePath(), "PGRST125", 404}, {OpenAPIDisabled(), "PGRST126", 404},
		{NotImplemented("x"), "PGRST127", 400}, {MaxAffectedRPCViolation(), "PGRST128", 400},
		{QueryCostExceeded(12.5, 10), "PGRST195", 400},
		{NoRelationship("a", "b", "", "api", ""), "PGRST200", 400},
		{AmbiguousRelationship("a", "b", nil, []string{"b!fk"}), "PGRST201", 300},
		{NoFunction("api", "f", nil, " without parameters", ""), "PGRST202", 404},
		{AmbiguousFunction([]string{"api.f(a => integer)"}), "PGRST203", 300},
		{ColumnNotFound("t", "c"), "PGRST204", 400}, {TableNotFound("api", "t", ""), "PGRST205", 404},
		{JWTSecretMissing(), "PGRST300", 500}, {JWTDecode("m", ""), "PGRST301", 401},
		{JWTTokenRequired(), "PGRST302", 401}, {JWTClaims("JWT expired"), "PGRST303", 401},
		{Internal("x"), "PGRSTX00", 500},
	}
	for _, tt := range tests {
		t.Run(tt.code+" is answered with "+http.StatusText(tt.status), func(t *testing.T) {
			if tt.e.Code != tt.code || tt.e.Status != tt.status || tt.e.Message == "" {
				t.Errorf("got %s %d %q", tt.e.Code, tt.e.Status, tt.e.Message)
			}
		})
	}
}
