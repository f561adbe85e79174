module github.com/cardroom/cardroom/proto

go 1.26.0
