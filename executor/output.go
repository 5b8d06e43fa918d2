package executor

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
)

// output is a successful response, ready to write.
type output struct {
	contentType string
	body        []byte
	noBody      bool
	// explained marks an execution plan's output (explain.go): the
	// action passes it on unshaped.
	explained bool
	// status and gucStatus (100 to 599) are next to noBody and explained
	// so that the four share a word: the output then fits, with the rest of
	// txStorage, in the allocator's 640-byte class.
	status       int16
	gucStatus    int16
	contentRange string
	// contentLocation is the canonical address of a read.
	contentLocation string
	pageTotal       int64
	total           *int64
	// inserted counts the rows an upsert inserted rather than updated.
	inserted int64
	headers  http.Header
	// preferenceApplied lists the preferences honoured.
	preferenceApplied []string
	// gucStatus/gucHeaders are what the SQL set in response.status and
	// response.headers; they win over the defaults.
	gucHeaders http.Header
	// more holds what few responses have, allocated when needed.
	more *outputMore
	// bodyBuffer is the handle of the pooled buffer a read's body was
	// read into, nil for any other body (see body_buffers.go).
	bodyBuffer *[]byte
	// headerValues is room for the values of the headers write sets: a
	// read sets five (Content-Type, -Range, -Location, -Length, Vary); a
	// response that sets more allocates room for them.
	headerValues [5]string
}

// releaseBody hands the buffer the body was read into back to
// bodyBuffers, once written: the output no longer holds it.
func (o *output) releaseBody() {
	p := o.bodyBuffer
	o.body, o.bodyBuffer = nil, nil
	if p != nil {
		giveBodyBuffer(p)
	}
}

// outputMore is the part of an output that few responses have: kept
// apart, so that the output fits its size class (see txStorage).
type outputMore struct {
	// timing, with server_timing_enabled only, holds how long the
	// transaction took and, once Serve has added the other phases, renders
	// the Server-Timing header.
	timing *serverTiming
	// stream, when set, holds the rest of a streamed body, which write
	// copies to the client after the header (see stream.go).
	stream *rowStream
	// legacyNames are the aliased embeds the request named by their
	// relation: a deprecation Warning header, after the other headers as
	// in PostgREST.
	legacyNames []*plan.Embed
}

// timing is the output's Server-Timing, nil when it has none.
func (o *output) timing() *serverTiming {
	if o.more == nil {
		return nil
	}
	return o.more.timing
}

// setTiming sets the output's Server-Timing.
func (o *output) setTiming(t *serverTiming) {
	if o.more == nil {
		o.more = new(outputMore)
	}
	o.more.timing = t
}

// setLegacyNames sets the aliased embeds the request named by their
// relation; none leaves the output as it is.
func (o *output) setLegacyNames(names []*plan.Embed) {
	if len(names) == 0 {
		return
	}
	if o.more == nil {
		o.more = new(outputMore)
	}
	o.more.legacyNames = names
}

// legacyNames are the aliased embeds the request named by their
// relation, nil when it named none so.
func (o *output) legacyNames() []*plan.Embed {
	if o.more == nil {
		return nil
	}
	return o.more.legacyNames
}

// stream is the rest of the output's body when it streams, else nil.
func (o *output) stream() *rowStream {
	if o.more == nil {
		return nil
	}
	return o.more.stream
}

// discardStream ends the transaction of a body that streams and will not
// be sent: the request failed after its transaction.
func (o *output) discardStream() {
	if o != nil {
		o.stream().discard()
	}
}

// resultOutput reads the main statement's standard columns, including the
// response.headers and response.status settings (PGRST111, PGRST112).
func resultOutput(res *txResult) (*output, error) {
	out := new(output)
	if err := readOutput(res, out); err != nil {
		return nil, err
	}
	return out, nil
}

// readOutput is resultOutput into out, which it overwrites whole.
func readOutput(res *txResult, out *output) error {
	if res == nil || len(res.rows) != 1 || len(res.rows[0]) <= sqlgen.ColResponseStatus {
		return errors.New("main statement returned no result row")
	}
	row := res.rows[0]
	*out = output{status: http.StatusOK, contentType: "application/json; charset=utf-8", body: row[sqlgen.ColBody]}
	if v := row[sqlgen.ColTotal]; v != nil {
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return err
		}
		out.total = &n
	}
	n, err := strconv.ParseInt(string(row[sqlgen.ColPageTotal]), 10, 64)
	if err != nil {
		return err
	}
	out.pageTotal = n
	if len(row) > sqlgen.ColInserted && row[sqlgen.ColInserted] != nil {
		if out.inserted, err = strconv.ParseInt(string(row[sqlgen.ColInserted]), 10, 64); err != nil {
			return err
		}
	}
	if v := row[sqlgen.ColResponseHeaders]; v != nil {
		h, aerr := parseGUCHeaders(v)
		if aerr != nil {
			return aerr
		}
		out.gucHeaders = h
	}
	if v := row[sqlgen.ColResponseStatus]; v != nil {
		s, err := strconv.Atoi(strings.TrimSpace(string(v)))
		if err != nil || s < 100 || s > 599 {
			return apierr.GucStatus()
		}
		out.gucStatus = int16(s)
	}
	return nil
}

