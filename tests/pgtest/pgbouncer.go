package pgtest

import (
	"errors"
	"fmt"
	"net"
	"strings"
)

// StartPgBouncer starts PgBouncer in transaction pooling mode in front of
// the cluster (installing Debian's pgbouncer with scripts/pg.sh when it is
// missing) and returns its port. Stop stops it with the cluster. Only for
// throwaway clusters.
func (c *Cluster) StartPgBouncer() (string, error) {
	if c.dir == "" {
		return "", ErrNotOurs
	}
	c.mu.Lock()
	port := c.bouncerPort
	c.mu.Unlock()
	if port != "" {
		return port, nil
	}
	if out, err := c.run("pgbouncer-ensure"); err != nil {
		return "", fmt.Errorf("%w\n%s", err, out)
	}
	var lastErr error
	for range 3 {
		bport, err := freePort()
		if err != nil {
			return "", err
		}
		if _, err := c.run("pgbouncer-start", c.dataDir(), c.port, bport); err != nil {
			lastErr = err
			continue
		}
		c.mu.Lock()
		c.bouncerPort = bport
		c.mu.Unlock()
		return bport, nil
	}
	return "", lastErr
}

// ViaPgBouncer rewrites a connection string of the cluster to go through
// its PgBouncer: the same user, password and database on PgBouncer's port.
func (c *Cluster) ViaPgBouncer(dsn string) (string, error) {
	c.mu.Lock()
	bport := c.bouncerPort
	c.mu.Unlock()
	if bport == "" {
		return "", errors.New("pgtest: PgBouncer is not running")
	}
	if u, ok := parseURL(dsn); ok {
		host, port, err := net.SplitHostPort(u.Host)
		if err != nil || port != c.port {
			return "", fmt.Errorf("pgtest: %s is not a URL of the cluster on port %s", u.Redacted(), c.port)
		}
		u.Host = net.JoinHostPort(host, bport)
		return u.String(), nil
	}
	// keyword/value: a later port= wins over an earlier one.
	if !strings.Contains(dsn, "port="+c.port) && !strings.Contains(dsn, "port='"+c.port+"'") {
		return "", errors.New("pgtest: the connection string does not name the cluster's port")
	}
	return dsn + " port=" + bport, nil
}
