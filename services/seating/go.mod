module github.com/cardroom/cardroom/services/seating

go 1.26.0

require (
	github.com/cardroom/cardroom/platform v0.0.0-00010101000000-000000000000
	github.com/cardroom/cardroom/proto v0.0.0-00010101000000-000000000000
)

replace github.com/cardroom/cardroom/platform => ../../platform

replace github.com/cardroom/cardroom/proto => ../../proto
