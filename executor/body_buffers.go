package executor

import "sync"

// A read's body is the larger part of what it allocates: a page of 25
// rows is a few kilobytes, grown by append from nothing on each request.
// The buffer a body was read into goes back to bodyBuffers once the body
// is written, for the next read to read into.
//
// Nothing of one request reaches another through it: a buffer is handed
// back only after output.write gave the body to the ResponseWriter,
// whose Write keeps nothing of it (io.Writer's contract), and nothing
// else keeps a part of it (decodeHandlerBody, location and the OpenAPI
// document copy what they read from a body). A body that is never
// written (the request failed after its transaction) is left to the
// collector, as is a streamed body's buffer. The next read
// appends from length zero, so what it sends is only what it wrote.

// maxPooledBody is the largest buffer kept: a larger body (up to the
// stream bound) is left to the collector, so that a few large reads do
// not keep their memory.
const maxPooledBody = 64 << 10

// initialBodyCap is a new buffer's room, enough for a page of rows.
const initialBodyCap = 4 << 10

var bodyBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, initialBodyCap)
	return &b
}}

// takeBodyBuffer is an empty buffer for a body, and its handle: whoever
// ends up with the body stores the grown buffer in *handle and gives
// that back with giveBodyBuffer.
func takeBodyBuffer() ([]byte, *[]byte) {
	p := bodyBuffers.Get().(*[]byte)
	return (*p)[:0], p
}

// giveBodyBuffer hands the buffer *p back, unless it grew past
// maxPooledBody. Its taker no longer uses any part of it.
func giveBodyBuffer(p *[]byte) {
	if cap(*p) > maxPooledBody {
		return
	}
	*p = (*p)[:0]
	bodyBuffers.Put(p)
}
