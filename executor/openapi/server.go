package openapi

import (
	"fmt"
	"net/url"
	"strings"
)

// Server is where clients reach the API: the document's schemes, host
// and basePath.
type Server struct {
	// Scheme is "http" or "https".
	Scheme string
	// Host is host[:port]; empty leaves host out, and clients then use
	// the host that served the document.
	Host string
	// BasePath starts with "/".
	BasePath string
}

// ServerFromProxyURI reads openapi_server_proxy_uri the way PostgREST
// does: the scheme, the host with its port (80 or 443 when the URI has
// none) and the path, "/" when empty.
func ServerFromProxyURI(uri string) (Server, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return Server{}, err
	}
	scheme := strings.ToLower(u.Scheme)
	if (scheme != "http" && scheme != "https") || u.Hostname() == "" {
		return Server{}, fmt.Errorf("not an absolute http or https URL: %q", uri)
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if scheme == "https" {
			port = "443"
		}
	}
	host := u.Hostname()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return Server{Scheme: scheme, Host: host + ":" + port, BasePath: path}, nil
}
