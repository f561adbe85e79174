package rpc

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/auth"
	authv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/auth/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
)

// These tests run the interceptors against the real generated code of
// proto/, so the platform and the protos cannot drift apart.

func TestAuthRolesMatchProtoRoleEnum(t *testing.T) {
	t.Parallel()
	values := authv1.Role(0).Descriptor().Values()
	var protoRoles []auth.Role
	for i := range values.Len() {
		name := string(values.Get(i).Name())
		if name == "ROLE_UNSPECIFIED" {
			continue
		}
		r, err := auth.ParseRole(strings.TrimPrefix(name, "ROLE_"))
		if err != nil {
			t.Errorf("proto role %s has no auth.Role: %v", name, err)
		}
		protoRoles = append(protoRoles, r)
	}
	for _, r := range auth.AllRoles {
		if !slices.Contains(protoRoles, r) {
			t.Errorf("auth.%s has no cardroom.auth.v1.Role value", r)
		}
	}
	if got := authv1.E_Access.TypeDescriptor().FullName(); string(got) != AccessExtension {
		t.Errorf("extension is %s, AccessExtension says %s", got, AccessExtension)
	}
}

func TestAccessFromGlobalRegistryReadsGeneratedOptions(t *testing.T) {
	t.Parallel()
	authorize := AccessFromDescriptors(nil, nil)
	roles, public, known := authorize(walletv1.WalletService_OpenAccount_FullMethodName)
	if !known || public || !slices.Equal(roles, []auth.Role{auth.Cashier, auth.Admin}) {
		t.Fatalf("OpenAccount: roles %v public %v known %v", roles, public, known)
	}
	roles, _, known = authorize(walletv1.WalletService_GetBalance_FullMethodName)
	if !known || !slices.Equal(roles, []auth.Role{auth.Player, auth.Cashier, auth.Admin}) {
		t.Fatalf("GetBalance: roles %v known %v", roles, known)
	}
}

type walletStub struct {
	walletv1.UnimplementedWalletServiceServer
}

func (walletStub) OpenAccount(ctx context.Context, req *walletv1.OpenAccountRequest) (*walletv1.OpenAccountResponse, error) {
	return &walletv1.OpenAccountResponse{Account: &walletv1.Account{AccountId: "a1", OwnerId: req.GetOwnerId(), Currency: req.GetCurrency(), Kind: req.GetKind()}}, nil
}

func TestGeneratedServiceEndToEnd(t *testing.T) {
	t.Parallel()
	srv := NewServer(Options{Verifier: mustVerifier(t)})
	walletv1.RegisterWalletServiceServer(srv, walletStub{})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() { Shutdown(srv, time.Second) })
	conn, err := Dial(lis.Addr().String(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	client := walletv1.NewWalletServiceClient(conn)
	as := func(roles ...auth.Role) context.Context {
		return metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+mustToken(t, "u1", roles...))
	}
	valid := &walletv1.OpenAccountRequest{OwnerId: "p1", Currency: "EUR", Kind: walletv1.AccountKind_ACCOUNT_KIND_PLAYER}

	if _, err := client.OpenAccount(t.Context(), valid); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("no token: %v", err)
	}
	if _, err := client.OpenAccount(as(auth.Player), valid); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("player: %v", err)
	}
	resp, err := client.OpenAccount(as(auth.Cashier), valid)
	if err != nil || resp.GetAccount().GetCurrency() != "EUR" {
		t.Fatalf("cashier: %v, %v", resp, err)
	}
	_, err = client.OpenAccount(as(auth.Cashier), &walletv1.OpenAccountRequest{OwnerId: "p1", Currency: "euro", Kind: walletv1.AccountKind_ACCOUNT_KIND_PLAYER})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("bad currency: %v", err)
	}
	if info := errorInfo(t, err); info.GetMetadata()[MetaField] != "currency" || info.GetDomain() != "cardroom.wallet" || info.GetReason() != ReasonInvalidArgument {
		t.Fatalf("bad currency ErrorInfo = %v", info)
	}
	if _, err := client.GetBalance(as(auth.Player), &walletv1.GetBalanceRequest{AccountId: "a1"}); status.Code(err) != codes.Unimplemented {
		t.Fatalf("unimplemented RPC: %v", err)
	}
}
