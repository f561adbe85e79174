module github.com/cardroom/cardroom/cmd/cardroom

go 1.26.0
