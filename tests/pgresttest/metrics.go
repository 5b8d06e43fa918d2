package pgresttest

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// MetricsSite is a site block serving Caddy's metrics handler on a free
// port, to pass in Options.Sites, and the URL of its /metrics.
func MetricsSite(t *testing.T) (sites, url string) {
	t.Helper()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d {\n\tmetrics\n}\n", port), fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
}

// Metric is the value of the sample line starting with name (labels
// included) at url, 0 when absent.
func Metric(t *testing.T, url, name string) float64 {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	return 0
}
