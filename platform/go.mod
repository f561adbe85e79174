module github.com/cardroom/cardroom/platform

go 1.26.0
