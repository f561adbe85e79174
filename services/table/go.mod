module github.com/cardroom/cardroom/services/table

go 1.26.0
