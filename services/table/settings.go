package table

import "time"

// Settings are the table service's own environment variables, read by
// cmd/cardroom with the same tags as platform/config (env, envDefault,
// docDefault, doc, secret) and listed in the README from this struct.
type Settings struct {
	// SealKey seals decks, hands in progress and hand histories.
	SealKey string `env:"CARDROOM_TABLE_SEAL_KEY" secret:"true" docDefault:"(empty: generated)" doc:"AES-256-GCM key (32 bytes, base64 or hex) that seals decks, hands in progress and hand histories; every replica needs the same key. Empty generates a dev key in CARDROOM_DATA_DIR/table-seal.key."`
	// HandPause is the pause between hands.
	HandPause time.Duration `env:"CARDROOM_TABLE_HAND_PAUSE" envDefault:"2s" doc:"Pause between the end of a hand and the next deal, so players see the result."`
	// ActionTimeout is the default house time per decision (G-16).
	ActionTimeout time.Duration `env:"CARDROOM_TABLE_ACTION_TIMEOUT" envDefault:"0s" doc:"Default time per decision at tables opened without their own (G-16); on expiry the player folds when facing a bet, otherwise checks (TP-59). 0 means no house clock."`
}
