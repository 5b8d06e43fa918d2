package openapi

// securityScheme is a Swagger 2.0 security scheme object.
type securityScheme struct {
	Description string `json:"description"`
	In          string `json:"in"`
	Name        string `json:"name"`
	Type        string `json:"type"`
}

// jwtSecurity is what openapi_security_active adds, as PostgREST writes
// it: the token travels in the Authorization header, and every operation
// asks for it.
func jwtSecurity() (map[string]securityScheme, []map[string][]string) {
	return map[string]securityScheme{
			"JWT": {
				Description: `Add the token prepending "Bearer " (without quotes) to it`,
				In:          "header",
				Name:        "Authorization",
				Type:        "apiKey",
			},
		},
		[]map[string][]string{{"JWT": {}}}
}
