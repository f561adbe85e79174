module github.com/cardroom/cardroom/services/tournament

go 1.26.0
