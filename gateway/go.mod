module github.com/cardroom/cardroom/gateway

go 1.26.0
