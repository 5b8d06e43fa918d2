// A TCP proxy in front of a pgrest node, for tests that cut a client's
// connection as a network would: no phx_leave, no WebSocket close frame.
import net from 'node:net'

// within waits for a promise, failing after a generous bound (a wait,
// never a measure).
export const within = (promise, what, ms = 20000) =>
  Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`no ${what}`)), ms))])

// startProxy listens on a free loopback port and forwards each
// connection to target (http://host:port). It returns the proxy's URL,
// and:
//
//	cut()    resets every connection on the client's side and ends it on
//	         the server's; it resolves once the server has closed its
//	         side, so the node has seen the socket end (it writes nothing
//	         to it any more). Connections made after it wait, unanswered,
//	         until resume().
//	resume() forwards the waiting connections and the later ones.
//	close()  stops listening and closes every connection.
export async function startProxy(target) {
  const { hostname, port } = new URL(target)
  const live = new Set()
  let waiting = null
  const forward = (client) => {
    if (client.destroyed) return
    const upstream = net.connect(Number(port), hostname)
    const pair = { client, upstream, closed: new Promise((resolve) => upstream.once('close', resolve)) }
    live.add(pair)
    upstream.once('close', () => live.delete(pair))
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
    client.on('close', () => upstream.end())
    client.pipe(upstream)
    upstream.pipe(client)
  }
  const server = net.createServer((client) => {
    client.on('error', () => {})
    if (waiting) waiting.push(client)
    else forward(client)
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    async cut() {
      waiting = []
      const pairs = [...live]
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream)
        upstream.unpipe(client)
        client.resetAndDestroy()
        // Half-closed: the node reads its end, and closes the socket.
        upstream.end()
        upstream.resume()
      }
      await within(Promise.all(pairs.map((p) => p.closed)), 'close by the server after the cut')
    },
    resume() {
      const held = waiting ?? []
      waiting = null
      for (const client of held) forward(client)
    },
    async close() {
      server.close()
      for (const { client, upstream } of live) {
        client.destroy()
        upstream.destroy()
      }
      for (const client of waiting ?? []) client.destroy()
    },
  }
}