// parseGUCHeaders reads response.headers: a JSON array of objects with
// one key and a string value each.
func parseGUCHeaders(raw []byte) (http.Header, *apierr.Error) {
	var items []map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&items); err != nil || dec.More() {
		return nil, apierr.GucHeaders()
	}
	h := http.Header{}
	for _, item := range items {
		if len(item) != 1 {
			return nil, apierr.GucHeaders()
		}
		for k, v := range item {
			// Unmarshal leaves s empty for null; only a string will do.
			var s string
			if err := json.Unmarshal(v, &s); err != nil || k == "" || !bytes.HasPrefix(bytes.TrimSpace(v), []byte(`"`)) {
				return nil, apierr.GucHeaders()
			}
			h.Add(k, s)
		}
	}
	return h, nil
}

// defaultVary is the Vary of a successful response: its representation
// depends on Accept, its rows and answer on Prefer and Range.
const defaultVary = "Accept, Prefer, Range"

// write sends the response and returns its status, and the error that
// cut a streamed body short. profile, when set, is the Content-Profile.
func (o *output) write(w http.ResponseWriter, r *http.Request, profile string) (int, error) {
	h := w.Header()
	// The values of the headers set here share one array, the output's
	// own (allocated with it, per response); each is capped at its one
	// value, so that an Add by a later handler copies instead of
	// overwriting its neighbour. This is Header.Set with canonical names.
	values := o.headerValues[:0]
	set := func(name, value string) {
		values = append(values, value)
		n := len(values)
		h[name] = values[n-1 : n : n]
	}
	// A HEAD answers with GET's headers, Content-Type included, as
	// PostgREST's do; other bodiless answers (return=minimal, 204) have
	// none.
	withType := !o.noBody || (r.Method == http.MethodHead && o.status != http.StatusNoContent)
	if o.contentType != "" && withType {
		set("Content-Type", o.contentType)
	}
	if o.contentRange != "" {
		set("Content-Range", o.contentRange)
	}
	if o.contentLocation != "" {
		set("Content-Location", o.contentLocation)
	}
	if profile != "" {
		set("Content-Profile", profile)
	}
	if len(o.preferenceApplied) > 0 {
		set("Preference-Applied", strings.Join(o.preferenceApplied, ", "))
	}
	for k, vs := range o.headers {
		h[k] = vs
	}
	for k, vs := range o.gucHeaders {
		h[k] = vs
	}
	// Vary names what the answer depends on besides the URL, as
	// PostgREST v16 says it on every successful response, unless the
	// database set a Vary of its own in response.headers. One an earlier
	// handler set (Caddy's encode) is kept.
	if _, own := o.gucHeaders["Vary"]; !own {
		if prior := h["Vary"]; len(prior) > 0 {
			h["Vary"] = append(prior[:len(prior):len(prior)], defaultVary)
		} else {
			set("Vary", defaultVary)
		}
	}
	if t := o.timing(); t != nil {
		h.Set("Server-Timing", t.header())
	}
	if names := o.legacyNames(); len(names) > 0 {
		h.Add("Warning", legacyNamesWarning(names))
	}
	status := int(o.status)
	if o.gucStatus != 0 {
		status = int(o.gucStatus)
	}
	body := o.body
	stream := o.stream()
	if o.noBody || status == http.StatusNoContent || status == http.StatusNotModified {
		body = nil
		stream.discard()
		stream = nil
	}
	if stream != nil {
		// The length is not known yet: the body goes out chunked (or
		// framed by HTTP/2) as the rows come. A body that breaks off is
		// returned as an error: the response must then be aborted.
		w.WriteHeader(status)
		return status, stream.copyTo(w)
	}
	if body != nil {
		set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead && body != nil {
		_, _ = w.Write(body)
	}
	o.releaseBody()
	return status, nil
}
