package rpc

import (
	"context"
	"fmt"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/cardroom/cardroom/platform/auth"
)

// Dial returns a client connection to target (host:port, or any gRPC
// target) with the OpenTelemetry client stats handler, so the server span
// joins the caller's trace, and with per-RPC credentials that forward the
// caller's identity: the bearer token the incoming call carried (kept in
// the context by the server's authentication), or else o.ServiceToken.
// Transport is plaintext: parts talk over loopback or inside the cluster
// network, where a service mesh adds TLS if the deployment wants it.
func Dial(target string, o Options) (*grpc.ClientConn, error) {
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithStatsHandler(otelgrpc.NewClientHandler(o.otelOptions()...)),
		grpc.WithPerRPCCredentials(forwardToken{service: o.ServiceToken}),
	}
	conn, err := grpc.NewClient(target, append(opts, o.DialOptions...)...)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", target, err)
	}
	return conn, nil
}

// forwardToken is the per-RPC credential Dial installs.
type forwardToken struct {
	service func(context.Context) (string, error)
}

// GetRequestMetadata returns the authorization header for one call. An
// authorization already in the outgoing metadata (grpc-gateway copies the
// HTTP header there) wins, so the header is never sent twice.
func (f forwardToken) GetRequestMetadata(ctx context.Context, _ ...string) (map[string]string, error) {
	if md, ok := metadata.FromOutgoingContext(ctx); ok && len(md.Get("authorization")) > 0 {
		return nil, nil
	}
	if tok, ok := auth.TokenFromContext(ctx); ok {
		return map[string]string{"authorization": "Bearer " + tok}, nil
	}
	if f.service == nil {
		return nil, nil
	}
	tok, err := f.service(ctx)
	if err != nil {
		return nil, fmt.Errorf("service token: %w", err)
	}
	if tok == "" {
		return nil, nil
	}
	return map[string]string{"authorization": "Bearer " + tok}, nil
}

// RequireTransportSecurity is false: tokens travel over loopback or the
// cluster network (see Dial).
func (forwardToken) RequireTransportSecurity() bool { return false }
