package schemasource

import "testing"

func TestParametersLoggedReadsPostgreSQLsLogSettings(t *testing.T) {
	off := map[string]string{
		"log_statement": "none", "log_min_duration_statement": "-1", "log_min_duration_sample": "-1",
		"log_transaction_sample_rate": "0", "log_parameter_max_length": "-1",
	}
	with := func(name, value string) map[string]string {
		m := map[string]string{}
		for k, v := range off {
			m[k] = v
		}
		m[name] = value
		return m
	}
	for _, c := range []struct {
		name     string
		settings map[string]string
		want     bool
	}{
		{"nothing logged", off, false},
		{"every statement logged", with("log_statement", "all"), true},
		{"only changes logged: the settings statement is a select", with("log_statement", "mod"), false},
		{"every statement's duration logged", with("log_min_duration_statement", "0"), true},
		{"slow statements logged", with("log_min_duration_statement", "250"), true},
		{"a sample of slow statements logged", with("log_min_duration_sample", "100"), true},
		{"a sample of transactions logged", with("log_transaction_sample_rate", "0.01"), true},
		{"statements logged without their parameters", map[string]string{
			"log_statement": "all", "log_parameter_max_length": "0"}, false},
		{"settings the role may not read", map[string]string{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := parametersLogged(c.settings); got != c.want {
				t.Errorf("parametersLogged(%v) = %v, want %v", c.settings, got, c.want)
			}
		})
	}
}
