package security

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// outcome is what one probe got back.
type outcome struct {
	status int
	header http.Header
	body   []byte
	took   time.Duration
	// unsendable says Go's client refused to send the probe (a control
	// byte in the request line or a header): the transport does not carry
	// it, so no server sees it.
	unsendable bool
	err        error
}

// newClient keeps connections alive between the workers' requests.
func newClient(workers int) *http.Client {
	return &http.Client{
		Timeout: requestTimeout,
		Transport: &http.Transport{
			MaxIdleConnsPerHost: workers,
			DisableCompression:  true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// send sends pr to the server at base (http://host:port), its target byte
// for byte, and reads the whole response.
func send(client *http.Client, base string, pr probe) outcome {
	req, err := http.NewRequest(pr.method, base+"/", bodyOf(pr))
	if err != nil {
		return outcome{err: err}
	}
	req.URL.Path = ""
	req.URL.Opaque = pr.target
	for _, h := range pr.header {
		req.Header.Set(h[0], h[1])
	}
	start := time.Now()
	res, err := client.Do(req)
	if err != nil && !refusedByClient(err) && hasControlByte(pr.target) {
		// Go's server answers a request line with a control byte with 400
		// and closes at once; a client still writing the body then sees a
		// closed connection instead of the answer. Such a request never
		// reaches a handler. Once more on a connection of its own, to read
		// the answer if it comes.
		if retry, rerr := http.NewRequest(pr.method, base+"/", bodyOf(pr)); rerr == nil {
			retry.URL.Path, retry.URL.Opaque, retry.Header, retry.Close = "", pr.target, req.Header, true
			res, err = client.Do(retry)
			if err != nil {
				return outcome{took: time.Since(start), unsendable: true, err: err}
			}
		}
	}
	if err != nil {
		return outcome{took: time.Since(start), unsendable: refusedByClient(err), err: err}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return outcome{status: res.StatusCode, header: res.Header, body: b, took: time.Since(start), err: err}
}

// bodyOf is a reader of pr's body, nil when it has none.
func bodyOf(pr probe) io.Reader {
	if pr.body == "" {
		return nil
	}
	return strings.NewReader(pr.body)
}

// hasControlByte says s holds a byte no HTTP request line may carry.
func hasControlByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// refusedByClient says err is Go's client refusing to write the request,
// before any byte went out.
func refusedByClient(err error) bool {
	s := err.Error()
	return strings.Contains(s, "invalid header field") || strings.Contains(s, "can't write control character") ||
		strings.Contains(s, "invalid method")
}

// describe is a probe and its outcome on one line, cut to a readable size.
func describe(pr probe, o outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", pr.method, clip(pr.target, 160))
	for _, h := range pr.header {
		if h[0] == "Authorization" && strings.HasPrefix(h[1], "Bearer ey") && pr.point != "header: Authorization bearer" {
			continue
		}
		fmt.Fprintf(&b, " [%s: %s]", h[0], clip(h[1], 100))
	}
	if pr.body != "" {
		fmt.Fprintf(&b, " body %s", clip(pr.body, 100))
	}
	fmt.Fprintf(&b, " (%s form)", pr.form)
	if o.err != nil {
		fmt.Fprintf(&b, " -> error %s after %s", clip(o.err.Error(), 200), o.took.Round(time.Millisecond))
	} else {
		fmt.Fprintf(&b, " -> %d %s in %s", o.status, clip(string(o.body), 200), o.took.Round(time.Millisecond))
	}
	return b.String()
}

// clip shows s on one line, cut to max bytes with the length it had:
// printable ASCII as it is, anything else (control bytes, other code
// points, invalid UTF-8) as a Go escape.
func clip(s string, max int) string {
	cut := s
	if len(s) > max {
		cut = s[:max]
	}
	var b strings.Builder
	for i, r := range cut {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(cut[i:], "\uFFFD"):
			fmt.Fprintf(&b, "\\x%02x", cut[i])
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		default:
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	if len(s) > max {
		fmt.Fprintf(&b, "…(%d bytes)", len(s))
	}
	return b.String()
}
