// Package openapi holds the merged OpenAPI v2 document of cardroom's REST
// API. `make proto` generates cardroom.swagger.json next to this file from
// the google.api.http and openapiv2 annotations of proto/cardroom; the
// gateway serves it at GET /openapi.json.
package openapi

import _ "embed"

//go:embed cardroom.swagger.json
var document []byte

// JSON returns the document. Callers must not modify the returned slice.
func JSON() []byte { return document }
