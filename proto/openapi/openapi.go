// Package openapi holds the merged OpenAPI documents of cardroom's REST
// API. `make proto` generates cardroom.swagger.json (OpenAPI v2) next to
// this file from the google.api.http and openapiv2 annotations of
// proto/cardroom, and cardroom.openapi.json (OpenAPI 3.1) from it with
// cmd/openapi31; the gateway serves them at GET /openapi.json and
// GET /openapi3.json.
package openapi

import _ "embed"

//go:embed cardroom.swagger.json
var document []byte

// JSON returns the document. Callers must not modify the returned slice.
func JSON() []byte { return document }
