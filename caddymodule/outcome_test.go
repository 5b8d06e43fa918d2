package caddymodule

import (
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/pgrest/caddy-pgrest/executor"
)

// TestOutcomeFieldsLogAsSeparateFieldsDid holds the one inline field to
// what the access log said when each was a field of its own: the same
// keys, values and order, whatever the outcome.
func TestOutcomeFieldsLogAsSeparateFieldsDid(t *testing.T) {
	separate := func(role string, o executor.Outcome) []zap.Field {
		var fs []zap.Field
		if role != "" {
			fs = append(fs, zap.String("pgrest_role", role))
		}
		fs = append(fs, zap.String("pgrest_action", o.Action))
		if o.Schema != "" {
			fs = append(fs, zap.String("pgrest_schema", o.Schema))
		}
		if o.Code != "" {
			fs = append(fs, zap.String("pgrest_code", o.Code))
			if o.FromDatabase {
				fs = append(fs, zap.String("pgrest_sqlstate", o.Code))
			}
		}
		return fs
	}
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	encode := func(fields []zap.Field) string {
		buf, err := enc.EncodeEntry(zapcore.Entry{Message: "handled request", Time: time.Unix(0, 0)}, fields)
		if err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	for _, c := range []struct {
		role string
		o    executor.Outcome
	}{
		{"webuser", executor.Outcome{Action: "read", Schema: "api", Status: 200}},
		{"", executor.Outcome{Action: "read", Status: 401, Code: "PGRST301"}},
		{"web_anon", executor.Outcome{Action: "write", Schema: "api", Status: 400, Code: "22P02", FromDatabase: true}},
		{"we\"ird", executor.Outcome{Action: "rpc", Schema: "sch\u00e9ma", Status: 404, Code: "PGRST202"}},
	} {
		want := encode(separate(c.role, c.o))
		got := encode([]zap.Field{zap.Inline(&outcomeFields{role: c.role, outcome: c.o})})
		if got != want {
			t.Errorf("inline:\n%s\nseparate fields:\n%s", got, want)
		}
	}
}
