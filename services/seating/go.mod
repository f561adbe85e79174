module github.com/cardroom/cardroom/services/seating

go 1.26.0
