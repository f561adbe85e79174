package room

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/cardroom/cardroom/platform/telemetry"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	"github.com/cardroom/cardroom/services/seating/waitlist"
)

var meter = telemetry.NewMeter("github.com/cardroom/cardroom/services/seating/room")

var (
	offers = meter.Counter("cardroom.seating.offers", "{offer}",
		"Seat offers by what happened to them (made, accepted, declined, expired, withdrawn) and game.")
	waiting = meter.Gauge("cardroom.seating.waitlist.length", "{player}",
		"Players waiting on a game's list (one list per game), as of its last change.")
)

var offerEvents = map[waitlist.EventKind]string{waitlist.OfferMade: "made", waitlist.OfferAccepted: "accepted",
	waitlist.OfferDeclined: "declined", waitlist.OfferExpired: "expired", waitlist.OfferWithdrawn: "withdrawn"}

// gameAttrs names a list's game with a few bounded attributes: a room
// runs a handful of games, each with one list.
func gameAttrs(s waitlist.Spec) []attribute.KeyValue {
	k := s.Stakes
	small, big := k.SmallBlind, k.BigBlind
	if big == 0 {
		small, big = k.SmallBet, k.BigBet
	}
	return []attribute.KeyValue{
		attribute.String("cardroom.game.variant", strings.ToLower(strings.TrimPrefix(gamev1.Variant(s.Variant).String(), "VARIANT_"))),
		attribute.String("cardroom.game.structure", strings.ToLower(strings.TrimPrefix(gamev1.Structure(s.Structure).String(), "STRUCTURE_"))),
		attribute.String("cardroom.game.stakes", fmt.Sprintf("%d/%d", small, big)),
	}
}

// record counts the offer events of a committed change of g and records
// the list's length.
func record(ctx context.Context, g *waitlist.Game, evs []waitlist.Event) {
	game := gameAttrs(g.Spec)
	for _, ev := range evs {
		if what, ok := offerEvents[ev.Kind]; ok {
			offers.Add(ctx, 1, metric.WithAttributes(append(game, attribute.String("cardroom.offer.event", what))...))
		}
	}
	waiting.Record(ctx, int64(len(g.Entries)), metric.WithAttributes(game...))
}
