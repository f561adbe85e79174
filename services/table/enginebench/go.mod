module github.com/cardroom/cardroom/services/table/enginebench

go 1.26.0

require (
	github.com/cardrank/cardrank v0.16.5
	github.com/cardroom/cardroom/services/table v0.0.0-00010101000000-000000000000
	github.com/chehsunliu/poker v0.1.0
	github.com/paulhankin/poker v1.0.0
)

replace github.com/cardroom/cardroom/services/table => ../
