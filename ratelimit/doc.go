// Package ratelimit decides whether a request may go on to the database:
// the rate limits of the configuration (limit.go), the key a request is
// counted under (key.go), the generic cell rate algorithm in memory
// (memory.go) or in Redis (redis.go), and the IETF RateLimit and
// RateLimit-Policy header fields (headers.go).
//
// pgrest verifies the token itself, so unlike a proxy in front of it, it
// can count by role, by user or by any claim. The limiter runs after the
// token is verified and the request's kind is known, before a pool
// connection is taken: a refused request never reaches PostgreSQL.
package ratelimit
